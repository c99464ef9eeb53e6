// Retrieval quality metrics (nDCG, recall, reciprocal rank) as pure functions over a ranking and its judgments.

/** Graded relevance of the judged documents of one query, by document id; a gain above 0 means relevant. */
export type RelevanceJudgments = ReadonlyMap<string, number>;

/** Turns a relevance grade into a gain; grades of 0 or less always gain 0. */
export type GainFunction = (grade: number) => number;

/** 2^grade - 1, which rewards the best grades most; the team's baseline figures use it. */
export const exponentialGain: GainFunction = (grade) => (grade > 0 ? 2 ** grade - 1 : 0);

/** Sum of gain / log2(rank + 1) over ranks 1, 2, …. */
export function discountedCumulativeGain(gains: readonly number[]): number {
  let total = 0;
  gains.forEach((gain, index) => (total += gain / Math.log2(index + 2)));
  return total;
}

/** DCG of the top `cutoff` results over the DCG of the best possible ranking of the judged documents. */
export function ndcgAt(
  ranking: readonly string[],
  judgments: RelevanceJudgments,
  cutoff: number,
  gain: GainFunction = exponentialGain,
): number {
  const gains = ranking.slice(0, cutoff).map((id) => gain(judgments.get(id) ?? 0));
  const ideal = [...judgments.values()]
    .map(gain)
    .sort((left, right) => right - left)
    .slice(0, cutoff);
  const idealGain = discountedCumulativeGain(ideal);
  return idealGain === 0 ? 0 : discountedCumulativeGain(gains) / idealGain;
}

/** Share of the relevant documents found in the top `cutoff` results (0 when nothing is relevant). */
export function recallAt(ranking: readonly string[], judgments: RelevanceJudgments, cutoff: number): number {
  let relevantCount = 0;
  for (const gain of judgments.values()) if (gain > 0) relevantCount++;
  if (relevantCount === 0) return 0;
  const found = new Set(ranking.slice(0, cutoff).filter((id) => (judgments.get(id) ?? 0) > 0)).size;
  return found / relevantCount;
}

/** 1 / rank of the first relevant result within the top `cutoff`, or 0 if there is none. */
export function reciprocalRankAt(ranking: readonly string[], judgments: RelevanceJudgments, cutoff: number): number {
  const rank = ranking.slice(0, cutoff).findIndex((id) => (judgments.get(id) ?? 0) > 0);
  return rank < 0 ? 0 : 1 / (rank + 1);
}

/** Arithmetic mean, 0 for no values. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
