// Hybrid rankings that were measured against each other (bench/quality.ts --fusion). Only the one chosen lives in
// src/search/fusion.ts; the others stay here, as plain functions, so the choice can be re-measured.
import { byScoreThenKey, hybridCandidateDepth, hybridSettings, reciprocalRankFusion, type HybridSettings } from '../src/search/fusion.js';
import type { ScoredHit } from '../src/indexes/scored-hit.js';
import { feedbackFusion, listFusion, type HybridFusion } from './prepared-set.js';

/**
 * Each score over the best score of its list: 1 for the best hit, and the natural zero of BM25 and cosine kept, so a
 * list whose head barely stands out (a flat list) moves the fusion less than one with a clear winner. A negative
 * score counts as zero, like a key the list does not hold; a list with no positive score counts for nothing.
 */
export function scaleToBest(hits: readonly ScoredHit[]): Map<string, number> {
  let best = 0;
  for (const hit of hits) best = Math.max(best, hit.score);
  return new Map(hits.map((hit) => [hit.key, best > 0 ? Math.max(0, hit.score) / best : 0]));
}

/** denseWeight * embedding + (1 - denseWeight) * lexical over scores scaled to each list's best (0 where absent). */
export function relativeScoreFusion(lexical: readonly ScoredHit[], embedding: readonly ScoredHit[], denseWeight: number): ScoredHit[] {
  if (!(denseWeight >= 0 && denseWeight <= 1)) throw new RangeError(`denseWeight must be from 0 to 1, got ${denseWeight}`);
  const fused = new Map<string, number>();
  for (const [key, score] of scaleToBest(lexical)) fused.set(key, (1 - denseWeight) * score);
  for (const [key, score] of scaleToBest(embedding)) fused.set(key, (fused.get(key) ?? 0) + denseWeight * score);
  return [...fused].map(([key, score]) => ({ key, score })).sort(byScoreThenKey);
}

type Normalizer = (hits: readonly ScoredHit[]) => { readonly normalized: Map<string, number>; readonly missing: number };

function moments(hits: readonly ScoredHit[]): { mean: number; deviation: number } {
  if (hits.length === 0) return { mean: 0, deviation: 0 };
  const mean = hits.reduce((sum, hit) => sum + hit.score, 0) / hits.length;
  const variance = hits.reduce((sum, hit) => sum + (hit.score - mean) ** 2, 0) / hits.length;
  return { mean, deviation: Math.sqrt(variance) };
}

const normalizers = {
  /** (score - min) / (max - min) over the list; a key absent from the list counts as 0. */
  'min-max': (hits) => {
    const scores = hits.map((hit) => hit.score);
    const high = Math.max(...scores);
    const low = Math.min(...scores);
    return { normalized: new Map(hits.map((hit) => [hit.key, high > low ? (hit.score - low) / (high - low) : 1])), missing: 0 };
  },
  /** (score - mean) / standard deviation; a key absent from the list gets the list's lowest value. */
  'z-score': (hits) => {
    const { mean, deviation } = moments(hits);
    const normalized = new Map(hits.map((hit) => [hit.key, deviation > 0 ? (hit.score - mean) / deviation : 0]));
    return { normalized, missing: Math.min(0, ...normalized.values()) };
  },
  /** Distribution-based: mean ± 3 standard deviations mapped to 0..1; an absent key counts as 0. */
  distribution: (hits) => {
    const { mean, deviation } = moments(hits);
    const low = mean - 3 * deviation;
    return { normalized: new Map(hits.map((hit) => [hit.key, deviation > 0 ? (hit.score - low) / (6 * deviation) : 1])), missing: 0 };
  },
  /** Score over the list's best score (scaleToBest); an absent key counts as 0. */
  relative: (hits) => ({ normalized: scaleToBest(hits), missing: 0 }),
} satisfies Record<string, Normalizer>;

export type NormalizerName = keyof typeof normalizers;

function sorted(scores: Map<string, number>): ScoredHit[] {
  return [...scores].map(([key, score]) => ({ key, score })).sort(byScoreThenKey);
}

function convex(
  normalize: Normalizer,
  lexicalHits: readonly ScoredHit[],
  embeddingHits: readonly ScoredHit[],
  denseWeight: number,
): ScoredHit[] {
  if (lexicalHits.length === 0 || embeddingHits.length === 0) return [...(lexicalHits.length === 0 ? embeddingHits : lexicalHits)];
  const lexical = normalize(lexicalHits);
  const embedding = normalize(embeddingHits);
  const fused = new Map<string, number>();
  for (const key of new Set([...lexical.normalized.keys(), ...embedding.normalized.keys()])) {
    const dense = embedding.normalized.get(key) ?? embedding.missing;
    fused.set(key, denseWeight * dense + (1 - denseWeight) * (lexical.normalized.get(key) ?? lexical.missing));
  }
  return sorted(fused);
}

/** The best hit's z-score within its list: how far it stands out. */
function headZ(hits: readonly ScoredHit[]): number {
  const { mean, deviation } = moments(hits);
  return deviation > 0 ? ((hits[0]?.score ?? mean) - mean) / deviation : 0;
}

/** (s1 - s10) / (s1 - s_last): how steeply the head falls, 0 (flat) to 1. */
function headGap(hits: readonly ScoredHit[]): number {
  const first = hits[0]?.score ?? 0;
  const last = hits[hits.length - 1]?.score ?? 0;
  const tenth = hits[Math.min(10, hits.length) - 1]?.score ?? last;
  return first > last ? (first - tenth) / (first - last) : 0;
}

/** Share of the lexical top 10 that is also in the embedding top 10. */
function agreement(lexical: readonly ScoredHit[], embedding: readonly ScoredHit[]): number {
  const top = new Set(embedding.slice(0, 10).map((hit) => hit.key));
  return lexical.slice(0, 10).filter((hit) => top.has(hit.key)).length / 10;
}

const confidences = { 'head z-score': headZ, 'head gap': headGap } as const;

export function rrf(k: number, depth: number, denseWeight = 1): HybridFusion {
  const weight = denseWeight === 1 ? '' : `, dense weight ${denseWeight}`;
  return listFusion(`RRF k=${k}${weight}, depth ${depth}`, depth, (lexical, embedding) =>
    reciprocalRankFusion(
      [
        { hits: lexical, weight: 1 },
        { hits: embedding, weight: denseWeight },
      ],
      k,
    ),
  );
}

export function scoreFusion(normalizer: NormalizerName, denseWeight: number, depth: number): HybridFusion {
  return listFusion(`${normalizer} score fusion, dense ${denseWeight}, depth ${depth}`, depth, (lexical, embedding) =>
    convex(normalizers[normalizer], lexical, embedding, denseWeight),
  );
}

/** Per query, each list weighted by its confidence times a prior (the dense share of the prior given). */
export function confidenceFusion(
  normalizer: NormalizerName,
  confidence: keyof typeof confidences,
  prior: number,
  depth: number,
): HybridFusion {
  const measure = confidences[confidence];
  return listFusion(
    `${normalizer} score fusion weighted by ${confidence}, prior dense ${prior}, depth ${depth}`,
    depth,
    (lexical, embedding) => {
      const lexicalConfidence = (1 - prior) * measure(lexical);
      const embeddingConfidence = prior * measure(embedding);
      const total = lexicalConfidence + embeddingConfidence;
      return convex(normalizers[normalizer], lexical, embedding, total > 0 ? embeddingConfidence / total : prior);
    },
  );
}

export function confidenceRrf(k: number, confidence: keyof typeof confidences, prior: number, depth: number): HybridFusion {
  const measure = confidences[confidence];
  return listFusion(`RRF k=${k} weighted by ${confidence}, prior dense ${prior}, depth ${depth}`, depth, (lexical, embedding) => {
    const lexicalWeight = (1 - prior) * measure(lexical);
    const embeddingWeight = prior * measure(embedding);
    const total = lexicalWeight + embeddingWeight;
    const [lexicalShare, embeddingShare] = total > 0 ? [lexicalWeight / total, embeddingWeight / total] : [1 - prior, prior];
    return reciprocalRankFusion(
      [
        { hits: lexical, weight: lexicalShare },
        { hits: embedding, weight: embeddingShare },
      ],
      k,
    );
  });
}

/** Dense weight from `low` (top 10s disjoint) to `high` (identical). */
export function agreementFusion(normalizer: NormalizerName, low: number, high: number, depth: number): HybridFusion {
  return listFusion(`${normalizer} score fusion, dense ${low}..${high} by top-10 agreement, depth ${depth}`, depth, (lexical, embedding) =>
    convex(normalizers[normalizer], lexical, embedding, low + (high - low) * agreement(lexical, embedding)),
  );
}

/** relativeScoreFusion alone (the earlier hybrid without its feedback round). */
export function relativeFusion(denseWeight: number, depth: number): HybridFusion {
  return listFusion(`relative score fusion, dense ${denseWeight}, depth ${depth}`, depth, (lexical, embedding) =>
    relativeScoreFusion(lexical, embedding, denseWeight),
  );
}

/** src/search/fusion.ts hybridRanking with the given settings. */
export function serviceFusion(settings: HybridSettings, depth: number): HybridFusion {
  const { rankConstant, denseWeight, feedbackHits, feedbackWeight, sizeDiscount } = settings;
  return feedbackFusion(
    `RRF k=${rankConstant}, dense weight ${denseWeight}, + feedback from top ${feedbackHits} (weight ${feedbackWeight}), size discount ${sizeDiscount}, depth ${depth}`,
    depth,
    settings,
  );
}

/** The hybrid ranking the service uses: src/search/fusion.ts's settings and candidate depth. */
export function serviceHybrid(): HybridFusion {
  return serviceFusion(hybridSettings, hybridCandidateDepth);
}

/** The alternatives --fusion prints: the best settings found per family in a wider sweep, and the chosen one's neighbours. */
export function fusionAlternatives(): HybridFusion[] {
  const near = (changes: Partial<HybridSettings>): HybridFusion => serviceFusion({ ...hybridSettings, ...changes }, hybridCandidateDepth);
  return [
    rrf(60, 100),
    rrf(20, 100, 2),
    rrf(30, 100, 2.5),
    scoreFusion('min-max', 0.7, 100),
    scoreFusion('z-score', 0.7, 200),
    scoreFusion('distribution', 0.6, 1000),
    confidenceFusion('relative', 'head z-score', 0.7, 1000),
    confidenceRrf(30, 'head z-score', 0.6, 1000),
    agreementFusion('min-max', 0.7, 0.4, 100),
    relativeFusion(0.6, 100),
    relativeFusion(0.8, 100),
    near({ feedbackHits: 0 }),
    near({ feedbackHits: 2 }),
    near({ rankConstant: 10 }),
    near({ rankConstant: 60 }),
    near({ denseWeight: 2 }),
    near({ denseWeight: 3 }),
    near({ sizeDiscount: 0 }),
    near({ sizeDiscount: 0.1 }),
  ];
}
