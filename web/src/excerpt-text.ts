// Display form of a server excerpt: the service flattens a chunk's whitespace, so a document's first chunk starts
// with its Markdown title ("# Caching Responses are…"); shown under that title already, the repeat is dropped.

export function displayExcerpt(excerpt: string, title: string): string {
  const heading = /^#{1,6}\s+/.exec(excerpt);
  if (heading === null) return excerpt;
  const rest = excerpt.slice(heading[0].length);
  return rest.startsWith(`${title} `) ? rest.slice(title.length + 1) : excerpt;
}
