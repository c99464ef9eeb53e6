// The search service called directly, over a temporary store and an in-memory embedding model: modes, limits, the
// lexical fallback, and how it has the chunk embedder catch up chunks stored without vectors (inline, in the
// background, and at close).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KnowledgeError } from '../../src/errors.js';
import { createFakeEmbeddingModel, type FakeEmbeddingModel } from '../support/fake-models.js';
import { createServiceParts, textSource, type ServiceParts } from '../support/service-parts.js';
import { until } from '../support/until.js';
import { sanitizeNamespace } from '../../src/store/namespace-name.js';

const handbook = [
  textSource('Vacation Policy', '# Vacation Policy\n\nEmployees get twenty-five vacation days per year. Unused days expire in March.'),
  textSource('Expense Reports', '# Expense Reports\n\nSubmit expense reports within thirty days through the finance portal.'),
  textSource(
    'Password Reset',
    '# Password Reset\n\nA forgotten password is reset from the sign-in page; the reset link expires after one hour.',
  ),
];

/** A provider that is down: the ingest stores documents without vectors. */
const providerDown = () => new KnowledgeError('embedding_failed', 'the embedding provider answered 503', { temporary: true });

const titles = (outcome: { hits: readonly { document: { title: string } }[] }) => outcome.hits.map((hit) => hit.document.title);

async function ingestAll(parts: ServiceParts, namespace: string, sources = handbook): Promise<void> {
  const report = await parts.ingest.ingest(sanitizeNamespace(namespace), sources);
  assert.deepEqual(
    report.outcomes.filter((outcome) => outcome.status === 'failed'),
    [],
  );
}

describe('SearchService with an embedding model', () => {
  let embeddings: FakeEmbeddingModel;
  let parts: ServiceParts;

  before(async () => {
    embeddings = createFakeEmbeddingModel();
    parts = await createServiceParts({ embeddings, maxResults: 2 });
    await ingestAll(parts, 'handbook');
  });

  after(async () => {
    await parts.dispose();
  });

  for (const mode of ['lexical', 'embedding', 'hybrid'] as const) {
    it(`ranks the document that answers first in ${mode} mode and reports the mode`, async () => {
      const outcome = await parts.search.search(sanitizeNamespace('handbook'), 'how many vacation days per year', { mode, limit: 2 });
      assert.equal(outcome.mode, mode);
      assert.equal(outcome.namespace, 'handbook');
      assert.equal(outcome.namespaceExists, true);
      assert.equal(titles(outcome)[0], 'Vacation Policy');
      assert.ok(
        outcome.terms.some((term) => term.startsWith('vacat')),
        `terms: ${outcome.terms.join(' ')}`,
      );
      assert.equal(outcome.notice, undefined);
    });
  }

  it('embeds the query for embedding ranking only', async () => {
    const callsBefore = embeddings.calls.length;
    await parts.search.search(sanitizeNamespace('handbook'), 'expense reports', { mode: 'lexical', limit: 2 });
    assert.equal(embeddings.calls.length, callsBefore);
    await parts.search.search(sanitizeNamespace('handbook'), 'expense reports', { mode: 'hybrid', limit: 2 });
    assert.deepEqual(embeddings.calls.slice(callsBefore), [['expense reports']]);
  });

  it('returns no more hits than asked, nor than the service allows', async () => {
    assert.equal((await parts.search.search(sanitizeNamespace('handbook'), 'days', { mode: 'lexical', limit: 1 })).hits.length, 1);
    assert.equal((await parts.search.search(sanitizeNamespace('handbook'), 'the', { mode: 'embedding', limit: 10 })).hits.length, 2);
  });

  it('returns nothing for a blank query or a limit of zero, without embedding', async () => {
    const callsBefore = embeddings.calls.length;
    for (const [query, limit] of [
      ['   ', 5],
      ['vacation', 0],
    ] as const) {
      const outcome = await parts.search.search(sanitizeNamespace('handbook'), query, { mode: 'embedding', limit });
      assert.deepEqual(outcome.hits, []);
      assert.equal(outcome.namespaceExists, true);
    }
    assert.equal(embeddings.calls.length, callsBefore);
  });

  it('says that a namespace does not exist, without creating its folder', async () => {
    const outcome = await parts.search.search(sanitizeNamespace('never-ingested'), 'vacation', { mode: 'hybrid', limit: 2 });
    assert.equal(outcome.namespaceExists, false);
    assert.deepEqual(outcome.hits, []);
    assert.match(outcome.notice ?? '', /"never-ingested" does not exist/);
    assert.equal(existsSync(join(parts.root, 'never-ingested')), false);
  });

  it('searches the sanitized namespace name', async () => {
    const outcome = await parts.search.search(sanitizeNamespace('hand book!'), 'vacation', { mode: 'lexical', limit: 1 });
    assert.equal(outcome.namespace, 'handbook');
    assert.equal(titles(outcome)[0], 'Vacation Policy');
  });
});

describe('SearchService without an embedding model', () => {
  let parts: ServiceParts;

  before(async () => {
    parts = await createServiceParts({ embeddings: undefined });
    await ingestAll(parts, 'handbook');
  });

  after(async () => {
    await parts.dispose();
  });

  it('refuses embedding ranking with embeddings_unavailable', async () => {
    await assert.rejects(parts.search.search(sanitizeNamespace('handbook'), 'vacation', { mode: 'embedding', limit: 2 }), {
      code: 'embeddings_unavailable',
    });
  });

  it('answers a hybrid search lexically and says why', async () => {
    const outcome = await parts.search.search(sanitizeNamespace('handbook'), 'forgotten password', { mode: 'hybrid', limit: 2 });
    assert.equal(outcome.mode, 'lexical');
    assert.equal(titles(outcome)[0], 'Password Reset');
    assert.match(outcome.notice ?? '', /no embedding model is configured.*ranked lexically/);
  });
});

describe('SearchService with chunks stored while the provider was down', () => {
  let embeddings: FakeEmbeddingModel;
  let parts: ServiceParts;

  before(async () => {
    embeddings = createFakeEmbeddingModel();
    parts = await createServiceParts({ embeddings });
  });

  after(async () => {
    await parts.dispose();
  });

  it('ranks lexically, saying why, while the provider stays down, then embeds the few pending chunks before searching', async () => {
    embeddings.failWith(providerDown());
    await ingestAll(parts, 'few');
    const down = await parts.search.search(sanitizeNamespace('few'), 'expense reports', { mode: 'embedding', limit: 2 });
    assert.equal(down.mode, 'lexical');
    assert.equal(titles(down)[0], 'Expense Reports');
    assert.match(
      down.notice ?? '',
      /chunks of namespace "few" are not embedded yet \(the embedding provider answered 503\).*ranked lexically/,
    );

    embeddings.failWith(undefined);
    const callsBefore = embeddings.calls.length;
    const up = await parts.search.search(sanitizeNamespace('few'), 'expense reports', { mode: 'embedding', limit: 2 });
    assert.equal(up.mode, 'embedding');
    assert.equal(up.notice, undefined);
    assert.equal(titles(up)[0], 'Expense Reports');
    // The pending chunks in one call, then the query.
    assert.equal(embeddings.calls.length - callsBefore, 2);
    assert.equal(embeddings.calls.at(-1)?.[0], 'expense reports');
    assert.equal((await parts.store.namespace(sanitizeNamespace('few'))).pendingChunkCount, 0);
  });

  it('embeds a large backlog in the background, answering lexically meanwhile, and logs its failure', async () => {
    embeddings.failWith(providerDown());
    const many = Array.from({ length: 70 }, (_, index) =>
      textSource(`Page ${index}`, `# Page ${index}\n\nPage number ${index} of the backlog.`),
    );
    await ingestAll(parts, 'backlog', many);
    const errorsBefore = parts.loggedErrors.length;

    // The first search starts the background job and does not wait for it.
    const first = await parts.search.search(sanitizeNamespace('backlog'), 'backlog page', { mode: 'hybrid', limit: 3 });
    assert.equal(first.mode, 'lexical');
    assert.match(first.notice ?? '', /70 chunks of namespace "backlog" are being embedded with fake-embedding/);
    await parts.loggedErrorCount(errorsBefore + 1);
    assert.match(parts.loggedErrors.at(-1)?.message ?? '', /embedding the pending chunks of backlog failed/);
    // Later searches say why the vectors are still missing, and start the job again.
    const second = await parts.search.search(sanitizeNamespace('backlog'), 'backlog page', { mode: 'hybrid', limit: 3 });
    assert.match(second.notice ?? '', /70 chunks of namespace "backlog" are not embedded yet \(the embedding provider answered 503\)/);
    await parts.loggedErrorCount(errorsBefore + 2);

    embeddings.failWith(undefined);
    const namespace = await parts.store.namespace(sanitizeNamespace('backlog'));
    assert.equal((await parts.search.search(sanitizeNamespace('backlog'), 'backlog page', { mode: 'hybrid', limit: 3 })).mode, 'lexical');
    await until(() => namespace.pendingChunkCount === 0, 'the background job to store the vectors');
    assert.equal((await parts.search.search(sanitizeNamespace('backlog'), 'backlog page 7', { mode: 'hybrid', limit: 3 })).mode, 'hybrid');
  });
});

describe('SearchService when the chunk embedder closes', () => {
  it('the background job a search started stops waiting on the provider, without logging its abort', async () => {
    const embeddings = createFakeEmbeddingModel();
    const parts = await createServiceParts({ embeddings });
    try {
      embeddings.failWith(providerDown());
      await ingestAll(
        parts,
        'backlog',
        Array.from({ length: 70 }, (_, index) => textSource(`Page ${index}`, `Page number ${index}.`)),
      );
      embeddings.failWith(undefined);
      embeddings.pause();
      const outcome = await parts.search.search(sanitizeNamespace('backlog'), 'page', { mode: 'embedding', limit: 3 });
      assert.match(outcome.notice ?? '', /being embedded/);
      await parts.embedder?.close();
      assert.deepEqual(parts.loggedErrors, []);
      assert.equal((await parts.store.namespace(sanitizeNamespace('backlog'))).pendingChunkCount, 70);
    } finally {
      embeddings.resume();
      await parts.dispose();
    }
  });
});
