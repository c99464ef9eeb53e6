// A fuzzer that trusts the API reference: for every operation of the served /openapi.json, requests generated from
// its schemas alone (bodies, query and path parameters) must be accepted. A 400, 413, 415 or any other refusal of a
// request the document calls valid means the document leaves out a rule the validation enforces (or the
// validation refuses what it documents). Reproduce a failure with FUZZ_SEED=<seed>; FUZZ_RUNS scales the runs.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { responseProblems, send, type FuzzResponse, type LeakRules } from '../support/fuzz-checks.js';
import { operationRequests, schemaArbitrary, type OpenApiDocument } from '../support/fuzz-openapi.js';
import type { FuzzRequest } from '../support/fuzz-requests.js';
import { scrubText } from '../support/fuzz-values.js';
import { startServiceWithProvider, testApiKey, type ListeningTestService } from '../support/service.js';

const seed = Number.parseInt(process.env.FUZZ_SEED ?? '', 10) || 20_251_123;
const runScale = Number(process.env.FUZZ_RUNS ?? '') || 1;

/** Statuses that say "your request is not valid"; a 404 (no such namespace or document) or a 2xx is an acceptance. */
const refusals = new Set([400, 401, 403, 405, 411, 413, 414, 415, 422, 431]);

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Why the answer refuses a valid request, or is otherwise wrong; undefined when it is an acceptance. */
function refusal(request: FuzzRequest, response: FuzzResponse, rules: LeakRules, storageRoot: string): string | undefined {
  if (refusals.has(response.status) || response.status >= 500) return `refused with ${response.status}: ${response.text.slice(0, 500)}`;
  if (response.contentType.startsWith('application/x-ndjson')) {
    const last = JSON.parse(response.text.trim().split('\n').at(-1) ?? '{}') as { type?: string; error?: { code?: string } };
    return last.type === 'result' ? undefined : `the progress stream ends with ${JSON.stringify(last)}`;
  }
  // A 404 (no such namespace or document) must still be a catalogue error; 2xx bodies are the other fuzz test's concern.
  const problems = response.status >= 400 ? responseProblems(request, response, rules, storageRoot) : [];
  return problems.length === 0 ? undefined : problems.join('; ');
}

describe('requests the API reference calls valid', { concurrency: false }, () => {
  let service: ListeningTestService;
  let document: OpenApiDocument;
  let scrub: (text: string) => string;
  const rules: LeakRules = { secrets: [testApiKey], internals: [] };

  before(async () => {
    // Listening: the generated requests go through the whole HTTP stack, Node's parser included (a request it refuses
    // with 414 or 431 is refused as surely as by the app's validation).
    ({ service } = await startServiceWithProvider({ listen: true }));
    document = (await (await service.get('/openapi.json')).json()) as OpenApiDocument;
    const targets = {
      closedBaseUrl: `http://127.0.0.1:${await closedPort()}`,
      storageRoot: service.storageRoot,
      filesRoot: service.storageRoot,
      maxFileBytes: 0,
    };
    // URL sources point at a closed port: a valid source that fails is a per-source error, never a refusal.
    scrub = (text) => scrubText(text, targets);
  });

  after(async () => {
    await service?.dispose();
  });

  it('generates only values its own schemas accept (the generator is sound)', () => {
    const namespace = { type: 'string', maxLength: 200, pattern: '^[^A-Za-z0-9_-]*(?:[A-Za-z0-9_-][^A-Za-z0-9_-]*){1,64}$' };
    const exactlyOne = {
      type: 'object',
      properties: { file: { type: 'string' }, source: { type: 'string' } },
      oneOf: [{ required: ['file'] }, { required: ['source'] }],
    };
    fc.assert(
      fc.property(schemaArbitrary(namespace, document), schemaArbitrary(exactlyOne, document), (name, fields) => {
        const kept = (name as string).replace(/[^A-Za-z0-9_-]/g, '');
        assert.ok(kept.length >= 1 && kept.length <= 64 && (name as string).length <= 200);
        assert.equal(['file', 'source'].filter((key) => key in (fields as object)).length, 1);
      }),
      { seed, numRuns: 200 },
    );
  });

  it('accepts every generated request to every operation', async () => {
    // /mcp carries JSON-RPC messages that the document describes only as {"jsonrpc":"2.0",...}: which of them are
    // valid is the Model Context Protocol's business (the SDK answers in JSON-RPC's error shape), tested in mcp.test.ts.
    const operations = Object.entries(document.paths)
      .filter(([path]) => path !== '/mcp')
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => [path, method] as const));
    assert.ok(operations.length >= 15, `the document lists ${operations.length} operations`);
    for (const [path, method] of operations) {
      const runs = Math.max(1, Math.round((path === '/metrics' || path === '/openapi.json' ? 3 : 60) * runScale));
      await fc.assert(
        fc.asyncProperty(operationRequests(document, path, method, scrub), async (request) => {
          const response = await send(service.baseUrl, request);
          const problem = refusal(request, response, rules, service.storageRoot);
          assert.equal(problem, undefined, `${method.toUpperCase()} ${path}: ${problem}`);
        }),
        { seed, numRuns: runs, interruptAfterTimeLimit: 60_000 * runScale, markInterruptAsFailure: true },
      );
    }
  });
});
