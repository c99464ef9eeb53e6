// Indexes a corpus the way the service does (chunkMarkdown, LexicalIndex fields, embeddingText vectors in a
// VectorIndex) and runs queries against it, keeping the raw scores of both lists for fusing.
import { chunkMarkdown, type ChunkOptions } from '../src/ingest/chunk-markdown.js';
import { embeddingText } from '../src/embedding/embedding-text.js';
import type { EmbeddingModel } from '../src/providers/embedding-model.js';
import type { ScoredHit } from '../src/indexes/scored-hit.js';
import { medianChunkCount } from '../src/search/fusion.js';
import { LexicalIndex } from '../src/indexes/lexical-index.js';
import { VectorIndex } from '../src/indexes/vector-index.js';
import { embedWithCache, type EmbedOptions } from './embedding-cache.js';

export interface CorpusDocument {
  readonly id: string;
  readonly title: string;
  /** Markdown body, front matter already removed. */
  readonly text: string;
}

export interface CorpusChunk {
  readonly key: string;
  readonly documentId: string;
  readonly text: string;
  readonly headingPath: readonly string[];
  /** What the chunk is judged and ranked as: its document, or a section of it (bench/site-set.ts). */
  readonly unit: string;
}

export interface ChunkedCorpus {
  readonly chunks: readonly CorpusChunk[];
  readonly chunkByKey: ReadonlyMap<string, CorpusChunk>;
  readonly lexical: LexicalIndex;
  readonly vectors: VectorIndex;
  /** The stored (unit) vector of a chunk. */
  readonly vectorOf: (key: string) => Float32Array | undefined;
  /** The id of a chunk's document. */
  readonly documentOf: (key: string) => string | undefined;
  /** A chunk's document size in chunks over the median document's, as SearchService computes it. */
  readonly relativeSize: (key: string) => number;
  readonly timings: { readonly indexMilliseconds: number; readonly embedMilliseconds: number; readonly embeddingsCached: boolean };
}

export interface QueryLists {
  readonly lexical: readonly ScoredHit[];
  readonly embedding: readonly ScoredHit[];
  /** The query's vector, for rankings that search again. */
  readonly vector: Float32Array;
}

/** Chunks every document with the service's chunker and indexes the chunks lexically and by vector. */
export async function indexCorpus(
  documents: readonly CorpusDocument[],
  model: EmbeddingModel,
  cacheLabel: string,
  chunkOptions: Partial<ChunkOptions> = {},
  embedOptions: EmbedOptions = {},
  unitOf: (documentId: string, headingPath: readonly string[]) => string = (documentId) => documentId,
): Promise<ChunkedCorpus> {
  const started = performance.now();
  const chunks: CorpusChunk[] = [];
  const titleOf = new Map<string, string>();
  const lexical = new LexicalIndex();
  for (const document of documents) {
    titleOf.set(document.id, document.title);
    chunkMarkdown(document.text, chunkOptions).forEach((chunk, ordinal) => {
      const key = `${document.id}:${ordinal}`;
      chunks.push({
        key,
        documentId: document.id,
        text: chunk.text,
        headingPath: chunk.headingPath,
        unit: unitOf(document.id, chunk.headingPath),
      });
      // The same fields as Namespace.indexChunk.
      lexical.add(key, { title: document.title, headings: chunk.headingPath.join(' '), body: chunk.text });
    });
  }
  const indexMilliseconds = performance.now() - started;
  const texts = chunks.map((chunk) => embeddingText(titleOf.get(chunk.documentId) ?? '', chunk.headingPath, chunk.text));
  const embedded = await embedWithCache(model, cacheLabel, texts, embedOptions);
  const vectors = new VectorIndex(embedded.vectors[0]?.length ?? 1, chunks.length);
  const vectorByKey = new Map<string, Float32Array>();
  chunks.forEach((chunk, index) => {
    const vector = embedded.vectors[index] as Float32Array;
    vectors.add(chunk.key, vector);
    vectorByKey.set(chunk.key, vector);
  });
  const chunkByKey = new Map(chunks.map((chunk) => [chunk.key, chunk]));
  const chunksOf = new Map<string, number>();
  for (const chunk of chunks) chunksOf.set(chunk.documentId, (chunksOf.get(chunk.documentId) ?? 0) + 1);
  const median = medianChunkCount([...chunksOf.values()]);
  const documentOf = (key: string): string | undefined => chunkByKey.get(key)?.documentId;
  return {
    chunks,
    chunkByKey,
    documentOf,
    relativeSize: (key) => (chunksOf.get(documentOf(key) ?? '') ?? median) / median,
    lexical,
    vectors,
    vectorOf: (key) => vectorByKey.get(key),
    timings: { indexMilliseconds, embedMilliseconds: embedded.milliseconds, embeddingsCached: embedded.cached },
  };
}

/** Both ranked chunk lists of each query, `depth` deep, with their raw scores (BM25 and cosine). */
export async function runQueries(
  corpus: ChunkedCorpus,
  queries: readonly string[],
  model: EmbeddingModel,
  cacheLabel: string,
  depth: number,
): Promise<{ lists: QueryLists[]; embedMilliseconds: number; searchMilliseconds: number }> {
  const embedded = await embedWithCache(model, cacheLabel, queries);
  const started = performance.now();
  const lists = queries.map((query, index) => {
    const vector = embedded.vectors[index] as Float32Array;
    return { lexical: corpus.lexical.search(query, depth), embedding: corpus.vectors.search(vector, depth), vector };
  });
  return { lists, embedMilliseconds: embedded.milliseconds, searchMilliseconds: performance.now() - started };
}

/** Chunk hits to the units judged (document ids, or sections), each at the rank of its best chunk. */
export function documentRanking(hits: readonly ScoredHit[], corpus: ChunkedCorpus, count: number): string[] {
  const ranking: string[] = [];
  const seen = new Set<string>();
  for (const hit of hits) {
    const unit = corpus.chunkByKey.get(hit.key)?.unit;
    if (unit === undefined || seen.has(unit)) continue;
    seen.add(unit);
    ranking.push(unit);
    if (ranking.length === count) break;
  }
  return ranking;
}
