// Ingesting the 155 FastAPI pages with the bundled local embedding model, through the real service over HTTP, while
// searches run against it: the ingest's wall time, and the latency of lexical and embedding searches meanwhile.
// The service runs in a child process (this file with --serve), so the client's own work does not share its event loop.
// Run: npm run bench:local-ingest [-- --runs 2] [-- --pages 40] (the first pages only: a shorter run on a loaded machine)
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fastapiDirectory, markdownFiles } from './ingest-speed-child.js';
import { requireSharedData, sharedDataDirectory } from './shared-data.js';

const { values: flags } = parseArgs({
  options: { runs: { type: 'string', default: '2' }, pages: { type: 'string' }, serve: { type: 'boolean', default: false } },
});
const sourcesPerRequest = 100;
/** Pages ingested into the searched namespace before the timed ingest (they also warm the model up). */
const warmPages = 20;
/** A search is started this often (alternately lexical and embedding) while the ingest runs. */
const searchIntervalMs = 20;
const queries = [
  'query parameters with default values',
  'dependency injection with yield',
  'OAuth2 password flow',
  'background tasks',
  'CORS middleware',
  'path parameters types',
  'response model exclude unset',
  'upload files',
];

async function serve(): Promise<void> {
  const { startBenchApp } = await import('./bench-app.js');
  const root = await mkdtemp(join(tmpdir(), 'knowledge-agent-local-ingest-'));
  const { app, port } = await startBenchApp({
    KNOWLEDGE_AGENT_EMBEDDING_MODEL: 'local',
    KNOWLEDGE_AGENT_STORAGE_PATH: root,
    KNOWLEDGE_AGENT_FILE_ROOTS: sharedDataDirectory,
    // A request of 100 pages sends nothing until it is done: on a loaded machine that can pass the 300 s idle limit.
    KNOWLEDGE_AGENT_IDLE_TIMEOUT_MS: '0',
  });
  process.send?.({ type: 'ready', port });
  const stop = async () => {
    await app.close().catch(() => {});
    await rm(root, { recursive: true, force: true }).catch(() => {});
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  // Peak RSS (kilobytes) and CPU time (microseconds) of the whole service, main thread and workers.
  process.on('message', () => {
    const usage = process.resourceUsage();
    process.send?.({ type: 'usage', peakRssKb: usage.maxRSS, cpuMicros: usage.userCPUTime + usage.systemCPUTime });
  });
}

function startServer(): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => {
      const error = new Error(`the server exited (code ${code}, signal ${signal})`);
      console.error(error.message);
      reject(error);
    });
    child.once('message', (message) => resolve({ child, baseUrl: `http://127.0.0.1:${(message as { port: number }).port}` }));
  });
}

function serviceUsage(child: ChildProcess): Promise<{ peakRssKb: number; cpuMicros: number }> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as { peakRssKb: number; cpuMicros: number }));
    child.send('usage');
  });
}

async function post(baseUrl: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

/** A POST without a client-side time limit: an ingest may take many minutes on a busy machine (fetch gives up after 5). */
function postWithoutTimeout(url: string, body: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

async function ingest(baseUrl: string, namespace: string, files: readonly string[]): Promise<number> {
  let chunks = 0;
  for (let start = 0; start < files.length; start += sourcesPerRequest) {
    const sources = files.slice(start, start + sourcesPerRequest).map((path) => ({ type: 'file', path }));
    const result = JSON.parse(await postWithoutTimeout(`${baseUrl}/tools/ingest`, { namespace, sources })) as {
      chunks_added: number;
      errors: unknown[];
    };
    if (!Array.isArray(result.errors) || result.errors.length > 0) throw new Error(`ingest failed: ${JSON.stringify(result)}`);
    chunks += result.chunks_added;
  }
  return chunks;
}

const percentile = (values: readonly number[], share: number): number => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;
};
const latency = (values: readonly number[]): string =>
  `p50 ${percentile(values, 0.5).toFixed(1)} ms, p99 ${percentile(values, 0.99).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms (${values.length} searches)`;

async function measure(): Promise<void> {
  const runs = Number(flags.runs);
  const files = (await markdownFiles(fastapiDirectory)).slice(0, flags.pages === undefined ? undefined : Number(flags.pages));
  console.log(
    `local-model ingest of ${files.length} FastAPI pages over HTTP, ${runs} runs; load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`,
  );
  for (let run = 1; run <= runs; run++) {
    const { child, baseUrl } = await startServer();
    try {
      await ingest(baseUrl, 'warm', files.slice(0, warmPages));
      const lexical: number[] = [];
      const embedding: number[] = [];
      let ingesting = true;
      // A failed search (the server gone) is reported once the ingest has failed too, not as an unhandled rejection.
      const searching = (async () => {
        for (let turn = 0; ingesting; turn++) {
          const query = queries[turn % queries.length] as string;
          const started = performance.now();
          if (turn % 2 === 0) await post(baseUrl, '/api/tools/searchDocs', { namespace: 'warm', query });
          else await post(baseUrl, '/tools/search', { namespace: 'warm', query, mode: 'embedding' });
          (turn % 2 === 0 ? lexical : embedding).push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, searchIntervalMs));
        }
      })();
      searching.catch(() => {});
      const usageBefore = await serviceUsage(child);
      const started = performance.now();
      const chunks = await ingest(baseUrl, 'docs', files).catch(async (error: unknown) => {
        await new Promise((resolve) => setTimeout(resolve, 1000)); // lets the child's exit be reported first
        throw error;
      });
      const seconds = (performance.now() - started) / 1000;
      ingesting = false;
      await searching;
      console.log(
        `run ${run}: ${seconds.toFixed(1)} s for ${chunks} chunks (${(chunks / seconds).toFixed(0)} chunks/s); load average ${loadavg()[0]?.toFixed(1)}`,
      );
      const usage = await serviceUsage(child);
      // On a shared machine wall time mostly measures waiting for a core; the service's CPU time is what it cost.
      console.log(
        `  service CPU time ${((usage.cpuMicros - usageBefore.cpuMicros) / 1e6).toFixed(1)} s (all threads); peak RSS ${(usage.peakRssKb / 1024).toFixed(0)} MB`,
      );
      console.log(`  lexical searches meanwhile:   ${latency(lexical)}`);
      console.log(`  embedding searches meanwhile: ${latency(embedding)}`);
    } finally {
      child.disconnect();
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
}

// Last, so every helper above is initialized before it runs.
if (flags.serve) await serve();
else {
  requireSharedData('docs-fastapi');
  await measure();
}
