// Hostile HTML pages ingested from URLs must not stall the service: /health, polled all along, answers with a p99
// under 100 ms and the process's RSS grows by less than 300 MB (the bounds of issue 13); each page ends stored or as
// a per-source error with a catalogue code, and an ordinary page of the same request is stored.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServiceWithProvider, type TestService } from '../support/service.js';

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

describe('hostile HTML pages from URLs', () => {
  let service: TestService;
  let folder: string;
  let siteProcess: ChildProcess;
  const site = { url: '' };

  before(async () => {
    ({ service } = await startServiceWithProvider());
    folder = await mkdtemp(join(tmpdir(), 'knowledge-agent-hostile-'));
    await writeFile(join(folder, 'nested-divs.html'), nestedDivs);
    await writeFile(join(folder, 'many-spans.html'), manySpans);
    await writeFile(join(folder, 'rollback.html'), ordinaryPage);
    await writeFile(join(folder, 'release.html'), ordinaryPage.replaceAll('Rollback', 'Release').replace('rollback', 'release'));
    siteProcess = spawn(process.execPath, ['-e', siteServer, folder], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [port] = (await once(siteProcess.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
    site.url = `http://127.0.0.1:${port.toString().trim()}`;
  });

  after(async () => {
    await service.dispose();
    siteProcess?.kill();
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
    const healthLatencies: number[] = [];
    const baselineRss = process.memoryUsage.rss();
    let peakRss = baselineRss;
    let ingesting = true;
    const polling = (async () => {
      while (ingesting) {
        const started = performance.now();
        const response = await fetch(`${service.baseUrl}/health`);
        await response.arrayBuffer();
        healthLatencies.push(performance.now() - started);
        assert.equal(response.status, 200);
        peakRss = Math.max(peakRss, process.memoryUsage.rss());
        await sleep(10);
      }
    })();

    const sources = ['/nested-divs.html', '/many-spans.html', '/rollback.html'].map((path) => ({
      type: 'url',
      value: `${site.url}${path}`,
    }));
    const response = await service.post('/tools/ingest', { namespace: 'hostile', sources });
    ingesting = false;
    await polling;
    assert.equal(response.status, 200);
    const result = (await response.json()) as IngestResponse;

    for (const path of ['/nested-divs.html', '/many-spans.html']) {
      const source = `${site.url}${path}`;
      const stored = result.documents.find((document) => document.source === source);
      const failed = result.errors.find((error) => error.source === source);
      assert.ok(stored !== undefined || failed !== undefined, `${path} has an outcome`);
      if (failed !== undefined) assert.ok(limitCodes.has(failed.code), `${path}: ${failed.code} ${failed.error}`);
    }
    assert.equal(result.documents.find((document) => document.source === `${site.url}/rollback.html`)?.status, 'saved');

    const p99 = percentile(healthLatencies, 0.99);
    const growthMb = (peakRss - baselineRss) / 1e6;
    assert.ok(healthLatencies.length >= 5, `only ${healthLatencies.length} health checks ran`);
    assert.ok(p99 < 100, `/health p99 ${p99.toFixed(1)} ms over ${healthLatencies.length} checks`);
    assert.ok(growthMb < 300, `RSS grew by ${growthMb.toFixed(0)} MB`);
  });
});
