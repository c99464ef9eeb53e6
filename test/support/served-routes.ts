// The routes a server serves, read from its route tree (Fastify has no listing of them).

/** Every route the server serves, as `method path` (HEAD routes Fastify adds to GET routes left out), from its route tree. */
export function servedRoutes(tree: string): { method: string; path: string }[] {
  const parents: string[] = [];
  const routes: { method: string; path: string }[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (.+?)(?: \(([^)]+)\))?$/u.exec(line);
    if (match === null) continue;
    const depth = (match[1] ?? '').length / 4;
    const path = `${parents[depth - 1] ?? ''}${match[2]}`;
    parents[depth] = path;
    for (const method of (match[3] ?? '').split(', ').filter((name) => name !== '' && name !== 'HEAD'))
      routes.push({ method: method.toLowerCase(), path });
  }
  return routes;
}
