// Fusing ranked lists (lexical and embedding) into one ranking: pure functions over keys, scores and vectors.
import { dotAt } from '../indexes/cosine.js';
import type { ScoredHit } from '../indexes/scored-hit.js';

/** Best score first; ties by key, so every ranking is deterministic. */
export const byScoreThenKey = (left: ScoredHit, right: ScoredHit): number =>
  right.score - left.score || (left.key < right.key ? -1 : left.key > right.key ? 1 : 0);

/**
 * Reciprocal rank fusion: each list gives a key weight / (k + rank), ranks from 1. Robust to the lists'
 * incomparable score scales; k dampens the head (60 in the original paper).
 */
export function reciprocalRankFusion(
  lists: readonly { readonly hits: readonly ScoredHit[]; readonly weight: number }[],
  k = 60,
): ScoredHit[] {
  const fused = new Map<string, number>();
  for (const { hits, weight } of lists) {
    hits.forEach((hit, index) => fused.set(hit.key, (fused.get(hit.key) ?? 0) + weight / (k + index + 1)));
  }
  return [...fused].map(([key, score]) => ({ key, score })).sort(byScoreThenKey);
}

/**
 * Rocchio feedback: the unit query vector plus `weight` times the mean of the unit feedback vectors, scaled to unit
 * length. Vectors of another length than the query's are ignored.
 */
export function feedbackQuery(query: ArrayLike<number>, feedback: readonly ArrayLike<number>[], weight: number): Float32Array {
  const dimensions = query.length;
  const usable = feedback.filter((vector) => vector.length === dimensions);
  const result = new Float64Array(dimensions);
  const add = (vector: ArrayLike<number>, scale: number): void => {
    let squares = 0;
    for (let index = 0; index < dimensions; index++) squares += (vector[index] as number) ** 2;
    if (squares === 0) return;
    const factor = scale / Math.sqrt(squares);
    for (let index = 0; index < dimensions; index++) result[index] = (result[index] as number) + (vector[index] as number) * factor;
  };
  add(query, 1);
  for (const vector of usable) add(vector, weight / usable.length);
  let squares = 0;
  for (const value of result) squares += value * value;
  const norm = Math.sqrt(squares);
  return Float32Array.from(result, (value) => (norm > 0 ? value / norm : 0));
}

export interface HybridSettings {
  /** k of reciprocal rank fusion: larger flattens the head of each list. */
  readonly rankConstant: number;
  /** Weight of the embedding list in the fusion; the lexical list weighs 1. */
  readonly denseWeight: number;
  /** Best fused hits whose vectors refine the query vector; 0 fuses once, without feedback. */
  readonly feedbackHits: number;
  /** Weight of the feedback vectors' mean against the query vector. */
  readonly feedbackWeight: number;
  /**
   * Exponent of the size discount: a chunk's scores are divided by (its document's chunks / the median document's
   * chunks)^sizeDiscount before ranking, when that ratio is above 1, so a very long page does not win on the number
   * of chances it gets. 0 turns it off.
   */
  readonly sizeDiscount: number;
}

/**
 * Chosen by leave-one-set-out cross-validation over the five development sites (FastAPI, Pydantic, uv, Vue, the Bash
 * manual) and msmarco-trecdl-5k, vaswani-npl and dbpedia-entity-5k (bench/quality.ts --cv; README "Retrieval
 * quality"): of 300 settings, the one whose worst set gains most over that set's better single mode (+0.012 nDCG@10,
 * on dbpedia-entity). Fit on any seven sets, the rule keeps the eighth within 0.01 of its better mode. The size
 * discount (0.05 before) only tied on nDCG@10 and is off; 0.1 costs up to 0.03 on the Markdown sites.
 */
export const hybridSettings: HybridSettings = Object.freeze({
  rankConstant: 60,
  denseWeight: 3,
  feedbackHits: 3,
  feedbackWeight: 0.5,
  sizeDiscount: 0,
});

/** Candidates each list contributes: ranks beyond it add almost nothing to a reciprocal rank fusion. */
export const hybridCandidateDepth = 100;

export interface HybridInput {
  /** Lexical hits with their BM25 scores, best first. */
  readonly lexical: readonly ScoredHit[];
  /** The query's unit embedding. */
  readonly query: Float32Array;
  /** Cosine hits of the query vector, best first (the caller bounds how many). */
  readonly embedding: readonly ScoredHit[];
  /** The stored unit vector of a hit's key, if it has one. */
  readonly vectorOf: (key: string) => Float32Array | undefined;
  /** Chunks of the hit's document over those of the namespace's median document; 1 when unknown. */
  readonly relativeSize?: (key: string) => number;
}

/** The median of documents' chunk counts (at least 1): the size a document's own is compared with for the discount. */
export function medianChunkCount(chunkCounts: readonly number[]): number {
  const sorted = [...chunkCounts].sort((left, right) => left - right);
  return Math.max(1, sorted[Math.floor(sorted.length / 2)] ?? 1);
}

/** The hits with each score divided by relativeSize^exponent (sizes of 1 or less are left alone), best first again. */
export function discountBySize(
  hits: readonly ScoredHit[],
  relativeSize: ((key: string) => number) | undefined,
  exponent: number,
): ScoredHit[] {
  if (relativeSize === undefined || exponent === 0) return [...hits];
  return hits.map(({ key, score }) => ({ key, score: score / Math.max(1, relativeSize(key)) ** exponent })).sort(byScoreThenKey);
}

/**
 * Hybrid ranking: weighted reciprocal rank fusion of the lexical and embedding lists (ranks, not scores, so neither
 * list's scale decides); then, with feedback, the query vector is moved towards the vectors of the best fused hits,
 * the fused candidates are ranked again by cosine with it, and that list is fused with the same lexical list. The
 * feedback lets lexical evidence steer the embedding ranking at the cost of a few hundred dot products. Scores are
 * scaled so that a hit ranked first by both lists scores 1.
 */
export function hybridRanking(input: HybridInput, settings: HybridSettings = hybridSettings): ScoredHit[] {
  const lexical = discountBySize(input.lexical, input.relativeSize, settings.sizeDiscount);
  const fuse = (embedding: readonly ScoredHit[]): ScoredHit[] => {
    const fused = reciprocalRankFusion(
      [
        { hits: lexical, weight: 1 },
        { hits: discountBySize(embedding, input.relativeSize, settings.sizeDiscount), weight: settings.denseWeight },
      ],
      settings.rankConstant,
    );
    const best = (1 + settings.denseWeight) / (settings.rankConstant + 1);
    return fused.map(({ key, score }) => ({ key, score: score / best }));
  };
  const first = fuse(input.embedding);
  if (settings.feedbackHits <= 0 || settings.feedbackWeight <= 0) return first;
  const feedback = first.slice(0, settings.feedbackHits).flatMap((hit) => {
    const vector = input.vectorOf(hit.key);
    return vector === undefined ? [] : [vector];
  });
  if (feedback.length === 0) return first;
  const refined = feedbackQuery(input.query, feedback, settings.feedbackWeight);
  return fuse(cosineRanking(refined, first, input.vectorOf));
}

/** The candidates that have a vector, ranked by cosine with the unit vector `query` (stored vectors are unit too). */
function cosineRanking(
  query: Float32Array,
  candidates: readonly ScoredHit[],
  vectorOf: (key: string) => Float32Array | undefined,
): ScoredHit[] {
  return candidates
    .flatMap(({ key }) => {
      const vector = vectorOf(key);
      return vector === undefined || vector.length !== query.length ? [] : [{ key, score: dotAt(vector, 0, query) }];
    })
    .sort(byScoreThenKey);
}
