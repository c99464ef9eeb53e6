// A BEIR set indexed through the service's code, with every query's lexical and embedding chunk lists kept
// deep enough that any mode or fusion can be scored from them without searching again.
import type { EmbeddingModel } from '../src/providers/embedding-model.js';
import { diversificationDepth, diversifyByDocument } from '../src/search/diversify.js';
import type { ScoredHit } from '../src/indexes/scored-hit.js';
import { hybridRanking, type HybridSettings } from '../src/search/fusion.js';
import type { BeirSet } from './beir-set.js';
import { documentRanking, indexCorpus, runQueries, type ChunkedCorpus, type QueryLists } from './chunked-corpus.js';
import type { FirstTen, QueryRanking } from './ranking-scores.js';

export const searchModes = ['lexical', 'embedding', 'hybrid'] as const;
export type SearchMode = (typeof searchModes)[number];

/** A hybrid ranking as the service's hybrid branch runs it: every list it reads is cut to `depth` candidates. */
export interface HybridFusion {
  readonly name: string;
  readonly depth: number;
  readonly rank: (lists: QueryLists, corpus: ChunkedCorpus, depth: number) => ScoredHit[];
}

/** A hybrid ranking that only fuses the two lists of the query. */
export function listFusion(
  name: string,
  depth: number,
  fuse: (lexical: readonly ScoredHit[], embedding: readonly ScoredHit[]) => ScoredHit[],
): HybridFusion {
  return { name, depth, rank: (lists, _corpus, cut) => fuse(lists.lexical.slice(0, cut), lists.embedding.slice(0, cut)) };
}

export interface PreparedSet {
  readonly set: BeirSet;
  readonly corpus: ChunkedCorpus;
  /** Per query, in the set's query order. */
  readonly lists: readonly QueryLists[];
  readonly listDepth: number;
  readonly timings: {
    readonly indexMilliseconds: number;
    readonly embedMilliseconds: number;
    readonly embeddingsCached: boolean;
    readonly queryEmbedMilliseconds: number;
    readonly searchMilliseconds: number;
  };
}

export async function prepareSet(
  set: BeirSet,
  model: EmbeddingModel,
  listDepth: number,
  report: (message: string) => void,
): Promise<PreparedSet> {
  const corpus = await indexCorpus(set.documents, model, set.name, {}, { report }, set.unitOf);
  const queries = await runQueries(
    corpus,
    set.queries.map((query) => query.text),
    model,
    `${set.name}-queries`,
    listDepth,
  );
  return {
    set,
    corpus,
    lists: queries.lists,
    listDepth,
    timings: { ...corpus.timings, queryEmbedMilliseconds: queries.embedMilliseconds, searchMilliseconds: queries.searchMilliseconds },
  };
}

/** The chunks a search with `limit` returns in `mode`, computed the way SearchService.search does (diversified by document). */
export function modeHits(
  lists: QueryLists,
  corpus: ChunkedCorpus,
  mode: SearchMode,
  limit: number,
  fusion: HybridFusion,
): readonly ScoredHit[] {
  const depth = diversificationDepth(limit);
  const ranked =
    mode === 'lexical'
      ? lists.lexical.slice(0, depth)
      : mode === 'embedding'
        ? lists.embedding.slice(0, depth)
        : fusion.rank(lists, corpus, Math.max(depth, fusion.depth));
  return diversifyByDocument(ranked, corpus.documentOf).slice(0, limit);
}

function checkDepth(prepared: PreparedSet, fusion: HybridFusion): void {
  const needed = Math.max(400, fusion.depth);
  if (prepared.listDepth < needed)
    throw new RangeError(`lists of ${prepared.listDepth} chunks cannot emulate a fusion depth of ${fusion.depth}`);
}

/** Each query's documents for a search of limit 10 and one of limit 100 (a document ranks by its best chunk). */
export function modeRankings(prepared: PreparedSet, mode: SearchMode, fusion: HybridFusion): QueryRanking[] {
  checkDepth(prepared, fusion);
  return prepared.set.queries.map((query, index) => {
    const lists = prepared.lists[index] as QueryLists;
    return {
      queryId: query.id,
      top10: documentRanking(modeHits(lists, prepared.corpus, mode, 10, fusion), prepared.corpus, 10),
      top100: documentRanking(modeHits(lists, prepared.corpus, mode, 100, fusion), prepared.corpus, 100),
    };
  });
}

/** Each query's first 10 documents for a search of limit 10 only: all nDCG@10 reads, at a fraction of the work. */
export function firstTenRankings(prepared: PreparedSet, mode: SearchMode, fusion: HybridFusion): FirstTen[] {
  checkDepth(prepared, fusion);
  return prepared.set.queries.map((query, index) => ({
    queryId: query.id,
    top10: documentRanking(modeHits(prepared.lists[index] as QueryLists, prepared.corpus, mode, 10, fusion), prepared.corpus, 10),
  }));
}

/** The service's hybrid ranking (src/search/fusion.ts), its vector searches run against the set's VectorIndex. */
export function feedbackFusion(name: string, depth: number, settings: HybridSettings): HybridFusion {
  return {
    name,
    depth,
    rank: (lists, corpus, cut) =>
      hybridRanking(
        {
          lexical: lists.lexical.slice(0, cut),
          query: lists.vector,
          embedding: lists.embedding.slice(0, cut),
          vectorOf: corpus.vectorOf,
          relativeSize: corpus.relativeSize,
        },
        settings,
      ),
  };
}
