// Hostile HTML pages ingested from URLs, and a 6 MB upload of pathological Markdown, must not stall the service:
// /health, polled all along, answers with a p99 under 100 ms and the process's RSS grows by less than 300 MB (the bounds
// of issues 13 and 26); each page ends stored or as a per-source error with a catalogue code, and an ordinary page of the
// same request is stored.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startService, type TestService } from '../support/service.js';

interface IngestResponse {
  documents: { source: string; status: string; chunks: number }[];
  errors: { source: string; error: string; code: string }[];
}

// 100,000 nested divs (~1.1 MB) and 392,000 spans (~5.5 MB): the pages that blocked every route for 15 s and 8 s.
const nestedDivs = `<!doctype html><html><head><title>Nested</title></head><body>${'<div>'.repeat(100_000)}deep text${'</div>'.repeat(100_000)}</body></html>`;
const manySpans = `<!doctype html><html><head><title>Spans</title></head><body><p>${'<span>x</span>'.repeat(392_000)}</p></body></html>`;
const ordinaryPage = `<!doctype html><html><head><title>Rollback</title></head><body><main><h1>Rollback</h1>
  <p>Run the rollback command to return to the previous release. Rollbacks keep the database schema untouched.</p></main></body></html>`;
const limitCodes = new Set(['document_too_complex', 'conversion_timed_out', 'conversion_out_of_memory']);

/**
 * 6 MB of the Markdown that froze every route (issue 26), a megabyte of each: a heading and a run of `[`, empty
 * headings, runs of backticks and `*`, nested lists and quotes with links, table rows, unclosed tags.
 */
function pathologicalMarkdown(): string {
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
const [url, file] = process.argv.slice(1);
const form = new FormData();
form.append('namespace', 'hostile-markdown');
form.append('file', new Blob([readFileSync(file)], { type: 'text/markdown' }), 'pathological.md');
fetch(url, { method: 'POST', body: form }).then(async (response) => {
  process.stdout.write(JSON.stringify({ status: response.status, body: await response.json() }));
});
`;

const percentile = (values: readonly number[], share: number): number => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] as number;
};

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

/** The tests run from the test build (`.js`) or from their TypeScript sources through tsx (`.ts`). */
const ownExtension = extname(fileURLToPath(import.meta.url));

/** Starts a script in a node process of its own and reads the first line it prints. */
async function startHelperProcess(script: string, argument: string): Promise<{ process: ChildProcess; firstLine: string }> {
  // A helper that imports this suite's TypeScript modules needs tsx's loader, which a child process does not inherit.
  const loader = ownExtension === '.ts' ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, '-e', script, argument], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [data] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  return { process: child, firstLine: data.toString().trim() };
}

describe('hostile HTML pages from URLs', () => {
  let service: TestService;
  let folder: string;
  let siteProcess: ChildProcess;
  let providerProcess: ChildProcess;
  const site = { url: '' };

  before(async () => {
    const provider = await startHelperProcess(providerServer, new URL(`../support/provider-double${ownExtension}`, import.meta.url).href);
    providerProcess = provider.process;
    service = await startService({ providerUrl: provider.firstLine });
    folder = await mkdtemp(join(tmpdir(), 'knowledge-agent-hostile-'));
    await writeFile(join(folder, 'nested-divs.html'), nestedDivs);
    await writeFile(join(folder, 'many-spans.html'), manySpans);
    await writeFile(join(folder, 'rollback.html'), ordinaryPage);
    await writeFile(join(folder, 'release.html'), ordinaryPage.replaceAll('Rollback', 'Release').replace('rollback', 'release'));
    const siteHelper = await startHelperProcess(siteServer, folder);
    siteProcess = siteHelper.process;
    site.url = `http://127.0.0.1:${siteHelper.firstLine}`;
  });

  after(async () => {
    await service.dispose();
    siteProcess?.kill();
    providerProcess?.kill();
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  });

  it('are ingested while /health keeps answering quickly and memory stays bounded', async () => {
    assert.ok(nestedDivs.length > 1_000_000 && manySpans.length > 5_400_000, 'the pages are as large as the measured ones');
    // Before measuring, the first fetch sets up the client and two pages at once start both conversion workers (under
    // tsx a worker compiles its TypeScript as it starts, which a busy machine takes seconds over). One large page is
    // fetched and refused first too: the first megabytes through the download, copy and complexity check cost a
    // one-off 50-100 ms on Node 24 (code compiled, the heap grown), which is start-up, not the steady state measured.
    assert.equal((await fetch(`${service.baseUrl}/health`)).status, 200);
    const warmUpSources = ['/rollback.html', '/release.html', '/many-spans.html'].map((path) => ({
      type: 'url',
      value: `${site.url}${path}`,
    }));
    const warmUp = (await (await service.post('/tools/ingest', { namespace: 'warm-up', sources: warmUpSources })).json()) as IngestResponse;
    assert.deepEqual(
      warmUp.documents.map((document) => document.status),
      ['saved', 'saved'],
    );
    assert.deepEqual(
      warmUp.errors.map((error) => error.code),
      ['document_too_complex'],
    );
    const sources = ['/nested-divs.html', '/many-spans.html', '/rollback.html'].map((path) => ({
      type: 'url',
      value: `${site.url}${path}`,
    }));
    const measured = measureHealthWhile(service.baseUrl, async () => {
      const response = await service.post('/tools/ingest', { namespace: 'hostile', sources });
      assert.equal(response.status, 200);
      return (await response.json()) as IngestResponse;
    });
    const result = await measured.result;

    for (const path of ['/nested-divs.html', '/many-spans.html']) {
      const source = `${site.url}${path}`;
      const stored = result.documents.find((document) => document.source === source);
      const failed = result.errors.find((error) => error.source === source);
      assert.ok(stored !== undefined || failed !== undefined, `${path} has an outcome`);
      if (failed !== undefined) assert.ok(limitCodes.has(failed.code), `${path}: ${failed.code} ${failed.error}`);
    }
    assert.equal(result.documents.find((document) => document.source === `${site.url}/rollback.html`)?.status, 'saved');

    await assertWithinBounds(measured);
  });

  it('take a 6 MB upload of pathological Markdown while /health keeps answering quickly', async () => {
    const markdown = pathologicalMarkdown();
    assert.equal(markdown.length, 6_000_000, 'as large as an upload may be');
    const file = join(folder, 'pathological.md');
    await writeFile(file, markdown);
    const measured = measureHealthWhile(service.baseUrl, async () => {
      const client = spawn(process.execPath, ['-e', uploadClient, `${service.baseUrl}/api/tools/ingest`, file], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      client.stdout?.on('data', (data: Buffer) => (output += data.toString()));
      await once(client, 'close');
      return JSON.parse(output) as { status: number; body: { saved: number; errors: { code: string; error: string }[] } };
    });
    const { status, body } = await measured.result;
    assert.equal(status, 200);
    // Stored, or refused by a conversion limit on a machine too slow for the 30 s time limit: never a stall.
    if (body.saved !== 1) assert.ok(limitCodes.has(body.errors[0]?.code ?? ''), JSON.stringify(body.errors));
    await assertWithinBounds(measured);
  });
});

interface HealthMeasurement<Result> {
  readonly result: Promise<Result>;
  /** The latencies of the /health checks made while the work ran, and how far the process's RSS grew meanwhile. */
  readonly health: Promise<{ latencies: number[]; growthMb: number }>;
}

/** Runs `work` while /health is polled every 10 ms, recording each check's latency and the process's peak RSS. */
function measureHealthWhile<Result>(baseUrl: string, work: () => Promise<Result>): HealthMeasurement<Result> {
  const latencies: number[] = [];
  const baselineRss = process.memoryUsage.rss();
  let peakRss = baselineRss;
  let working = true;
  const polling = (async () => {
    while (working) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/health`);
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      assert.equal(response.status, 200);
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      await sleep(10);
    }
  })();
  const result = work().finally(() => (working = false));
  const measured = async () => {
    await polling;
    return { latencies, growthMb: (peakRss - baselineRss) / 1e6 };
  };
  return { result, health: result.then(measured, measured) };
}

async function assertWithinBounds(measured: HealthMeasurement<unknown>): Promise<void> {
  const { latencies, growthMb } = await measured.health;
  const p99 = percentile(latencies, 0.99);
  assert.ok(latencies.length >= 5, `only ${latencies.length} health checks ran`);
  const slowest = [...latencies].sort((left, right) => right - left).slice(0, 8);
  assert.ok(
    p99 < 100,
    `/health p99 ${p99.toFixed(1)} ms over ${latencies.length} checks (slowest ${slowest.map(Math.round).join(', ')} ms)`,
  );
  assert.ok(growthMb < 300, `RSS grew by ${growthMb.toFixed(0)} MB`);
}
