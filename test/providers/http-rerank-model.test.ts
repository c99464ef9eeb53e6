// The rerank adapter against the provider double's /v1/rerank: the request it sends, the answers it reads (results in
// any order, `relevance_score` or `score`), and each failure as a provider_error that never holds the key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KnowledgeError } from '../../src/errors.js';
import { createHttpRerankModel, parseRerankResults } from '../../src/providers/http-rerank-model.js';
import { startProviderDouble, type ProviderDouble } from '../support/provider-double.js';

const apiKey = 'sk-rerank-secret-0123456789';
const documents = ['Tokens rotate every 90 days.', 'Backups run nightly.', 'Rotate a token with rotate-now; tokens expire.'];

describe('HTTP rerank model', () => {
  let provider: ProviderDouble;
  const model = () => createHttpRerankModel({ model: 'bge-reranker-v2-m3', baseUrl: provider.baseUrl, apiKey, timeoutMs: 300 });

  before(async () => {
    provider = await startProviderDouble();
  });
  after(async () => {
    await provider.close();
  });

  it('posts the model, query, documents and top_n to {base}/rerank with the key, and returns scores in document order', async () => {
    provider.setRerank(null);
    const before = provider.rerankRequests().length;
    const scores = await model().score('how do tokens rotate', documents);
    const [request] = provider.rerankRequests().slice(before);
    assert.equal(request?.path, '/v1/rerank');
    assert.deepEqual(request?.body, { model: 'bge-reranker-v2-m3', query: 'how do tokens rotate', documents, top_n: 3 });
    assert.equal(request?.headers.authorization, `Bearer ${apiKey}`);
    // The double's default: the share of the query's words each document holds.
    assert.deepEqual(scores, [0.5, 0, 0.5]);
  });

  it('reads results in any order and under either score field', async () => {
    const score = (_query: string, document: string) => document.length;
    const expected = documents.map((document) => document.length);
    for (const order of ['best-first', 'document', 'worst-first'] as const) {
      for (const scoreField of ['relevance_score', 'score'] as const) {
        provider.setRerank({ score, order, scoreField });
        assert.deepEqual(await model().score('q', documents), expected, `${order}, ${scoreField}`);
      }
    }
  });

  it('sends no Authorization header without a key, and a base URL with a trailing slash reaches the same endpoint', async () => {
    provider.setRerank(null);
    const keyless = createHttpRerankModel({ model: 'm', baseUrl: `${provider.baseUrl}/`, apiKey: undefined, timeoutMs: 1000 });
    await keyless.score('q', ['a']);
    const request = provider.rerankRequests().at(-1);
    assert.equal(request?.path, '/v1/rerank');
    assert.equal(request?.headers.authorization, undefined);
  });

  it('fails as a temporary provider_error on HTTP 500, naming the status', async () => {
    provider.setRerank({ status: 500 });
    await assert.rejects(model().score('q', documents), (error: unknown) => {
      assert.ok(error instanceof KnowledgeError);
      assert.equal(error.code, 'provider_error');
      assert.equal(error.temporary, true);
      assert.match(error.message, /HTTP 500: Scripted rerank failure/);
      return true;
    });
  });

  it('fails on a refused key without repeating it', async () => {
    const guarded = await startProviderDouble({ requiredApiKey: 'sk-the-right-one' });
    try {
      const wrong = createHttpRerankModel({ model: 'm', baseUrl: guarded.baseUrl, apiKey, timeoutMs: 1000 });
      await assert.rejects(wrong.score('q', documents), (error: unknown) => {
        assert.ok(error instanceof KnowledgeError);
        assert.equal(error.code, 'provider_error');
        assert.match(error.message, /refused the credentials \(HTTP 401\)/);
        assert.ok(!error.message.includes(apiKey));
        return true;
      });
    } finally {
      await guarded.close();
    }
  });

  it('fails on a malformed answer: not JSON, no results, no scores', async () => {
    for (const malformed of ['not-json', 'no-results', 'no-scores'] as const) {
      provider.setRerank({ malformed });
      await assert.rejects(model().score('q', documents), { code: 'provider_error', message: /malformed/ }, malformed);
    }
  });

  it('fails when the answer takes longer than the time limit', async () => {
    provider.setRerank({ delayMs: 2_000 });
    const started = Date.now();
    await assert.rejects(model().score('q', documents), { code: 'provider_error', message: /did not answer within 300 ms/ });
    assert.ok(Date.now() - started < 1_500, 'it gave up at the time limit');
  });

  it("throws the caller's abort as it is, not as a provider error", async () => {
    provider.setRerank({ delayMs: 2_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(model().score('q', documents, controller.signal), (error: unknown) => {
      assert.ok(!(error instanceof KnowledgeError));
      assert.equal((error as Error).name, 'AbortError');
      return true;
    });
  });

  it('fails as a temporary provider_error when nothing listens', async () => {
    const gone = await startProviderDouble();
    const baseUrl = gone.baseUrl;
    await gone.close();
    const unreachable = createHttpRerankModel({ model: 'm', baseUrl, apiKey, timeoutMs: 1000 });
    await assert.rejects(unreachable.score('q', documents), { code: 'provider_error', temporary: true, message: /could not be reached/ });
  });
});

describe('parseRerankResults', () => {
  const cases: { name: string; body: string; expected: number[] | RegExp }[] = [
    { name: 'best first', body: '{"results":[{"index":1,"relevance_score":0.9},{"index":0,"relevance_score":0.1}]}', expected: [0.1, 0.9] },
    { name: 'score field, negative logits', body: '{"results":[{"index":0,"score":-3.5},{"index":1,"score":2}]}', expected: [-3.5, 2] },
    {
      name: 'extra fields',
      body: '{"results":[{"index":0,"relevance_score":1,"document":{"text":"a"}},{"index":1,"relevance_score":0}]}',
      expected: [1, 0],
    },
    { name: 'not JSON', body: '<html>', expected: /not JSON/ },
    { name: 'no results', body: '{"data":[]}', expected: /no results array/ },
    { name: 'index out of range', body: '{"results":[{"index":2,"score":1},{"index":0,"score":1}]}', expected: /no index/ },
    { name: 'a score that is text', body: '{"results":[{"index":0,"score":"1"},{"index":1,"score":1}]}', expected: /no numeric score/ },
    { name: 'a document scored twice', body: '{"results":[{"index":0,"score":1},{"index":0,"score":2}]}', expected: /scored twice/ },
    { name: 'a document missing', body: '{"results":[{"index":1,"score":1}]}', expected: /1 of the 2 documents are not scored/ },
  ];
  for (const { name, body, expected } of cases) {
    it(name, () => {
      const result = parseRerankResults(body, 2);
      if (expected instanceof RegExp) assert.match(String(result), expected);
      else assert.deepEqual(result, expected);
    });
  }
});
