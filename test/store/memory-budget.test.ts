// The memory budget: many namespaces, a fifth of which fit; each opens on first use, the least recently used idle ones
// are closed, one in use never is, and a namespace opened again answers as before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chunkMarkdown } from '../../src/ingest/chunk-markdown.js';
import { namespaceSizes } from '../../src/metrics/namespace-sizes.js';
import { ServiceMetrics } from '../../src/metrics/service-metrics.js';
import { KnowledgeStore } from '../../src/store/knowledge-store.js';
import { draft, removeTemporaryDirectories, temporaryDirectory, testModel } from '../support/namespace-fixtures.js';
import { sanitizeNamespace } from '../../src/store/namespace-name.js';

const namespaces = Array.from({ length: 40 }, (_, index) => `team-${String(index).padStart(2, '0')}`);
const documentsEach = 8;
/** Chunks per document: 25 sections and the title's, so 208 chunks a namespace. */
const sections = 25;
const fitting = namespaces.length / 5;

function openStore(root: string, memoryBudget?: number): KnowledgeStore {
  return new KnowledgeStore({
    root,
    embeddingModel: testModel,
    chunkBody: (body) => chunkMarkdown(body),
    warn: () => undefined,
    memoryBudget,
  });
}

/** The best lexical hits for the namespace's own marker, as keys and scores. */
async function search(store: KnowledgeStore, name: string): Promise<string[]> {
  return store.withExistingNamespace(sanitizeNamespace(name), async (namespace) => {
    assert.ok(namespace !== undefined, name);
    return namespace.searchLexical(`${name}-3`, 5).map((hit) => `${hit.key} ${hit.score.toFixed(9)}`);
  });
}

describe('memory budget', () => {
  let root: string;
  let oneNamespaceBytes: number;

  before(async () => {
    root = await temporaryDirectory();
    const writer = openStore(root);
    await writer.initialize();
    await Promise.all(
      namespaces.map(async (name) => {
        const namespace = await writer.namespace(sanitizeNamespace(name));
        await namespace.commitDocuments(Array.from({ length: documentsEach }, (_, index) => draft(`${name}-${index}`, sections)));
      }),
    );
    oneNamespaceBytes = (await writer.namespace(sanitizeNamespace(namespaces[0] as string))).estimatedBytes;
    await writer.close();
  });

  after(removeTemporaryDirectories);

  it('keeps at most the budget loaded, closing the least recently used, and answers the same after reopening', async () => {
    const store = openStore(root, Math.floor((fitting + 0.5) * oneNamespaceBytes));
    await store.initialize();
    assert.equal(store.memory.loaded, fitting, 'start-up opens what fits');

    const first = new Map<string, string[]>();
    for (const name of namespaces) {
      const hits = await search(store, name);
      assert.ok(hits[0]?.startsWith(`runbook-${name}-3`), `${name}: ${hits[0]}`);
      first.set(name, hits);
      assert.ok(store.memory.loaded <= fitting, `${store.memory.loaded} loaded after ${name}`);
      assert.ok(store.memory.estimatedBytes <= store.memory.budgetBytes);
    }
    const evicted = store.memory.evictions;
    assert.ok(evicted >= namespaces.length - fitting, `${evicted} evictions`);

    for (const name of namespaces) assert.deepEqual(await search(store, name), first.get(name), name);
    assert.ok(store.memory.evictions >= evicted + namespaces.length - fitting);
    await store.close();
  });

  it('keeps the namespace in steady use loaded while the others come and go', async () => {
    const store = openStore(root, Math.floor((fitting + 0.5) * oneNamespaceBytes));
    await store.initialize();
    const busy = namespaces.at(-1) as string;
    await search(store, busy);
    const loaded = await store.namespace(sanitizeNamespace(busy));
    for (const name of namespaces.slice(0, -1)) {
      await search(store, name);
      await search(store, busy);
    }
    assert.equal(await store.namespace(sanitizeNamespace(busy)), loaded, 'never closed');
    await store.close();
  });

  it('never closes a namespace a request holds, even with an ingest in flight', async () => {
    const store = openStore(root, Math.floor((fitting + 0.5) * oneNamespaceBytes));
    await store.initialize();
    const held = namespaces[0] as string;
    await store.withNamespace(sanitizeNamespace(held), async (namespace) => {
      const committed = namespace.commitDocuments([draft(`${held}-late`, 2)]);
      for (const name of namespaces.slice(1)) await search(store, name);
      assert.equal(await store.namespace(sanitizeNamespace(held)), namespace, 'the held namespace stayed open');
      assert.equal((await committed)[0]?.status, 'saved');
    });
    assert.ok((await search(store, held)).length > 0);
    await store.close();
  });

  it('answers concurrent requests for namespaces being closed and reopened', async () => {
    const store = openStore(root, Math.floor((fitting + 0.5) * oneNamespaceBytes));
    await store.initialize();
    const requests = [...namespaces, ...namespaces.toReversed(), ...namespaces];
    const answers = await Promise.all(requests.map((name) => search(store, name)));
    answers.forEach((hits, index) => assert.ok(hits[0]?.startsWith(`runbook-${requests[index]}-3`), `${requests[index]}: ${hits[0]}`));
    assert.ok(store.memory.loaded <= fitting, `${store.memory.loaded} loaded once the requests are answered`);
    await store.close();
  });

  it('lists closed namespaces and shows the budget in /metrics without loading them', async () => {
    const store = openStore(root, Math.floor((fitting + 0.5) * oneNamespaceBytes));
    await store.initialize();
    for (const name of namespaces) await search(store, name);
    const loaded = store.memory.loaded;
    const counts = await store.namespaceCounts();
    assert.equal(store.memory.loaded, loaded, 'listing loads nothing');
    assert.equal(counts.length, namespaces.length);
    const one = counts.find((count) => count.name === namespaces[1]);
    assert.deepEqual(one, {
      name: namespaces[1],
      documents: documentsEach,
      chunks: documentsEach * (sections + 1),
      vectors: documentsEach * (sections + 1),
      embeddingModel: testModel,
    });

    const metrics = new ServiceMetrics({ namespaceSizes: () => namespaceSizes(store), namespaceMemory: () => store.memory });
    const text = await metrics.scrape(() => true);
    assert.match(text, new RegExp(`^namespaces_loaded ${loaded}$`, 'm'));
    assert.match(text, new RegExp(`^namespaces_evicted_total ${store.memory.evictions}$`, 'm'));
    assert.match(text, new RegExp(`^namespaces_memory_budget_bytes ${store.memory.budgetBytes}$`, 'm'));
    assert.match(text, /^namespaces_loaded_bytes \d+$/m);
    // The budget's figures name no namespace: a scrape that may read none still shows them.
    const hidden = await metrics.scrape(() => false);
    assert.match(hidden, /^namespaces_evicted_total \d+$/m);
    assert.doesNotMatch(hidden, /namespace="/);
    await store.close();
  });
});
