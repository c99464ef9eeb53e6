// Fusing ranked lists (lexical and embedding) into one ranking: pure functions over keys and scores.

export interface RankedHit {
  readonly key: string;
  readonly score: number;
}

/**
 * Reciprocal rank fusion: each list gives a key weight / (k + rank), ranks from 1. Robust to the lists'
 * incomparable score scales; k dampens the head (60 in the original paper).
 */
export function reciprocalRankFusion(lists: readonly { readonly hits: readonly RankedHit[]; readonly weight: number }[], k = 60): RankedHit[] {
  const fused = new Map<string, number>();
  for (const { hits, weight } of lists) {
    hits.forEach((hit, index) => fused.set(hit.key, (fused.get(hit.key) ?? 0) + weight / (k + index + 1)));
  }
  return [...fused].map(([key, score]) => ({ key, score })).sort((left, right) => right.score - left.score || (left.key < right.key ? -1 : 1));
}
