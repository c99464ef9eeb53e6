// Reads the index size of every namespace, for the gauges of a scrape (a closed namespace is not loaded for it).
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { NamespaceSize } from './service-metrics.js';

export async function namespaceSizes(store: KnowledgeStore): Promise<NamespaceSize[]> {
  return (await store.namespaceCounts()).map(({ name, documents, chunks, vectors }) => ({ namespace: name, documents, chunks, vectors }));
}
