// Choosing the hybrid setting so that it generalizes: leave-one-set-out cross-validation over a grid of settings.
// For each set, the setting is chosen on the other sets alone (first among the settings that stay within 0.01
// nDCG@10 of the better single mode on every training set, then by mean nDCG@10) and scored on the held-out set.
// Paired standard errors compare per-query nDCG@10 of two rankings of the same queries.
import { hybridCandidateDepth, hybridSettings, type HybridSettings } from '../src/search/fusion.js';
import { serviceFusion } from './fusion-candidates.js';
import { modeRankings, type PreparedSet } from './prepared-set.js';
import { formatTable, ndcgPerQuery } from './ranking-scores.js';

/** The grid searched: every combination; the size discount is fixed (only one set has many-chunk documents). */
export const settingsGrid: readonly HybridSettings[] = [10, 20, 30, 60].flatMap((rankConstant) =>
  [1, 1.5, 2, 2.5, 3].flatMap((denseWeight) =>
    [0, 2, 3].map((feedbackHits) => ({
      rankConstant,
      denseWeight,
      feedbackHits,
      feedbackWeight: 1,
      sizeDiscount: hybridSettings.sizeDiscount,
    })),
  ),
);

/** How far below the better single mode a setting may fall on a set and still count as keeping up with it. */
export const tolerance = 0.01;

export const mean = (values: readonly number[]): number => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

/** Mean difference of paired per-query values and its standard error. */
export function pairedDifference(left: readonly number[], right: readonly number[]): { difference: number; standardError: number } {
  const differences = left.map((value, index) => value - (right[index] ?? 0));
  const average = mean(differences);
  const variance = differences.reduce((sum, value) => sum + (value - average) ** 2, 0) / Math.max(1, differences.length - 1);
  return { difference: average, standardError: Math.sqrt(variance / Math.max(1, differences.length)) };
}

export const formatDifference = ({ difference, standardError }: { difference: number; standardError: number }): string =>
  `${difference >= 0 ? '+' : ''}${difference.toFixed(3)} ± ${standardError.toFixed(3)}`;

interface SetScores {
  readonly name: string;
  readonly lexical: number[];
  readonly embedding: number[];
  /** Per setting of the grid, per query. */
  readonly hybrid: number[][];
}

function scoreSet(set: PreparedSet): SetScores {
  const perQuery = (rankings: ReturnType<typeof modeRankings>) => ndcgPerQuery(rankings, set.set.judgments);
  const anyFusion = serviceFusion(hybridSettings, hybridCandidateDepth);
  return {
    name: set.set.name,
    lexical: perQuery(modeRankings(set, 'lexical', anyFusion)),
    embedding: perQuery(modeRankings(set, 'embedding', anyFusion)),
    hybrid: settingsGrid.map((settings) => perQuery(modeRankings(set, 'hybrid', serviceFusion(settings, hybridCandidateDepth)))),
  };
}

/** Index in the grid of the setting chosen on `training`. */
function choose(training: readonly SetScores[]): number {
  let best = -1;
  let bestKey: [number, number] = [-1, -Infinity];
  settingsGrid.forEach((_, index) => {
    const keepsUp = training.every(
      (set) => mean(set.hybrid[index] as number[]) >= Math.max(mean(set.lexical), mean(set.embedding)) - tolerance,
    )
      ? 1
      : 0;
    const average = mean(training.map((set) => mean(set.hybrid[index] as number[])));
    if (keepsUp > bestKey[0] || (keepsUp === bestKey[0] && average > bestKey[1])) {
      best = index;
      bestKey = [keepsUp, average];
    }
  });
  return best;
}

const describe = (settings: HybridSettings): string =>
  `k ${settings.rankConstant}, dense ${settings.denseWeight}, feedback ${settings.feedbackHits}`;

/** The cross-validation report, and the setting chosen on all sets together. */
export function crossValidate(sets: readonly PreparedSet[]): string {
  const scores = sets.map(scoreSet);
  const rows = scores.map((held, heldIndex) => {
    const chosen = choose(scores.filter((_, index) => index !== heldIndex));
    const hybrid = held.hybrid[chosen] as number[];
    const best = Math.max(mean(held.lexical), mean(held.embedding));
    return [
      held.name,
      describe(settingsGrid[chosen] as HybridSettings),
      mean(held.lexical).toFixed(3),
      mean(held.embedding).toFixed(3),
      mean(hybrid).toFixed(3),
      formatDifference(pairedDifference(hybrid, held.lexical)),
      formatDifference(pairedDifference(hybrid, held.embedding)),
      mean(hybrid) >= best - tolerance ? 'yes' : 'NO',
    ];
  });
  const final = choose(scores);
  const finalRows = scores.map((set) => [set.name, mean(set.hybrid[final] as number[]).toFixed(3)]);
  const average = (pick: (set: SetScores) => number[]) => mean(scores.map((set) => mean(pick(set)))).toFixed(3);
  return [
    `Leave-one-set-out: the setting chosen on the other ${sets.length - 1} sets, scored on the held-out set (nDCG@10; hybrid minus mode ± paired standard error)`,
    formatTable(
      [
        'held-out set',
        'chosen on the others',
        'lexical',
        'embedding',
        'hybrid',
        'vs lexical',
        'vs embedding',
        `within ${tolerance} of the best`,
      ],
      rows,
      2,
    ),
    `\nChosen on all ${sets.length} sets: ${describe(settingsGrid[final] as HybridSettings)} (the service's: ${describe(hybridSettings)})`,
    formatTable(['set', 'hybrid nDCG@10'], finalRows),
    `mean over the sets: lexical ${average((set) => set.lexical)}, embedding ${average((set) => set.embedding)}, hybrid ${average((set) => set.hybrid[final] as number[])}`,
  ].join('\n');
}
