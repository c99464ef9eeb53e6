// The rerank stage: the text a candidate is sent as, the order the model's scores give, and what a failure leaves;
// then SearchService with a reranker reached over HTTP (the provider double): diversified results, combined notices
// and the caller's abort.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KnowledgeError } from '../../src/errors.js';
import { createHttpRerankModel } from '../../src/providers/http-rerank-model.js';
import type { RerankModel } from '../../src/providers/rerank-model.js';
import { orderByRelevance, rerankHits, rerankText } from '../../src/search/rerank.js';
import { SearchService } from '../../src/search/search-service.js';
import { createFakeEmbeddingModel } from '../support/fake-models.js';
import { startProviderDouble, type ProviderDouble } from '../support/provider-double.js';
import { createServiceParts, textSource, type ServiceParts } from '../support/service-parts.js';
import { sanitizeNamespace } from '../../src/store/namespace-name.js';

const hits = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((key, index) => ({ key, score: 1 - index / 10 }));

/** A rerank model that scores each text with `score` and records what it was sent. */
function recordingModel(score: (text: string) => number): RerankModel & { sent: string[][] } {
  const sent: string[][] = [];
  return {
    id: 'recording-reranker',
    sent,
    async score(_query, documents) {
      sent.push([...documents]);
      return documents.map(score);
    },
  };
}

describe('orderByRelevance', () => {
  const cases: { name: string; scores: number[]; expected: string[] }[] = [
    { name: 'best score first', scores: [0.1, 0.9, 0.5], expected: ['b', 'c', 'a'] },
    { name: 'ties keep the ranking order', scores: [1, 2, 1], expected: ['b', 'a', 'c'] },
    { name: 'negative logits', scores: [-7, -1.5, -3], expected: ['b', 'c', 'a'] },
  ];
  for (const { name, scores, expected } of cases) {
    it(name, () => {
      const ordered = orderByRelevance(hits.slice(0, 3), scores);
      assert.deepEqual(
        ordered.map((hit) => hit.key),
        expected,
      );
      // Each hit carries the model's score, not the ranking's.
      for (const hit of ordered) assert.equal(hit.score, scores[hits.findIndex((candidate) => candidate.key === hit.key)]);
    });
  }
});

describe('rerankText', () => {
  it('puts the title and heading path before the text', () => {
    assert.equal(rerankText('Tokens', ['Tokens', 'Rotation'], 'Every 90 days.'), 'Tokens > Rotation\n\nEvery 90 days.');
  });

  it('cuts a long text at a word, to at most 2,000 characters', () => {
    const text = rerankText('Long', [], 'word '.repeat(1_000));
    assert.ok(text.length <= 2_000 && text.length > 1_900, String(text.length));
    assert.match(text, /word$/);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = rerankText('Emoji', [], '😀'.repeat(1_500));
    assert.ok(text.length <= 2_000);
    assert.doesNotMatch(text, /[\uD800-\uDBFF]$/);
  });
});

describe('rerankHits', () => {
  const request = { query: 'q', hits, limit: 3, textOf: (key: string) => `text of ${key}` };

  it('sends the first candidates and returns only them, in the model order with its scores', async () => {
    const model = recordingModel((text) => (text.endsWith('e') ? 9 : 1));
    const result = await rerankHits({ model, candidates: 5 }, request);
    assert.deepEqual(model.sent, [['text of a', 'text of b', 'text of c', 'text of d', 'text of e']]);
    assert.deepEqual(result, {
      hits: [
        { key: 'e', score: 9 },
        { key: 'a', score: 1 },
        { key: 'b', score: 1 },
        { key: 'c', score: 1 },
        { key: 'd', score: 1 },
      ],
    });
  });

  it('sends at least as many candidates as the search returns', async () => {
    const model = recordingModel(() => 0);
    await rerankHits({ model, candidates: 5 }, { ...request, limit: 6 });
    assert.equal(model.sent[0]?.length, 6);
  });

  it('leaves out hits without a text, and calls no model when none is left', async () => {
    const model = recordingModel(() => 0);
    const result = await rerankHits({ model, candidates: 5 }, { ...request, textOf: (key) => (key === 'b' ? 'only b' : undefined) });
    assert.deepEqual(model.sent, [['only b']]);
    assert.deepEqual(result.hits, [{ key: 'b', score: 0 }]);
    const none = await rerankHits({ model, candidates: 5 }, { ...request, hits: [] });
    assert.deepEqual(none, { hits: [] });
    assert.equal(model.sent.length, 1);
  });

  it('keeps the ranking with a notice when the model fails', async () => {
    const failing: RerankModel = {
      id: 'down-reranker',
      score: async () => {
        throw new KnowledgeError('provider_error', 'the reranker answered HTTP 500: boom', { temporary: true });
      },
    };
    const result = await rerankHits({ model: failing, candidates: 5 }, request);
    assert.equal(result.hits, hits);
    assert.equal(
      result.notice,
      "reranking with down-reranker failed (the reranker answered HTTP 500: boom); these results are in the search's own order",
    );
  });

  it("throws the caller's abort, and an unexpected error, instead of falling back", async () => {
    const controller = new AbortController();
    const aborting: RerankModel = {
      id: 'aborted-reranker',
      score: async () => {
        controller.abort();
        throw new KnowledgeError('provider_error', 'cut off');
      },
    };
    await assert.rejects(rerankHits({ model: aborting, candidates: 5 }, { ...request, signal: controller.signal }), { message: 'cut off' });
    const broken: RerankModel = {
      id: 'broken-reranker',
      score: async () => {
        throw new TypeError('a bug');
      },
    };
    await assert.rejects(rerankHits({ model: broken, candidates: 5 }, request), TypeError);
  });
});

describe('SearchService with a reranker', () => {
  let provider: ProviderDouble;
  let parts: ServiceParts;
  let withEmbeddings: SearchService;
  let lexicalOnly: SearchService;
  const section = (heading: string) =>
    `## ${heading}\n\nThe kestrel job ${heading.toLowerCase()} the archive. ${'Archived pages wait. '.repeat(50)}`;

  before(async () => {
    provider = await startProviderDouble();
    parts = await createServiceParts({ embeddings: createFakeEmbeddingModel() });
    const report = await parts.ingest.ingest(sanitizeNamespace('archive'), [
      textSource('Kestrel handbook', `# Kestrel handbook\n\n${['Starts', 'Stops', 'Checks'].map(section).join('\n\n')}`),
      textSource('Archive basics', '# Archive basics\n\nThe archive keeps old pages for a year.'),
      textSource('Archive access', '# Archive access\n\nAdmins may read the archive.'),
    ]);
    assert.ok(report.outcomes.every((outcome) => outcome.status === 'saved'));
    const reranking = {
      model: createHttpRerankModel({ model: 'test-reranker', baseUrl: provider.baseUrl, apiKey: undefined, timeoutMs: 1_000 }),
      candidates: 10,
    };
    withEmbeddings = new SearchService(parts.store, parts.embedder, 20, reranking);
    lexicalOnly = new SearchService(parts.store, undefined, 20, reranking);
  });

  after(async () => {
    await parts.dispose();
    await provider.close();
  });

  it('keeps the results diversified: a page the reranker favours takes two of the first places, not all', async () => {
    provider.setRerank({ score: (_query, document) => (document.includes('kestrel') ? 10 : 1) });
    const outcome = await withEmbeddings.search(sanitizeNamespace('archive'), 'what does the archive keep', { mode: 'hybrid', limit: 4 });
    const titles = outcome.hits.map((hit) => hit.document.title);
    assert.ok((outcome.hits[0]?.document.chunks.length ?? 0) >= 3, 'the favoured page has more chunks than it may place first');
    assert.equal(outcome.hits.length, 4);
    assert.deepEqual(titles.slice(0, 2), ['Kestrel handbook', 'Kestrel handbook']);
    assert.deepEqual(titles.slice(2).sort(), ['Archive access', 'Archive basics']);
    assert.deepEqual(
      outcome.hits.map((hit) => hit.score),
      [10, 10, 1, 1],
    );
  });

  it("joins its notice to the lexical fallback's", async () => {
    provider.setRerank({ status: 500 });
    const outcome = await lexicalOnly.search(sanitizeNamespace('archive'), 'archive pages', { mode: 'hybrid', limit: 3 });
    assert.equal(outcome.mode, 'lexical');
    assert.match(
      outcome.notice ?? '',
      /^no embedding model is configured .*; these results are ranked lexically; reranking with test-reranker failed \(/,
    );
  });

  it("rejects with the caller's abort instead of falling back", async () => {
    provider.setRerank({ delayMs: 800 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(
      withEmbeddings.search(sanitizeNamespace('archive'), 'archive pages', { mode: 'lexical', limit: 3, signal: controller.signal }),
      {
        name: 'AbortError',
      },
    );
  });
});
