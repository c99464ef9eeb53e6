// Mean nDCG@10, Recall@10, Recall@100 and MRR@10 of a set's rankings, and how they are printed.
import { mean, ndcgAt, recallAt, reciprocalRankAt, type GainFunction, type RelevanceJudgments } from '../src/search/metrics.js';

/** The grade itself, as trec_eval and BEIR's pytrec_eval use it (nDCG's gain is exponential unless given this). Same as
 * exponential for binary judgments. */
export const linearGain: GainFunction = (grade) => Math.max(0, grade);

export interface RankingScores {
  readonly ndcg10: number;
  readonly recall10: number;
  readonly recall100: number;
  readonly mrr10: number;
}

/** One query's answers: `top10` as returned for a limit of 10, `top100` for a limit of 100 (document ids). */
export interface QueryRanking {
  readonly queryId: string;
  readonly top10: readonly string[];
  readonly top100: readonly string[];
}

const noJudgments: RelevanceJudgments = new Map();

/** nDCG uses the metrics module's default exponential gain, like the data README's baselines. */
export function scoreRankings(rankings: readonly QueryRanking[], judgments: ReadonlyMap<string, RelevanceJudgments>): RankingScores {
  const of = (metric: (ranking: QueryRanking, judged: RelevanceJudgments) => number): number =>
    mean(rankings.map((ranking) => metric(ranking, judgments.get(ranking.queryId) ?? noJudgments)));
  return {
    ndcg10: of((ranking, judged) => ndcgAt(ranking.top10, judged, 10)),
    recall10: of((ranking, judged) => recallAt(ranking.top10, judged, 10)),
    recall100: of((ranking, judged) => recallAt(ranking.top100, judged, 100)),
    mrr10: of((ranking, judged) => reciprocalRankAt(ranking.top10, judged, 10)),
  };
}

/** A query's first 10 answers: all nDCG@10 needs. */
export type FirstTen = Pick<QueryRanking, 'queryId' | 'top10'>;

/** Per-query nDCG@10, for paired comparisons. */
export function ndcgPerQuery(rankings: readonly FirstTen[], judgments: ReadonlyMap<string, RelevanceJudgments>): number[] {
  return rankings.map((ranking) => ndcgAt(ranking.top10, judgments.get(ranking.queryId) ?? noJudgments, 10));
}

export const formatScore = (value: number | undefined): string => (value === undefined ? '—' : value.toFixed(3));

/** Left-aligns the first `textColumns` columns and right-aligns the rest. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], textColumns = 1): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, column) => (column < textColumns ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
