// Searches a namespace by embedding (cosine), lexically (BM25), or both fused (hybrid); with a rerank model, the
// ranking's head is reordered by it (rerank.ts) before the results are diversified and cut to the limit.
import { KnowledgeError, isKnowledgeError } from '../errors.js';
import type { ChunkEmbedder } from '../embedding/chunk-embedder.js';
import type { ScoredHit } from '../indexes/scored-hit.js';
import type { EmbeddingModel } from '../providers/embedding-model.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { Namespace } from '../store/namespace.js';
import type { NamespaceName } from '../store/namespace-name.js';
import { withTextsAround } from '../store/stored-document.js';
import { diversificationDepth, diversifyByDocument, searchDiverseEnough } from './diversify.js';
import { hybridCandidateDepth, hybridRanking, medianChunkCount } from './fusion.js';
import { relevanceEvidence, type RelevanceEvidence } from './relevance.js';
import { rerankHits, rerankText, type SearchReranking } from './rerank.js';
import type { RetrievedChunk } from './retrieved-chunk.js';

export const searchModes = ['embedding', 'lexical', 'hybrid'] as const;
export type SearchMode = (typeof searchModes)[number];

export interface SearchOptions {
  readonly mode: SearchMode;
  readonly limit: number;
  readonly signal?: AbortSignal;
}

export interface SearchOutcome {
  readonly namespace: string;
  /** The ranking actually used: a mode that needs embeddings falls back to lexical when they are unavailable. */
  readonly mode: SearchMode;
  readonly hits: readonly RetrievedChunk[];
  /** Index terms of the query, for excerpting. */
  readonly terms: readonly string[];
  /** Files of the namespace that could not be read. */
  readonly warnings: readonly string[];
  /** Why the ranking differs from the one asked for, or that the namespace does not exist. */
  readonly notice?: string;
  /** False when no namespace of that name exists: nothing was searched, and nothing was created. */
  readonly namespaceExists: boolean;
  /** How well the hits match the query (see relevance.ts); absent when nothing was searched. */
  readonly relevance?: RelevanceEvidence;
}

/**
 * What a search of a namespace that does not exist says, instead of an empty result that reads as "nothing relevant".
 * It names no other namespace: the caller may not be allowed to read them.
 */
export function missingNamespaceNotice(namespace: string): string {
  return `the namespace "${namespace}" does not exist: nothing has been ingested into it`;
}

/** Nearest chunks whose mean similarity is the background a question's best match is measured against (relevance.ts). */
const backgroundDepth = 30;
/** Candidates taken from each list before fusing (see fusion.ts). */
const fusionDepth = hybridCandidateDepth;
/** Pending chunks embedded while a search waits; a larger backlog is embedded in the background. */
const maxPendingEmbeddedInline = 64;

export class SearchService {
  private readonly medians = new WeakMap<Namespace, { version: string; median: number }>();

  constructor(
    private readonly store: KnowledgeStore,
    /** The embedding model and the owner of its pending chunks; undefined when no embedding model is configured. */
    private readonly embeddings: ChunkEmbedder | undefined,
    /** Results any search returns at most. */
    private readonly maxResults: number,
    /** The rerank model and how many candidates it reads; undefined: results keep the ranking's order. */
    private readonly reranking?: SearchReranking,
    /** When a refresh last found the document of `origin` current, if one did (registered sources). */
    private readonly confirmedAt: (namespace: NamespaceName, origin: string) => string | undefined = () => undefined,
    /** What embeds the query: the embedder's model, or the same model remembering recent texts (see selectModels). */
    private readonly queryEmbeddings: EmbeddingModel | undefined = embeddings?.model,
  ) {}

  async search(name: NamespaceName, query: string, options: SearchOptions): Promise<SearchOutcome> {
    return this.store.withExistingNamespace(name, (namespace) => this.searchIn(name, namespace, query, options));
  }

  private async searchIn(name: string, namespace: Namespace | undefined, query: string, options: SearchOptions): Promise<SearchOutcome> {
    if (namespace === undefined) {
      return {
        namespace: name,
        mode: options.mode,
        hits: [],
        terms: [],
        warnings: [],
        notice: missingNamespaceNotice(name),
        namespaceExists: false,
      };
    }
    const limit = Math.min(options.limit, this.maxResults);
    if (limit <= 0 || query.trim() === '')
      return { namespace: name, mode: options.mode, hits: [], terms: [], warnings: namespace.warnings, namespaceExists: true };
    const base = { namespace: namespace.name, terms: namespace.matchedTerms(query), warnings: namespace.warnings, namespaceExists: true };
    // Deep enough for the diversification to keep `limit` hits, and for the reranker's candidates.
    const candidateDepth = Math.max(diversificationDepth(limit), this.reranking?.candidates ?? 0);
    const documentOf = (key: string) => namespace.chunk(key)?.file;
    /** `embedded`: the query's vector and its nearest chunks by cosine (how similar the namespace is to it at large). */
    const ranked = async (
      hits: readonly ScoredHit[],
      embedded?: { vector: Float32Array; nearest: readonly ScoredHit[] },
      notice?: string,
    ) => {
      const reranked = await this.rerank(namespace, query, hits, limit, options.signal);
      const resolved = this.resolve(namespace, diversifyByDocument(reranked.hits, documentOf).slice(0, limit));
      const notices = [notice, reranked.notice].filter((text) => text !== undefined);
      const model = this.embeddings?.model.id;
      return {
        hits: resolved,
        relevance: relevanceEvidence(
          query,
          resolved,
          namespace,
          embedded === undefined || model === undefined ? undefined : { ...embedded, model },
        ),
        ...(notices.length === 0 ? {} : { notice: notices.join('; ') }),
      };
    };
    const lexical = async (notice?: string): Promise<SearchOutcome> => ({
      ...base,
      mode: 'lexical',
      // Without a reranker to feed, only as deep as the diversified result needs.
      ...(await ranked(
        this.reranking === undefined
          ? searchDiverseEnough((depth) => namespace.searchLexical(query, depth), limit, documentOf)
          : namespace.searchLexical(query, candidateDepth),
        undefined,
        notice,
      )),
    });
    if (options.mode === 'lexical') return lexical();

    const unavailable = await this.embeddingUnavailable(namespace);
    if (unavailable !== undefined) {
      if (options.mode === 'embedding' && this.embeddings === undefined) throw new KnowledgeError('embeddings_unavailable', unavailable);
      return lexical(`${unavailable}; these results are ranked lexically`);
    }
    const [vector] = await (this.queryEmbeddings as EmbeddingModel).embed([query], options.signal);
    const queryVector = vector as Float32Array;
    if (options.mode === 'embedding') {
      const nearest = namespace.searchVectors(queryVector, Math.max(candidateDepth, backgroundDepth));
      return { ...base, mode: 'embedding', ...(await ranked(nearest.slice(0, candidateDepth), { vector: queryVector, nearest })) };
    }
    const depth = Math.max(candidateDepth, fusionDepth);
    const nearest = namespace.searchVectors(queryVector, depth);
    const fused = hybridRanking({
      lexical: namespace.searchLexical(query, depth),
      query: queryVector,
      embedding: nearest,
      vectorOf: (key) => namespace.vectorOf(key),
      relativeSize: this.relativeDocumentSize(namespace),
    });
    return { ...base, mode: 'hybrid', ...(await ranked(fused, { vector: queryVector, nearest })) };
  }

  /** The hits reordered by the rerank model, if one is configured; its failure keeps their order, with a notice. */
  private rerank(
    namespace: Namespace,
    query: string,
    hits: readonly ScoredHit[],
    limit: number,
    signal: AbortSignal | undefined,
  ): Promise<{ hits: readonly ScoredHit[]; notice?: string }> {
    if (this.reranking === undefined) return Promise.resolve({ hits });
    const textOf = (key: string) => {
      const chunk = namespace.chunk(key);
      const document = chunk === undefined ? undefined : namespace.document(chunk.file);
      return chunk === undefined || document === undefined ? undefined : rerankText(document.title, chunk.headingPath, chunk.text);
    };
    return rerankHits(this.reranking, { query, hits, limit, textOf, signal });
  }

  /** A chunk's document size in chunks over the namespace's median document size (for the hybrid's size discount). */
  private relativeDocumentSize(namespace: Namespace): (key: string) => number {
    const median = this.medianDocumentChunks(namespace);
    return (key) => {
      const file = namespace.chunk(key)?.file;
      const chunks = file === undefined ? undefined : namespace.document(file)?.chunks.length;
      return chunks === undefined ? 1 : chunks / median;
    };
  }

  /** Recomputed only when the namespace's document or chunk count changed (checked without listing the documents). */
  private medianDocumentChunks(namespace: Namespace): number {
    const version = `${namespace.documentCount}:${namespace.chunkCount}`;
    const cached = this.medians.get(namespace);
    if (cached?.version === version) return cached.median;
    const median = medianChunkCount(namespace.documents.map((document) => document.chunks.length));
    this.medians.set(namespace, { version, median });
    return median;
  }

  /** The hits' chunks and documents, their texts read (see withTextsAround). */
  private resolve(namespace: Namespace, hits: readonly ScoredHit[]): RetrievedChunk[] {
    return hits.flatMap(({ key, score }) => {
      const file = namespace.chunk(key)?.file;
      const found = file === undefined ? undefined : namespace.document(file);
      const held = found === undefined ? undefined : withTextsAround(found, key);
      if (held === undefined) return [];
      const { chunk, document } = held;
      const confirmed = this.confirmedAt(namespace.name, document.origin);
      return [
        { chunk, document, score, asOf: confirmed !== undefined && confirmed > document.ingestedAt ? confirmed : document.ingestedAt },
      ];
    });
  }

  /**
   * Why embedding ranking cannot be used right now, or undefined when it can. Chunks without vectors (placed by
   * hand, stored without a provider, or embedded by another model) are embedded by the ChunkEmbedder: the search
   * waits for it when there are few, and searches lexically meanwhile when there are many.
   */
  private async embeddingUnavailable(namespace: Namespace): Promise<string | undefined> {
    if (this.embeddings === undefined) return 'no embedding model is configured (set LLM_API_KEY or KNOWLEDGE_AGENT_EMBEDDING_MODEL=local)';
    const pending = namespace.pendingChunkCount;
    if (pending === 0) return undefined;
    const waiting = (reason: string) =>
      `${pending} chunks of namespace "${namespace.name}" are not embedded yet (${reason}); a later search embeds them`;
    if (pending <= maxPendingEmbeddedInline) {
      try {
        await this.embeddings.embedPending(namespace);
        return undefined;
      } catch (error) {
        // Documents stored while the provider failed stay searchable: lexically, saying why, until they are embedded.
        if (!isKnowledgeError(error)) throw error;
        return waiting(error.message);
      }
    }
    this.embeddings.embedPendingInBackground(namespace);
    const failure = this.embeddings.pendingFailure(namespace.name);
    return failure === undefined
      ? `${pending} chunks of namespace "${namespace.name}" are being embedded with ${this.embeddings.model.id}`
      : waiting(failure);
  }
}
