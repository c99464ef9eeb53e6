// Fusing ranked lists (lexical and embedding) into one ranking: pure functions over keys, scores and vectors.
import { dotAt } from './cosine.js';

export interface RankedHit {
  readonly key: string;
  readonly score: number;
}

const byScoreThenKey = (left: RankedHit, right: RankedHit): number => right.score - left.score || (left.key < right.key ? -1 : left.key > right.key ? 1 : 0);

/**
 * Reciprocal rank fusion: each list gives a key weight / (k + rank), ranks from 1. Robust to the lists'
 * incomparable score scales; k dampens the head (60 in the original paper).
 */
export function reciprocalRankFusion(lists: readonly { readonly hits: readonly RankedHit[]; readonly weight: number }[], k = 60): RankedHit[] {
  const fused = new Map<string, number>();
  for (const { hits, weight } of lists) {
    hits.forEach((hit, index) => fused.set(hit.key, (fused.get(hit.key) ?? 0) + weight / (k + index + 1)));
  }
  return [...fused].map(([key, score]) => ({ key, score })).sort(byScoreThenKey);
}

/**
 * Each score over the best score of its list: 1 for the best hit, and the natural zero of BM25 and cosine kept, so a
 * list whose head barely stands out (a flat list) moves the fusion less than one with a clear winner. A negative
 * score counts as zero, like a key the list does not hold; a list with no positive score counts for nothing.
 */
export function scaleToBest(hits: readonly RankedHit[]): Map<string, number> {
  let best = 0;
  for (const hit of hits) best = Math.max(best, hit.score);
  return new Map(hits.map((hit) => [hit.key, best > 0 ? Math.max(0, hit.score) / best : 0]));
}

/** denseWeight * embedding + (1 - denseWeight) * lexical over scores scaled to each list's best (0 where absent). */
export function relativeScoreFusion(lexical: readonly RankedHit[], embedding: readonly RankedHit[], denseWeight: number): RankedHit[] {
  if (!(denseWeight >= 0 && denseWeight <= 1)) throw new RangeError(`denseWeight must be from 0 to 1, got ${denseWeight}`);
  const fused = new Map<string, number>();
  for (const [key, score] of scaleToBest(lexical)) fused.set(key, (1 - denseWeight) * score);
  for (const [key, score] of scaleToBest(embedding)) fused.set(key, (fused.get(key) ?? 0) + denseWeight * score);
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
  /** Weight of the embedding list in the fusion, 0 to 1. */
  readonly denseWeight: number;
  /** Best fused hits whose vectors refine the query vector; 0 fuses once, without feedback. */
  readonly feedbackHits: number;
  /** Weight of the feedback vectors' mean against the query vector. */
  readonly feedbackWeight: number;
}

/** Measured with bench/quality.ts --fusion on msmarco-trecdl-5k and vaswani-npl, one setting for both. */
export const hybridSettings: HybridSettings = Object.freeze({ denseWeight: 0.6, feedbackHits: 2, feedbackWeight: 1 });

/** Candidates each list contributes: scaling to the best hit makes the fusion independent of it beyond the top. */
export const hybridCandidateDepth = 100;

export interface HybridInput {
  /** Lexical hits with their BM25 scores, best first. */
  readonly lexical: readonly RankedHit[];
  /** The query's unit embedding. */
  readonly query: Float32Array;
  /** Cosine hits of the query vector, best first (the caller bounds how many). */
  readonly embedding: readonly RankedHit[];
  /** The stored unit vector of a hit's key, if it has one. */
  readonly vectorOf: (key: string) => Float32Array | undefined;
}

/**
 * Hybrid ranking: relative score fusion of the lexical and embedding lists; then, with feedback, the query vector is
 * moved towards the vectors of the best fused hits (where both rankers agree, mostly), the candidates of both lists
 * are ranked again by cosine with it, and that list is fused with the same lexical list. The feedback lets lexical
 * evidence steer the embedding ranking; re-ranking the candidates instead of searching every vector again keeps a
 * hybrid query at the cost of one vector search (measured: the same quality on both IR sets, see README).
 */
export function hybridRanking(input: HybridInput, settings: HybridSettings = hybridSettings): RankedHit[] {
  const first = relativeScoreFusion(input.lexical, input.embedding, settings.denseWeight);
  if (settings.feedbackHits <= 0 || settings.feedbackWeight <= 0) return first;
  const feedback = first.slice(0, settings.feedbackHits).flatMap((hit) => {
    const vector = input.vectorOf(hit.key);
    return vector === undefined ? [] : [vector];
  });
  if (feedback.length === 0) return first;
  const refined = feedbackQuery(input.query, feedback, settings.feedbackWeight);
  return relativeScoreFusion(input.lexical, cosineRanking(refined, first, input.vectorOf), settings.denseWeight);
}

/** The candidates that have a vector, ranked by cosine with the unit vector `query` (stored vectors are unit too). */
function cosineRanking(query: Float32Array, candidates: readonly RankedHit[], vectorOf: (key: string) => Float32Array | undefined): RankedHit[] {
  return candidates
    .flatMap(({ key }) => {
      const vector = vectorOf(key);
      return vector === undefined || vector.length !== query.length ? [] : [{ key, score: dotAt(vector, 0, query) }];
    })
    .sort(byScoreThenKey);
}
