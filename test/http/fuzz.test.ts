// Property-based fuzzing of every route of a running service: random and malformed bodies, content types, forms,
// paths and methods. Every answer is a catalogue error or a well-formed success, never a 5xx or a leak, and the
// storage folder is never left half-written. Reproduce a failure with FUZZ_SEED=<seed> (FUZZ_RUNS scales the runs).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  agUiAgentBody,
  executeBody,
  chatCompletionBody,
  generateBody,
  searchDocsBody,
  variant1AgentBody,
  variant1IngestBody,
  variant1SearchBody,
  variant2IngestBody,
} from '../support/fuzz-bodies.js';
import { responseProblems, send, storageProblems, type LeakRules } from '../support/fuzz-checks.js';
import {
  catalogRequest,
  healthRequest,
  jsonRequest,
  multipartIngestRequest,
  queryString,
  unknownRouteRequest,
  type FuzzRequest,
} from '../support/fuzz-requests.js';
import { looseRecord, type FuzzTargets } from '../support/fuzz-values.js';
import type { ProviderDouble } from '../support/provider-double.js';
import { makeStorageRoot, startService, startServiceWithProvider, testApiKey, type ListeningTestService } from '../support/service.js';

const seed = Number.parseInt(process.env.FUZZ_SEED ?? '', 10) || 20_250_607;
const runScale = Number(process.env.FUZZ_RUNS ?? '') || 1;
const runs = (count: number) => Math.max(1, Math.round(count * runScale));

/** A loopback port with nothing listening: URL sources pointing there fail at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Small files for file sources: Markdown, HTML, a broken PDF, binary, links out of and inside the roots, a folder named .md. */
async function makeFilesRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'knowledge-agent-fuzz-files-'));
  await writeFile(join(root, 'notes.md'), '# Notes\n\nThe fuzz notes mention max_connections and token rotation.\n');
  await writeFile(
    join(root, 'page.html'),
    '<html><head><title>Page</title></head><body><main><h1>Page</h1><p>Some page text.</p></main></body></html>',
  );
  await writeFile(join(root, 'broken.pdf'), '%PDF-1.7\nthis is not really a pdf\n%%EOF\n');
  await writeFile(join(root, 'empty.txt'), '');
  await writeFile(join(root, 'binary.txt'), Buffer.from([0, 159, 146, 150, 255, 0, 1, 2, 3]));
  await symlink('/etc/passwd', join(root, 'link-out.md'));
  await symlink(join(root, 'notes.md'), join(root, 'link-in.md'));
  await mkdir(join(root, 'folder.md'));
  return root;
}

describe('fuzzing every route', { concurrency: false }, () => {
  let provider: ProviderDouble;
  let service: ListeningTestService;
  let filesRoot: string;
  let targets: FuzzTargets;
  let rules: LeakRules;
  const processFailures: unknown[] = [];
  const recordFailure = (error: unknown) => processFailures.push(error);
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort().join();

  before(async () => {
    process.on('uncaughtException', recordFailure);
    process.on('unhandledRejection', recordFailure);
    const storageRoot = await makeStorageRoot();
    // A namespace written by hand before start-up, with a stray non-Markdown file.
    await mkdir(join(storageRoot, 'handmade'));
    await writeFile(join(storageRoot, 'handmade', 'by-hand.md'), '# By hand\n\nWritten into the folder before the service started.\n');
    await writeFile(join(storageRoot, 'handmade', 'stray.txt'), 'not a document');
    // Listening: the fuzzed requests go through the whole HTTP stack, Node's parser and the server's handling of
    // requests it refuses included (an oversized request line answered without the JSON error body was found so).
    ({ provider, service } = await startServiceWithProvider({ listen: true, storageRoot }));
    filesRoot = await makeFilesRoot();
    targets = {
      closedBaseUrl: `http://127.0.0.1:${await closedPort()}`,
      storageRoot: service.storageRoot,
      filesRoot,
      maxFileBytes: service.config.limits.maxSourceBytes,
    };
    rules = { secrets: [testApiKey], internals: [join(process.cwd(), 'src') + '/', 'node_modules'] };
  });

  after(async () => {
    process.off('uncaughtException', recordFailure);
    process.off('unhandledRejection', recordFailure);
    await service?.dispose();
    if (filesRoot !== undefined) await rm(filesRoot, { recursive: true, force: true });
  });

  async function exchange(request: FuzzRequest): Promise<void> {
    const response = await send(service.baseUrl, request);
    const problems = responseProblems(request, response, rules, service.storageRoot);
    assert.deepEqual(problems, [], `${response.status} ${response.contentType}\n${response.text.slice(0, 2_000)}`);
  }

  /**
   * A family that hangs is stopped (and failed) after this long, shrinking included, instead of stalling the suite. A
   * hang detector, not a speed test: the slowest family (multipart ingests) takes about 15 s alone here and reached 30
   * s beside the rest of `npm test`, which is what the limit was; each request has its own response time limit too.
   */
  const familyTimeLimitMs = 120_000 * runScale;

  async function fuzz(requests: fc.Arbitrary<FuzzRequest>, numRuns: number): Promise<void> {
    await fc.assert(fc.asyncProperty(requests, exchange), {
      seed,
      numRuns: runs(numRuns),
      interruptAfterTimeLimit: familyTimeLimitMs,
      markInterruptAsFailure: true,
    });
  }

  const path = (route: string) => fc.constant(route);
  const withQuery = (route: string) => queryString.map((query) => `${route}${query}`);

  it('POST /tools/ingest', async () => fuzz(jsonRequest(targets, path('/tools/ingest'), variant1IngestBody(targets)), 250));
  it('POST /tools/search', async () => fuzz(jsonRequest(targets, path('/tools/search'), variant1SearchBody), 200));
  it('POST /agent with Variant 1 bodies', async () => fuzz(jsonRequest(targets, path('/agent'), variant1AgentBody), 250));
  it('POST /agent with AG-UI bodies', async () => fuzz(jsonRequest(targets, path('/agent'), agUiAgentBody), 250));
  it('POST /api/tools/ingest with JSON', async () =>
    fuzz(jsonRequest(targets, path('/api/tools/ingest'), variant2IngestBody(targets)), 250));
  it('POST /api/tools/ingest with multipart forms', async () => fuzz(multipartIngestRequest(targets), 250));
  it('POST /api/tools/ingest/execute', async () =>
    fuzz(jsonRequest(targets, withQuery('/api/tools/ingest/execute'), executeBody(variant2IngestBody(targets))), 200));
  it('POST /api/tools/searchDocs', async () => fuzz(jsonRequest(targets, path('/api/tools/searchDocs'), searchDocsBody), 200));
  it('POST /api/tools/searchDocs/execute', async () =>
    fuzz(jsonRequest(targets, withQuery('/api/tools/searchDocs/execute'), executeBody(searchDocsBody)), 200));
  it('POST /api/agents/knowledge/generate', async () =>
    fuzz(jsonRequest(targets, path('/api/agents/knowledge/generate'), generateBody), 250));
  it('POST /api/agents/knowledge/stream', async () => fuzz(jsonRequest(targets, path('/api/agents/knowledge/stream'), generateBody), 150));
  it('POST /v1/chat/completions', async () => fuzz(jsonRequest(targets, path('/v1/chat/completions'), chatCompletionBody), 200));
  it('listing and deleting under /tools and /api', async () => fuzz(catalogRequest(targets), 200));
  it('GET /health', async () => fuzz(healthRequest(targets), 150));
  it('unknown paths and methods', async () => fuzz(unknownRouteRequest(targets), 300));

  it('concurrent ingests into one namespace lose nothing and leave a consistent folder', async () => {
    const busy = (body: fc.Arbitrary<unknown>) =>
      body.map((value) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value, namespace: 'busy' } : value));
    const anyIngest = fc.oneof(
      jsonRequest(targets, path('/tools/ingest'), busy(variant1IngestBody(targets))),
      jsonRequest(targets, path('/api/tools/ingest'), busy(variant2IngestBody(targets))),
      jsonRequest(targets, path('/api/tools/searchDocs'), busy(looseRecord({ query: fc.lorem({ maxCount: 3 }) }, ['query']))),
    );
    const property = fc.asyncProperty(fc.array(anyIngest, { minLength: 2, maxLength: 6 }), async (batch) => {
      // Every request is finished before anything is judged: a failing one must not leave the others running.
      const settled = await Promise.allSettled(batch.map(exchange));
      for (const result of settled) if (result.status === 'rejected') throw result.reason;
      assert.deepEqual(await storageProblems(service.storageRoot, 'busy'), []);
    });
    await fc.assert(property, { seed, numRuns: runs(60), interruptAfterTimeLimit: familyTimeLimitMs, markInterruptAsFailure: true });
  });

  it('afterwards the service answers /health, the storage folder is consistent and nothing went wrong out of band', async () => {
    const health = await service.get('/health');
    assert.equal(health.status, 200);
    assert.equal(((await health.json()) as { status: string }).status, 'healthy');
    assert.deepEqual(await storageProblems(service.storageRoot), []);
    assert.deepEqual(processFailures, [], 'no uncaught exception or unhandled rejection');
    assert.equal(Object.getOwnPropertyNames(Object.prototype).sort().join(), prototypeKeys, 'Object.prototype is unchanged');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(
      service.logs.filter((line) => line.includes(testApiKey)),
      [],
      'no log line holds the provider key',
    );
    const errors = new Set(
      service.logs
        .map((line) => JSON.parse(line) as { level: number; msg?: string; err?: { type?: string; message?: string; stack?: string } })
        .filter((entry) => entry.level >= 50)
        .map(
          (entry) =>
            `${entry.msg}: ${entry.err?.type}: ${entry.err?.message} ${
              entry.err?.stack
                ?.split('\n')
                .find((line) => line.includes('/src/'))
                ?.trim() ?? ''
            }`,
        ),
    );
    assert.deepEqual([...errors], [], 'no error was logged');
  });

  it('a restart on the same storage folder loads every namespace without rebuilding or skipping anything', async () => {
    await service.close();
    const restarted = await startService({ providerUrl: provider.baseUrl, storageRoot: service.storageRoot });
    try {
      assert.equal((await restarted.get('/health')).status, 200);
      const complaints = restarted.logs.filter((line) => /unreadable|could not be opened|cannot read/.test(line));
      assert.deepEqual(complaints, [], 'the folder written by the fuzzed service loads cleanly');
      const namespaces = (await readdir(service.storageRoot, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
      for (const namespace of namespaces) {
        const response = await restarted.post('/api/tools/searchDocs', { namespace, query: 'fuzz notes text' });
        assert.equal(response.status, 200, `searchDocs in ${namespace}`);
        assert.deepEqual(((await response.json()) as { warnings: string[] }).warnings, [], `searchDocs in ${namespace} warns`);
      }
    } finally {
      await restarted.close();
    }
  });
});
