// Reads the index size of every namespace in the storage root, for the gauges of a scrape.
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { NamespaceSize } from './service-metrics.js';

export async function namespaceSizes(store: KnowledgeStore): Promise<NamespaceSize[]> {
  const sizes: NamespaceSize[] = [];
  for (const name of await store.namespaceNames()) {
    // A namespace that cannot be opened (or was deleted meanwhile) is left out; its requests report why.
    const namespace = await store.existingNamespace(name).catch(() => undefined);
    if (namespace === undefined) continue;
    sizes.push({
      namespace: namespace.name,
      documents: namespace.documents.length,
      chunks: namespace.chunkCount,
      vectors: namespace.chunkCount - namespace.pendingChunkCount,
    });
  }
  return sizes;
}
