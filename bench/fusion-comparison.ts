// The --fusion table: hybrid nDCG@10 of each alternative on every prepared set, against the better single mode.
import { fusionAlternatives } from './fusion-candidates.js';
import { modeRankings, type HybridFusion, type PreparedSet } from './prepared-set.js';
import { mean, tolerance } from './cross-validation.js';
import { formatScore, formatTable, scoreRankings } from './ranking-scores.js';

export function fusionComparison(sets: readonly PreparedSet[], chosen: HybridFusion): string {
  const ndcg = (prepared: PreparedSet, mode: 'lexical' | 'embedding' | 'hybrid', fusion: HybridFusion): number =>
    scoreRankings(modeRankings(prepared, mode, fusion), prepared.set.judgments).ndcg10;
  const bestSingle = sets.map((prepared) => Math.max(ndcg(prepared, 'lexical', chosen), ndcg(prepared, 'embedding', chosen)));
  const rows = [...fusionAlternatives(), chosen].map((fusion) => {
    const scores = sets.map((prepared) => ndcg(prepared, 'hybrid', fusion));
    const keepsUp = scores.every((score, index) => score >= (bestSingle[index] as number) - tolerance);
    return [
      fusion === chosen ? `${fusion.name} (chosen)` : fusion.name,
      ...scores.map(formatScore),
      formatScore(mean(scores)),
      keepsUp ? 'yes' : 'no',
    ];
  });
  const header = ['fusion', ...sets.map((prepared) => prepared.set.name), 'mean', `within ${tolerance} of the best mode everywhere`];
  const single = ['best single mode', ...bestSingle.map(formatScore), '', ''];
  return formatTable(header, [single, ...rows]);
}
