// Choosing the hybrid setting so that it generalizes: leave-one-set-out cross-validation over a grid of settings
// (each development site and BEIR set held out in turn). For each set, the setting is chosen on the other sets alone
// (the one whose worst training set gains most over that set's better single mode, then by mean nDCG@10) and scored
// on the held-out set. Paired standard errors compare per-query nDCG@10 of two rankings of the same queries.
import { hybridCandidateDepth, hybridSettings, type HybridSettings } from '../src/search/fusion.js';
import { serviceFusion } from './fusion-candidates.js';
import { firstTenRankings, type PreparedSet, type SearchMode } from './prepared-set.js';
import { formatTable, ndcgPerQuery } from './ranking-scores.js';

/** Feedback rounds searched: none, or from the best 2 or 3 fused chunks at half or full weight. */
const feedbackGrid = [
  { feedbackHits: 0, feedbackWeight: 0 },
  ...[2, 3].flatMap((feedbackHits) => [0.5, 1].map((feedbackWeight) => ({ feedbackHits, feedbackWeight }))),
];

/** The grid searched: every combination of rank constant, embedding weight, feedback round and size discount. */
const settingsGrid: readonly HybridSettings[] = [10, 20, 30, 60].flatMap((rankConstant) =>
  [1, 1.5, 2, 2.5, 3].flatMap((denseWeight) =>
    feedbackGrid.flatMap((feedback) => [0, 0.05, 0.1].map((sizeDiscount) => ({ rankConstant, denseWeight, ...feedback, sizeDiscount }))),
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
  /** The service's setting (hybridSettings), per query. */
  readonly current: number[];
}

function scoreSet(set: PreparedSet): SetScores {
  const perQuery = (mode: SearchMode, settings: HybridSettings) =>
    ndcgPerQuery(firstTenRankings(set, mode, serviceFusion(settings, hybridCandidateDepth)), set.set.judgments);
  return {
    name: set.set.name,
    lexical: perQuery('lexical', hybridSettings),
    embedding: perQuery('embedding', hybridSettings),
    hybrid: settingsGrid.map((settings) => perQuery('hybrid', settings)),
    current: perQuery('hybrid', hybridSettings),
  };
}

const bestMode = (set: SetScores): number => Math.max(mean(set.lexical), mean(set.embedding));

/** Hybrid nDCG@10 of a grid setting on a set minus the better single mode's. */
const margin = (set: SetScores, index: number): number => mean(set.hybrid[index] as number[]) - bestMode(set);

/**
 * Index in the grid of the setting chosen on `training`: the largest smallest margin over the better single mode, then
 * the best mean nDCG@10. Choosing by mean among the settings within the tolerance everywhere (the earlier rule) let
 * sets where either mode does well outvote the one where only embedding does: fit without dbpedia-entity, it lost 0.033
 * there.
 */
function choose(training: readonly SetScores[]): number {
  let best = -1;
  let bestKey: [number, number] = [-Infinity, -Infinity];
  settingsGrid.forEach((_, index) => {
    const worst = Math.min(...training.map((set) => margin(set, index)));
    const average = mean(training.map((set) => mean(set.hybrid[index] as number[])));
    if (worst > bestKey[0] || (worst === bestKey[0] && average > bestKey[1])) {
      best = index;
      bestKey = [worst, average];
    }
  });
  return best;
}

const describeSettings = (settings: HybridSettings): string =>
  `k ${settings.rankConstant}, dense ${settings.denseWeight}, ` +
  (settings.feedbackHits > 0 ? `feedback ${settings.feedbackHits} × ${settings.feedbackWeight}` : 'no feedback') +
  `, size ${settings.sizeDiscount}`;

const score = (values: readonly number[]): string => mean(values).toFixed(3);
const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;

/** The cross-validation report, and the setting chosen on all sets together. */
export function crossValidate(sets: readonly PreparedSet[], report: (message: string) => void = () => {}): string {
  const scores = sets.map((set) => {
    const started = performance.now();
    const scored = scoreSet(set);
    report(`  ${set.set.name}: ${settingsGrid.length} settings scored in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return scored;
  });
  const held = scores.map((set, heldIndex) => {
    const chosen = choose(scores.filter((_, index) => index !== heldIndex));
    return { set, chosen, hybrid: set.hybrid[chosen] as number[] };
  });
  const rows = held.map(({ set, chosen, hybrid }) => [
    set.name,
    describeSettings(settingsGrid[chosen] as HybridSettings),
    score(set.lexical),
    score(set.embedding),
    score(hybrid),
    formatDifference(pairedDifference(hybrid, set.lexical)),
    formatDifference(pairedDifference(hybrid, set.embedding)),
    mean(hybrid) >= bestMode(set) - tolerance ? 'yes' : 'NO',
    score(set.current),
  ]);
  const average = (pick: (set: SetScores) => number[]) => mean(scores.map((set) => mean(pick(set)))).toFixed(3);
  const heldAverage = mean(held.map(({ hybrid }) => mean(hybrid))).toFixed(3);
  rows.push([
    'mean',
    '',
    average((set) => set.lexical),
    average((set) => set.embedding),
    heldAverage,
    '',
    '',
    '',
    average((set) => set.current),
  ]);
  const final = choose(scores);
  const keepingUp = settingsGrid.filter((_, index) => scores.every((set) => margin(set, index) >= -tolerance)).length;
  const marginRow = (label: string, index: number) => [
    label,
    describeSettings(settingsGrid[index] as HybridSettings),
    ...scores.map((set) => signed(margin(set, index))),
    average((set) => set.hybrid[index] as number[]),
  ];
  const currentRow = [
    "the service's",
    describeSettings(hybridSettings),
    ...scores.map((set) => signed(mean(set.current) - bestMode(set))),
    average((set) => set.current),
  ];
  return [
    `Leave-one-set-out: the setting chosen on the other ${sets.length - 1} sets (of ${settingsGrid.length}), scored on the held-out set ` +
      "(nDCG@10; hybrid minus mode ± paired standard error; the service's setting for comparison)",
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
        "service's hybrid",
      ],
      rows,
      2,
    ),
    `\nHybrid minus the better single mode per set (nDCG@10); ${keepingUp} of ${settingsGrid.length} settings stay within ${tolerance} on every set`,
    formatTable(
      ['setting', '', ...scores.map((set) => set.name), 'mean hybrid'],
      [marginRow(`chosen on all ${sets.length}`, final), currentRow],
      2,
    ),
  ].join('\n');
}
