// Retrieval modes (embedding, lexical, hybrid) on both search endpoints, embedding models recorded per namespace,
// and searches answered while a long ingest is still embedding.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readStoredIndex } from '../support/namespace-folder.js';
import type { ProviderDouble } from '../support/provider-double.js';
import { makeStorageRoot, startService, startServiceWithProvider, type TestService } from '../support/service.js';

const documents = [
  {
    type: 'text',
    title: 'Password Reset',
    value:
      '# Password Reset\n\nTo reset a forgotten password, open the login page and choose "Forgot password". A reset link arrives by email.',
  },
  {
    type: 'text',
    title: 'Billing',
    value: '# Billing\n\nInvoices are sent on the first day of each month. Payment is due within 14 days.',
  },
  {
    type: 'text',
    title: 'Webhooks',
    value: '# Webhooks\n\nRegister a webhook URL to receive `order.created` events. Retries back off exponentially.',
  },
];

describe('retrieval modes', () => {
  let provider: ProviderDouble;
  let service: TestService;

  before(async () => {
    ({ provider, service } = await startServiceWithProvider());
    assert.equal((await service.post('/tools/ingest', { namespace: 'modes', sources: documents })).status, 200);
  });

  after(async () => {
    await service.dispose();
  });

  it('accepts mode on /tools/search (default embedding) and reports the mode used', async () => {
    for (const mode of ['embedding', 'lexical', 'hybrid', undefined]) {
      const response = await service.post('/tools/search', {
        namespace: 'modes',
        query: 'forgotten password reset link',
        ...(mode === undefined ? {} : { mode }),
      });
      const result = (await response.json()) as { mode: string; matches: { title: string }[] };
      assert.equal(result.mode, mode ?? 'embedding');
      assert.equal(result.matches[0]?.title, 'Password Reset', `mode ${mode}`);
    }
  });

  it('accepts mode on /api/tools/searchDocs (default lexical)', async () => {
    for (const mode of ['embedding', 'lexical', 'hybrid', undefined]) {
      const response = await service.post('/api/tools/searchDocs', {
        namespace: 'modes',
        query: 'invoice payment due',
        ...(mode === undefined ? {} : { mode }),
      });
      const result = (await response.json()) as { mode: string; results: { file: string }[] };
      assert.equal(result.mode, mode ?? 'lexical');
      assert.equal(result.results[0]?.file, 'billing.md', `mode ${mode}`);
    }
  });

  it('ranks hybrid by fusing both lists: a document found by either one is found', async () => {
    const response = await service.post('/tools/search', { namespace: 'modes', query: 'order.created', mode: 'hybrid', top_k: 3 });
    const result = (await response.json()) as { matches: { title: string; score: number }[] };
    assert.equal(result.matches[0]?.title, 'Webhooks');
    assert.equal(result.matches.length, 3);
  });

  it('refuses an unknown mode', async () => {
    const response = await service.post('/tools/search', { namespace: 'modes', query: 'x', mode: 'semantic' });
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as { error: { message: string } }).error.message, /^mode/);
  });

  it('retrieves for the agent with KNOWLEDGE_AGENT_RETRIEVAL (hybrid by default)', async () => {
    const before = provider.embeddingRequests().length;
    await service.post('/api/agents/knowledge/generate', {
      messages: [{ role: 'user', content: 'when is payment due?' }],
      toolParams: { namespace: 'modes' },
    });
    assert.equal(provider.embeddingRequests().length, before + 1, 'the query was embedded for the hybrid ranking');
    const lexicalOnly = await startService({
      providerUrl: provider.baseUrl,
      storageRoot: service.storageRoot,
      environment: { KNOWLEDGE_AGENT_RETRIEVAL: 'lexical' },
    });
    try {
      const embeddingsBefore = provider.embeddingRequests().length;
      await lexicalOnly.post('/api/agents/knowledge/generate', {
        messages: [{ role: 'user', content: 'when is payment due?' }],
        toolParams: { namespace: 'modes' },
      });
      assert.equal(provider.embeddingRequests().length, embeddingsBefore);
    } finally {
      await lexicalOnly.close();
    }
  });
});

describe('embedding models per namespace', () => {
  it('never compares a query with vectors of another model: they are re-embedded with the model in use', async () => {
    const { provider, service: first } = await startServiceWithProvider();
    try {
      await first.post('/tools/ingest', { namespace: 'switch', sources: documents });
      await first.close();
      const directory = join(first.storageRoot, 'switch');
      assert.equal((await readStoredIndex(directory)).embedding?.model, 'text-embedding-3-small');

      const local = await startService({
        providerUrl: provider.baseUrl,
        storageRoot: first.storageRoot,
        environment: { KNOWLEDGE_AGENT_EMBEDDING_MODEL: 'local' },
      });
      try {
        const providerCalls = provider.embeddingRequests().length;
        const response = await local.post('/tools/search', { namespace: 'switch', query: 'I forgot my password' });
        const result = (await response.json()) as { mode: string; matches: { title: string; score: number }[] };
        assert.equal(result.mode, 'embedding');
        assert.equal(result.matches[0]?.title, 'Password Reset');
        assert.equal(provider.embeddingRequests().length, providerCalls, 'the provider was not asked');
        assert.deepEqual((await readStoredIndex(directory)).embedding, { model: 'local:all-MiniLM-L6-v2-int8', dimensions: 384 });
      } finally {
        await local.close();
      }
    } finally {
      await first.dispose();
    }
  });

  it('falls back to lexical ranking with a notice while a large backlog is embedded', async () => {
    const storageRoot = await makeStorageRoot();
    // A large document placed by hand has no vectors yet.
    const sections = Array.from(
      { length: 300 },
      (_, index) => `## Topic ${index}\n\nParagraph about subject number ${index} and its details.`,
    ).join('\n\n');
    await mkdir(join(storageRoot, 'backlog'));
    await writeFile(join(storageRoot, 'backlog', 'many-topics.md'), `# Many Topics\n\n${sections}\n`);
    const { service } = await startServiceWithProvider({ storageRoot });
    try {
      const response = await service.post('/tools/search', { namespace: 'backlog', query: 'subject number 42' });
      const result = (await response.json()) as { mode: string; notice?: string; matches: unknown[] };
      assert.equal(result.mode, 'lexical');
      assert.match(result.notice ?? '', /chunks of namespace "backlog" are being embedded/);
      assert.ok(result.matches.length > 0);
    } finally {
      await service.dispose();
    }
  });
});

describe('local embeddings during a long ingest', () => {
  it('answers a search while a large document is still being embedded', async () => {
    const service = await startService({ apiKey: undefined });
    try {
      await service.post('/api/tools/ingest', { namespace: 'busy', sources: ['A small page about search responsiveness.'] });
      const long = Array.from(
        { length: 120 },
        (_, index) => `## Part ${index}\n\n${'This section describes a long manual in detail. '.repeat(12)}`,
      ).join('\n\n');
      let ingestDone = false;
      const ingest = service
        .post('/tools/ingest', { namespace: 'busy', sources: [{ type: 'text', title: 'Long Manual', value: long }] })
        .then((response) => {
          ingestDone = true;
          return response;
        });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const search = await service.post('/api/tools/searchDocs', { namespace: 'busy', query: 'responsiveness' });
      assert.equal(search.status, 200);
      assert.equal(ingestDone, false, 'the search was answered before the ingest finished embedding');
      assert.equal((await ingest).status, 200);
    } finally {
      await service.dispose();
    }
  });
});
