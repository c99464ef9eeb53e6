// Load test: requests/s and latency of POST /tools/search (Variant 1) and POST /api/tools/searchDocs (Variant 2) at 50
// concurrent connections, with autocannon, against the real service holding the 155 FastAPI pages, on loopback only.
// The service runs in a child process (bench/load-server.ts) so the load generator does not share its event loop;
// --in-process runs both in this process instead, to show how much that sharing costs.
// Run: npx tsx bench/load.ts [--duration 10] [--connections 50] [--warmup 2] [--mode lexical|embedding|hybrid] [--in-process]
// Lexical mode unless LLM_API_KEY (and LLM_BASE_URL) name a provider; then embedding mode, one embedding call per query.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { requireSharedData } from './shared-data.js';

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '2' },
    mode: { type: 'string' },
    'in-process': { type: 'boolean', default: false },
  },
});
const wholeNumber = (name: string, text: string | undefined, minimum: number, maximum: number): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum || value > maximum)
    throw new Error(`--${name} must be a whole number from ${minimum} to ${maximum} (got ${text})`);
  return value;
};
// Bounded, so the test cannot run away on a shared machine.
const duration = wholeNumber('duration', flags.duration, 1, 120);
const connections = wholeNumber('connections', flags.connections, 1, 1_000);
const warmup = wholeNumber('warmup', flags.warmup, 0, 30);
const providerConfigured = (process.env['LLM_API_KEY'] ?? '').trim() !== '';
const mode = flags.mode ?? (providerConfigured ? 'embedding' : 'lexical');
if (!['lexical', 'embedding', 'hybrid'].includes(mode)) throw new Error(`--mode must be lexical, embedding or hybrid (got ${mode})`);
if (mode !== 'lexical' && !providerConfigured) {
  throw new Error(`--mode ${mode} needs a provider (LLM_API_KEY, LLM_BASE_URL): without one the pages are stored without vectors`);
}

// The server (bench/load-server.ts) holds the FastAPI pages of the shared data.
requireSharedData('docs-fastapi');

const questions = (JSON.parse(readFileSync(new URL('./fastapi-questions.json', import.meta.url), 'utf8')) as { question: string }[]).map(
  (entry) => entry.question,
);
const routes = [
  { name: 'POST /tools/search', path: '/tools/search', body: (query: string) => ({ namespace: 'docs', query, top_k: 5, mode }) },
  {
    name: 'POST /api/tools/searchDocs',
    path: '/api/tools/searchDocs',
    body: (query: string) => ({ namespace: 'docs', query, limit: 5, mode }),
  },
] as const;

interface Server {
  readonly port: number;
  readonly documents: number;
  readonly chunks: number;
  readonly ingestedThrough: string;
  readonly embeddingModel: string | null;
  /** CPU time (user + system) the server's process has used so far, in microseconds. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/** Forks bench/load-server.ts and waits for its "ready" message. */
async function startChildServer(): Promise<Server> {
  const script = fileURLToPath(new URL('./load-server.ts', import.meta.url));
  const child: ChildProcess = fork(script, [], {
    execArgv: ['--import', import.meta.resolve('tsx')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Omit<Server, 'stop' | 'cpuMicros'>>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Omit<Server, 'stop' | 'cpuMicros'>));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the server process exited (code ${code}) before it was ready`)));
  });
  return {
    ...ready,
    cpuMicros: () =>
      new Promise<number>((resolve) => {
        child.once('message', (message) => resolve((message as { micros: number }).micros));
        child.send('cpu');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.send('stop');
        // A server that does not close in time is not worth waiting for.
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

async function startInProcessServer(): Promise<Server> {
  const { startLoadServer } = await import('./load-server.js');
  const server = await startLoadServer(process.env);
  // The process's CPU time: the server's and autocannon's together.
  return { ...server, cpuMicros: async () => process.cpuUsage().user + process.cpuUsage().system, stop: () => server.close() };
}

/** One request per route before the load: a 200 with results, or the test is pointless. */
async function checkRoute(baseUrl: string, route: (typeof routes)[number]): Promise<void> {
  const response = await fetch(`${baseUrl}${route.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(route.body(questions[0] as string)),
  });
  const body = (await response.json()) as { matches?: unknown[]; results?: unknown[]; mode?: string };
  const found = body.matches ?? body.results ?? [];
  if (response.status !== 200 || found.length === 0)
    throw new Error(`${route.name} answered ${response.status} with ${found.length} results`);
}

const server = flags['in-process'] ? await startInProcessServer() : await startChildServer();
const baseUrl = `http://127.0.0.1:${server.port}`;
const results: { route: string; result: Result; cpuMsPerRequest: number }[] = [];
try {
  console.log(
    `load test: ${baseUrl} (${flags['in-process'] ? 'same process as autocannon' : 'server in a child process'}), ${server.documents} FastAPI pages, ` +
      `${server.chunks} chunks, ingested through ${server.ingestedThrough}; mode ${mode}; ${connections} connections, ${duration} s per route ` +
      `after ${warmup} s of warm-up; ${questions.length} queries in rotation`,
  );
  for (const route of routes) {
    await checkRoute(baseUrl, route);
    const requests = questions.map((query) => ({
      method: 'POST',
      path: route.path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(route.body(query)),
    }));
    if (warmup > 0) await autocannon({ url: baseUrl, connections, duration: warmup, timeout: 10, requests });
    const cpuBefore = await server.cpuMicros();
    const result = await autocannon({ url: baseUrl, connections, duration, timeout: 10, requests });
    const cpuMicros = (await server.cpuMicros()) - cpuBefore;
    results.push({ route: route.name, result, cpuMsPerRequest: cpuMicros / 1000 / Math.max(1, result.requests.total ?? 0) });
  }
} finally {
  await server.stop();
}

const rows = [
  [
    'route',
    'req/s (mean)',
    'p50',
    'p97.5',
    'p99',
    'max',
    'requests',
    'non-2xx',
    'errors',
    'timeouts',
    flags['in-process'] ? 'CPU/req (both)' : 'server CPU/req',
  ],
  ...results.map(({ route, result, cpuMsPerRequest }) => [
    route,
    result.requests.mean.toFixed(0),
    `${result.latency.p50} ms`,
    `${result.latency.p97_5} ms`,
    `${result.latency.p99} ms`,
    `${result.latency.max} ms`,
    String(result.requests.total ?? result.requests.sent),
    String(result.non2xx),
    String(result.errors),
    String(result.timeouts),
    `${cpuMsPerRequest.toFixed(2)} ms`,
  ]),
];
const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
console.log('');
for (const row of rows)
  console.log(row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  '));
const failed = results.filter(({ result }) => result.non2xx + result.errors + result.timeouts > 0);
for (const { route, result } of failed) {
  console.log(
    `FAIL ${route}: ${result.non2xx} non-2xx (${JSON.stringify(result.statusCodeStats)}), ${result.errors} errors, ${result.timeouts} timeouts`,
  );
}
if (failed.length > 0) process.exitCode = 1;
else console.log('\nevery request answered 2xx');
