// Searches a namespace: embedding (cosine) ranking for Variant 1, lexical (BM25) ranking for Variant 2.
import { KnowledgeError } from '../errors.js';
import { embeddingText } from '../ingest/embedding-text.js';
import type { EmbeddingModel } from '../providers/embedding-model.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { Namespace } from '../store/namespace.js';
import { sanitizeNamespace } from '../store/namespace-name.js';
import type { RetrievedChunk } from './retrieved-chunk.js';

export interface SearchOutcome {
  readonly namespace: string;
  readonly hits: readonly RetrievedChunk[];
  /** Index terms of the query, for excerpting. */
  readonly terms: readonly string[];
  /** Files of the namespace that could not be read. */
  readonly warnings: readonly string[];
}

export class SearchService {
  /** One embedding job per namespace at a time, shared by the searches that wait for it. */
  private readonly embeddingJobs = new Map<string, Promise<void>>();

  constructor(
    private readonly store: KnowledgeStore,
    private readonly embeddings: EmbeddingModel | undefined,
    /** Results any search returns at most. */
    private readonly maxResults: number,
  ) {}

  async searchByEmbedding(namespaceName: string, query: string, limit: number, signal?: AbortSignal): Promise<SearchOutcome> {
    const embeddings = this.embeddings;
    if (embeddings === undefined) {
      throw new KnowledgeError('embeddings_unavailable', 'embedding search needs an embedding provider: set LLM_API_KEY (and LLM_BASE_URL for a compatible server)');
    }
    const name = sanitizeNamespace(namespaceName);
    const namespace = await this.store.existingNamespace(name);
    const cappedLimit = Math.min(limit, this.maxResults);
    if (namespace === undefined || cappedLimit <= 0 || query.trim() === '') return { namespace: name, hits: [], terms: [], warnings: namespace?.warnings ?? [] };
    await namespace.syncWithFolder();
    await this.embedPending(namespace, embeddings);
    const [vector] = await embeddings.embed([query], signal);
    const hits = namespace.searchVectors(vector as Float32Array, cappedLimit);
    return { namespace: namespace.name, hits: this.resolve(namespace, hits), terms: namespace.matchedTerms(query), warnings: namespace.warnings };
  }

  async searchLexical(namespaceName: string, query: string, limit: number): Promise<SearchOutcome> {
    const name = sanitizeNamespace(namespaceName);
    const namespace = await this.store.existingNamespace(name);
    const cappedLimit = Math.min(limit, this.maxResults);
    if (namespace === undefined || cappedLimit <= 0) return { namespace: name, hits: [], terms: [], warnings: namespace?.warnings ?? [] };
    await namespace.syncWithFolder();
    const hits = namespace.searchLexical(query, cappedLimit);
    return { namespace: namespace.name, hits: this.resolve(namespace, hits), terms: namespace.matchedTerms(query), warnings: namespace.warnings };
  }

  private resolve(namespace: Namespace, hits: readonly { key: string; score: number }[]): RetrievedChunk[] {
    return hits.flatMap(({ key, score }) => {
      const chunk = namespace.chunk(key);
      const document = chunk === undefined ? undefined : namespace.document(chunk.file);
      return chunk === undefined || document === undefined ? [] : [{ chunk, document, score }];
    });
  }

  /** Embeds chunks that have no vector yet (documents placed by hand, or stored while no provider was set). */
  private embedPending(namespace: Namespace, embeddings: EmbeddingModel): Promise<void> {
    const running = this.embeddingJobs.get(namespace.name);
    if (running !== undefined) return running;
    const pending = namespace.pendingChunks();
    // Vectors of another model were dropped when the namespace was opened, so they are pending too.
    if (pending.length === 0) return Promise.resolve();
    const job = (async () => {
      const texts = pending.map((chunk) => embeddingText(namespace.document(chunk.file)?.title ?? '', chunk.headingPath, chunk.text));
      const vectors = await embeddings.embed(texts);
      await namespace.storeEmbeddings(embeddings.id, new Map(pending.map((chunk, index) => [chunk.id, vectors[index] as Float32Array])));
    })().finally(() => this.embeddingJobs.delete(namespace.name));
    this.embeddingJobs.set(namespace.name, job);
    return job;
  }
}
