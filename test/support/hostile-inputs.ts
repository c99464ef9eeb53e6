// The hostile inputs of issues 13 and 26, and how the service is measured while it takes them: HTML pages built to
// stall a parser, served from a site in a process of its own, and a 6 MB upload of pathological Markdown, while
// /health is polled. Used by test/http/hostile-pages.test.ts (outcomes, memory, no freeze) and by
// bench/hostile-health.ts (the /health latency percentiles, which a pass/fail test on a shared machine cannot hold).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultConversionTimeoutMs } from '../../src/ingest/document-converter.js';
import { startService, type ListeningTestService } from './service.js';

export interface IngestResponse {
  documents: { source: string; status: string; chunks: number }[];
  errors: { source: string; error: string; code: string }[];
}

// 100,000 nested divs (~1.1 MB) and 392,000 spans (~5.5 MB): the pages that blocked every route for 15 s and 8 s.
export const nestedDivs = `<!doctype html><html><head><title>Nested</title></head><body>${'<div>'.repeat(100_000)}deep text${'</div>'.repeat(100_000)}</body></html>`;
export const manySpans = `<!doctype html><html><head><title>Spans</title></head><body><p>${'<span>x</span>'.repeat(392_000)}</p></body></html>`;
const ordinaryPage = `<!doctype html><html><head><title>Rollback</title></head><body><main><h1>Rollback</h1>
  <p>Run the rollback command to return to the previous release. Rollbacks keep the database schema untouched.</p></main></body></html>`;

/** The codes a hostile document may end with: a conversion limit, never a stall. */
export const limitCodes = new Set(['document_too_complex', 'conversion_timed_out', 'conversion_out_of_memory']);

/**
 * 6 MB of the Markdown that froze every route (issue 26), a megabyte of each: a heading and a run of `[`, empty
 * headings, runs of backticks and `*`, nested lists and quotes with links, table rows, unclosed tags.
 */
export function pathologicalMarkdown(): string {
  const megabyte = (unit: string, prefix = '') => (prefix + unit.repeat(Math.ceil(1_000_000 / unit.length))).slice(0, 1_000_000);
  return [
    megabyte('[', '# B\n'),
    megabyte('######\n'),
    megabyte('`*', 'x '),
    megabyte('> > - item [a](b.md) <b>x</b>\n    - nested ![i](j) `code`\n'),
    megabyte('| a | b |\n'),
    megabyte('<b <Tabs {{< tab ::: tip\n'),
  ]
    .join('\n\n')
    .slice(0, 6_000_000);
}

/** Uploads one Markdown file from a process of its own, so that sending 6 MB is not measured as the service's work. */
const uploadClient = `
const { readFileSync } = require('node:fs');
const [url, file, namespace] = process.argv.slice(1);
const form = new FormData();
form.append('namespace', namespace);
form.append('file', new Blob([readFileSync(file)], { type: 'text/markdown' }), 'pathological.md');
fetch(url, { method: 'POST', body: form }).then(async (response) => {
  process.stdout.write(JSON.stringify({ status: response.status, body: await response.json() }));
});
`;

/**
 * The site serving the pages runs in a process of its own: the megabytes it writes are the remote site's work, and on
 * this process's event loop they would be measured as the service's.
 */
const siteServer = `
const { createServer } = require('node:http');
const { readFileSync, readdirSync } = require('node:fs');
const { join } = require('node:path');
const folder = process.argv[1];
const pages = new Map(readdirSync(folder).map((name) => ['/' + name, readFileSync(join(folder, name))]));
const server = createServer((request, response) => {
  const body = pages.get(request.url);
  if (body === undefined) return void response.writeHead(404).end();
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/**
 * The provider double runs in a process of its own too: embedding thousands of chunks is the provider's work (a 6 MB
 * upload makes about 5,000), which on this event loop held /health for up to 0.8 s.
 */
const providerServer = `
import(process.argv[1]).then(async ({ startProviderDouble }) => {
  const provider = await startProviderDouble();
  process.stdout.write(provider.baseUrl + '\\n');
});
`;

/** This module runs from the test build (`.js`) or from its TypeScript source through tsx (`.ts`). */
const ownExtension = extname(fileURLToPath(import.meta.url));

/** Starts a script in a node process of its own and reads the first line it prints. */
async function startHelperProcess(script: string, argument: string): Promise<{ process: ChildProcess; firstLine: string }> {
  // A helper that imports this suite's TypeScript modules needs tsx's loader, which a child process does not inherit.
  const loader = ownExtension === '.ts' ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, '-e', script, argument], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [data] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  return { process: child, firstLine: data.toString().trim() };
}

export interface HealthMeasurement<Result> {
  readonly result: Promise<Result>;
  /** The latencies of the /health checks made while the work ran, their statuses, and how far the RSS grew meanwhile. */
  readonly health: Promise<{ latencies: number[]; statuses: number[]; growthMb: number }>;
}

/** Runs `work` while /health is polled every 10 ms, recording each check's latency and the process's peak RSS. */
function measureHealthWhile<Result>(baseUrl: string, work: () => Promise<Result>): HealthMeasurement<Result> {
  const latencies: number[] = [];
  const statuses: number[] = [];
  const baselineRss = process.memoryUsage.rss();
  let peakRss = baselineRss;
  let working = true;
  const polling = (async () => {
    while (working) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/health`);
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      statuses.push(response.status);
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      await sleep(10);
    }
  })();
  const result = work().finally(() => (working = false));
  const measured = async () => {
    await polling;
    return { latencies, statuses, growthMb: (peakRss - baselineRss) / 1e6 };
  };
  return { result, health: result.then(measured, measured) };
}

/** The service (its provider and the hostile site each in a process of its own), warmed up, and the two workloads. */
export interface HostileScenario {
  readonly service: ListeningTestService;
  readonly siteUrl: string;
  /** What the warm-up ingest (two ordinary pages and the spans page) answered. */
  readonly warmUp: IngestResponse;
  /** Ingests the two hostile pages and an ordinary one from the site in one request, polling /health meanwhile. */
  ingestHostilePages(namespace: string): HealthMeasurement<IngestResponse>;
  /** Uploads the 6 MB of pathological Markdown from a process of its own, polling /health meanwhile. */
  uploadPathologicalMarkdown(
    namespace: string,
  ): HealthMeasurement<{ status: number; body: { saved: number; errors: { code: string; error: string }[] } }>;
  dispose(): Promise<void>;
}

export async function startHostileScenario(): Promise<HostileScenario> {
  const provider = await startHelperProcess(providerServer, new URL(`./provider-double${ownExtension}`, import.meta.url).href);
  const folder = await mkdtemp(join(tmpdir(), 'knowledge-agent-hostile-'));
  await writeFile(join(folder, 'nested-divs.html'), nestedDivs);
  await writeFile(join(folder, 'many-spans.html'), manySpans);
  await writeFile(join(folder, 'rollback.html'), ordinaryPage);
  await writeFile(join(folder, 'release.html'), ordinaryPage.replaceAll('Rollback', 'Release').replace('rollback', 'release'));
  const markdownFile = join(folder, 'pathological.md');
  await writeFile(markdownFile, pathologicalMarkdown());
  const site = await startHelperProcess(siteServer, folder);
  const siteUrl = `http://127.0.0.1:${site.firstLine}`;
  // Listening: the upload comes from a process of its own, and /health is polled over HTTP as a load balancer would.
  // With the shipped conversion time limit (the tests' services wait longer): a limit is part of what is checked.
  const service = await startService({
    listen: true,
    providerUrl: provider.firstLine,
    environment: { KNOWLEDGE_AGENT_CONVERSION_TIMEOUT_MS: String(defaultConversionTimeoutMs) },
  });
  const pageSources = (paths: string[]) => paths.map((path) => ({ type: 'url', value: `${siteUrl}${path}` }));

  // Before measuring, the first fetch sets up the client and two pages at once start both conversion workers (under
  // tsx a worker compiles its TypeScript as it starts, which a busy machine takes seconds over). One large page is
  // fetched and refused first too: the first megabytes through the download, copy and complexity check cost a
  // one-off 50-100 ms on Node 24 (code compiled, the heap grown), which is start-up, not the steady state measured.
  await fetch(`${service.baseUrl}/health`);
  const warmUpResponse = await service.post('/tools/ingest', {
    namespace: 'warm-up',
    sources: pageSources(['/rollback.html', '/release.html', '/many-spans.html']),
  });
  const warmUp = (await warmUpResponse.json()) as IngestResponse;

  return {
    service,
    siteUrl,
    warmUp,
    ingestHostilePages: (namespace) =>
      measureHealthWhile(service.baseUrl, async () => {
        const response = await service.post('/tools/ingest', {
          namespace,
          sources: pageSources(['/nested-divs.html', '/many-spans.html', '/rollback.html']),
        });
        if (response.status !== 200) throw new Error(`the ingest answered ${response.status}: ${await response.text()}`);
        return (await response.json()) as IngestResponse;
      }),
    uploadPathologicalMarkdown: (namespace) =>
      measureHealthWhile(service.baseUrl, async () => {
        const client = spawn(process.execPath, ['-e', uploadClient, `${service.baseUrl}/api/tools/ingest`, markdownFile, namespace], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let output = '';
        client.stdout?.on('data', (data: Buffer) => (output += data.toString()));
        await once(client, 'close');
        return JSON.parse(output);
      }),
    async dispose() {
      await service.dispose();
      site.process.kill();
      provider.process.kill();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

export const percentile = (values: readonly number[], share: number): number => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] as number;
};
