import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChunkEmbedder } from '../../src/embedding/chunk-embedder.js';
import { KnowledgeError } from '../../src/errors.js';
import type { EmbeddingModel } from '../../src/providers/embedding-model.js';
import { contentHash } from '../../src/store/content-hash.js';
import { KnowledgeStore } from '../../src/store/knowledge-store.js';
import { sanitizeNamespace } from '../../src/store/namespace-name.js';

/** An embedding model that is down for its first `failures` calls, then answers with a fixed vector per text. */
function flakyModel(failures: number): EmbeddingModel & { calls: number } {
  return {
    id: 'fake-embedding',
    calls: 0,
    async embed(texts) {
      this.calls += 1;
      if (this.calls <= failures) throw new KnowledgeError('embedding_failed', 'the provider answered 503', { temporary: true });
      return texts.map(() => Float32Array.from([0.6, 0.8]));
    },
  };
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe('ChunkEmbedder: the one owner of chunks without vectors', () => {
  let root: string;
  let store: KnowledgeStore;
  const errors: string[] = [];
  const logError = (message: string) => errors.push(message);

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'chunk-embedder-'));
    store = new KnowledgeStore({
      root,
      embeddingModel: 'fake-embedding',
      chunkBody: (body) => [{ text: body, headingPath: [] }],
      warn: () => {},
    });
    await store.initialize();
  });
  after(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  async function namespaceWithPendingChunks(name: string) {
    const namespace = await store.namespace(sanitizeNamespace(name));
    const body = `Restoring ${name} archives takes a day.`;
    await namespace.commitDocuments([
      {
        title: name,
        origin: 'text',
        body,
        hash: contentHash(body),
        embeddingModel: null,
        chunks: [{ text: body, headingPath: [], embedding: null }],
      },
    ]);
    assert.equal(namespace.pendingChunkCount, 1);
    return namespace;
  }

  it('embeds the chunks of a new document with their title and headings as context', async () => {
    const seen: string[] = [];
    const model: EmbeddingModel = {
      id: 'fake-embedding',
      embed: async (texts) => (seen.push(...texts), texts.map(() => Float32Array.from([1, 0]))),
    };
    const embedder = new ChunkEmbedder(store, model, logError);
    const vectors = await embedder.embedChunks('Backups', [{ headingPath: ['Backups', 'Restore'], text: 'Thaw the archive.' }]);
    assert.equal(vectors.length, 1);
    assert.deepEqual(seen, ['Backups > Restore\n\nThaw the archive.']);
  });

  it('shares one job between callers that ask at once, and stores the vectors', async () => {
    const namespace = await namespaceWithPendingChunks('joined');
    const model = flakyModel(0);
    const embedder = new ChunkEmbedder(store, model, logError);
    await Promise.all([embedder.embedPending(namespace), embedder.embedPending(namespace)]);
    assert.equal(model.calls, 1);
    assert.equal(namespace.pendingChunkCount, 0);
    await embedder.close();
  });

  it('retries in the background while the provider is down, and fills the vectors in once it answers', async () => {
    const namespace = await namespaceWithPendingChunks('outage');
    const model = flakyModel(2);
    const embedder = new ChunkEmbedder(store, model, logError, { firstMs: 5, maxMs: 20 });
    embedder.embedPendingLater(namespace);
    await waitFor(() => namespace.pendingChunkCount === 0, 'the pending chunk to be embedded');
    assert.equal(model.calls, 3);
    assert.equal(embedder.pendingFailure('outage'), undefined);
    assert.ok(
      errors.some((message) => message.includes('outage')),
      'each failed attempt is logged',
    );
    await embedder.close();
  });

  it('reports why the last attempt failed, and stops retrying once closed', async () => {
    const namespace = await namespaceWithPendingChunks('closed');
    const model = flakyModel(Number.POSITIVE_INFINITY);
    const embedder = new ChunkEmbedder(store, model, logError, { firstMs: 5, maxMs: 5 });
    await assert.rejects(embedder.embedPending(namespace), /503/);
    assert.match(embedder.pendingFailure('closed') ?? '', /503/);
    await embedder.close();
    const calls = model.calls;
    await sleep(50);
    assert.equal(model.calls, calls);
    assert.equal(namespace.pendingChunkCount, 1);
  });
});
