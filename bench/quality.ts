// Retrieval quality of the service's lexical, embedding and hybrid ranking on the development sites (bench/sites.ts,
// judged questions of bench/questions/) and BEIR-layout sets, indexed through its own chunker, indexes and local
// embedding model (vectors cached in bench/.cache/). --cv chooses the hybrid setting leave-one-set-out; --fusion
// compares the fusion methods that were considered; --chunking measures chunk size and overlap on the FastAPI docs.
// Run: npx tsx bench/quality.ts [--site NAME ...] [--set DIR ...] [--only] [--cv] [--fusion] [--chunking]
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalEmbeddingModel } from '../src/providers/local-embedding-model.js';
import { loadBeirSet, type BeirSet } from './beir-set.js';
import { loadQuestions, runChunkingStudy } from './chunking-study.js';
import { crossValidate, formatDifference, pairedDifference } from './cross-validation.js';
import { serviceHybrid } from './fusion-candidates.js';
import { fusionComparison } from './fusion-comparison.js';
import { plainBm25Rankings } from './plain-bm25.js';
import { modeHits, modeRankings, prepareSet, searchModes, type PreparedSet } from './prepared-set.js';
import { formatScore, formatTable, ndcgPerQuery, scoreRankings, type RankingScores } from './ranking-scores.js';
import { requireSharedData, sharedDataDirectory } from './shared-data.js';
import { loadSiteSet } from './site-set.js';
import { chosenSites, sites, type Site } from './sites.js';

const dataRoot = sharedDataDirectory;
const defaultSets = ['msmarco-trecdl-5k', 'vaswani-npl', 'dbpedia-entity-5k'].map((name) => resolve(dataRoot, name));
/** nDCG@10 of plain BM25 as shared/data/README.md states it. */
const readmeBaselines: Readonly<Record<string, number>> = { 'msmarco-trecdl-5k': 0.576, 'vaswani-npl': 0.374 };
/** Chunks kept per query list: enough for Recall@100 and for every fusion depth compared. */
const listDepth = 1000;

const usage = 'usage: npx tsx bench/quality.ts [--site NAME ...] [--set DIR ...] [--only] [--cv] [--fusion] [--chunking]';

interface Options {
  readonly sites: Site[];
  readonly sets: string[];
  readonly fusion: boolean;
  readonly crossValidation: boolean;
  readonly chunking: boolean;
}

function parseArguments(argv: readonly string[]): Options {
  const extra: string[] = [];
  const siteNames: string[] = [];
  let only = false;
  let fusion = false;
  let crossValidation = false;
  let chunking = false;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === '--set' || argument === '--site') {
      const value = argv[++index];
      if (value === undefined) throw new Error(`${argument} needs a ${argument === '--set' ? 'directory' : 'site name'}\n${usage}`);
      if (argument === '--set') extra.push(resolve(value));
      else siteNames.push(value);
    } else if (argument === '--only') only = true;
    else if (argument === '--fusion') fusion = true;
    else if (argument === '--cv') crossValidation = true;
    else if (argument === '--chunking') chunking = true;
    else throw new Error(`unknown argument ${argument}\n${usage}`);
  }
  // Without --only, every site and default set is read; a --set with the name of a default set replaces it.
  const names = new Set(extra.map((directory) => basename(directory)));
  const sets = [...(only ? [] : defaultSets.filter((directory) => !names.has(basename(directory)))), ...extra];
  const known = new Set(sites.map((site) => site.name));
  const unknown = siteNames.find((name) => !known.has(name));
  if (unknown !== undefined) throw new Error(`unknown site ${unknown}: choose from ${[...known].join(', ')}\n${usage}`);
  const picked = only ? siteNames : siteNames.length > 0 ? siteNames : sites.map((site) => site.name);
  return { sites: picked.length === 0 ? [] : chosenSites(picked), sets, fusion, crossValidation, chunking };
}

const seconds = (milliseconds: number): string => `${(milliseconds / 1000).toFixed(1)} s`;
const log = (message: string): void => console.log(message);

let options: Options;
try {
  options = parseArguments(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
// The sets of the shared data this run reads (a --set elsewhere is the caller's).
requireSharedData(
  ...options.sets.filter((directory) => dirname(directory) === dataRoot).map((directory) => basename(directory)),
  ...(options.chunking ? ['docs-fastapi'] : []),
);
const started = performance.now();
const model = await createLocalEmbeddingModel();
log(`model ${model.id} loaded in ${seconds(performance.now() - started)}`);
const chosen = serviceHybrid();

const prepared: PreparedSet[] = [];
const rows: string[][] = [];
const loaders: (() => Promise<BeirSet>)[] = [
  ...options.sites.map((site) => () => loadSiteSet(site)),
  ...options.sets.map((directory) => () => Promise.resolve(loadBeirSet(directory))),
];
for (const load of loaders) {
  const set = await load();
  const setStarted = performance.now();
  log(`${set.name}: ${set.documents.length} documents, ${set.queries.length} judged queries`);
  const ready = await prepareSet(set, model, listDepth, log);
  prepared.push(ready);
  const { timings } = ready;
  const hybridStarted = performance.now();
  for (const lists of ready.lists) modeHits(lists, ready.corpus, 'hybrid', 10, chosen);
  const perQuery = (milliseconds: number): string => `${(milliseconds / set.queries.length).toFixed(1)} ms per query`;
  log(
    `  ${ready.corpus.chunks.length} chunks; chunk + BM25 index ${seconds(timings.indexMilliseconds)}; ` +
      `document vectors ${seconds(timings.embedMilliseconds)}${timings.embeddingsCached ? ' (cache)' : ''}; ` +
      `query vectors ${seconds(timings.queryEmbedMilliseconds)}; lexical + vector search ${listDepth} deep ${perQuery(timings.searchMilliseconds)}; ` +
      `hybrid ranking from those lists ${perQuery(performance.now() - hybridStarted)}; set total ${seconds(performance.now() - setStarted)}`,
  );
  const readme = readmeBaselines[set.name];
  const row = (label: string, scores: RankingScores): string[] => [
    set.name,
    label,
    ...[scores.ndcg10, scores.recall10, scores.recall100, scores.mrr10].map(formatScore),
    formatScore(readme),
  ];
  // A manual judged per section has no whole-document baseline.
  if (set.unitOf === undefined) {
    const baseline = scoreRankings(
      plainBm25Rankings(set, 100).map((ranking, index) => ({
        queryId: set.queries[index]?.id ?? '',
        top10: ranking.slice(0, 10),
        top100: ranking,
      })),
      set.judgments,
    );
    rows.push([...row('plain BM25 (README baseline, recomputed)', baseline), '', '']);
  }
  const rankings = Object.fromEntries(searchModes.map((mode) => [mode, modeRankings(ready, mode, chosen)])) as Record<
    (typeof searchModes)[number],
    ReturnType<typeof modeRankings>
  >;
  const modeNdcg = (mode: (typeof searchModes)[number]) => ndcgPerQuery(rankings[mode], set.judgments);
  for (const mode of searchModes) {
    const versus = (other: (typeof searchModes)[number]) =>
      mode === 'hybrid' ? formatDifference(pairedDifference(modeNdcg('hybrid'), modeNdcg(other))) : '';
    rows.push([...row(mode, scoreRankings(rankings[mode], set.judgments)), versus('lexical'), versus('embedding')]);
  }
}

if (rows.length > 0) {
  log('\nRetrieval quality (nDCG with 2^grade - 1 gains; documents ranked by their best chunk; searches of limit 10 and 100)');
  log(`hybrid: ${chosen.name}`);
  log(
    formatTable(
      ['set', 'ranking', 'nDCG@10', 'R@10', 'R@100', 'MRR@10', 'README BM25 nDCG@10', 'hybrid - lexical', 'hybrid - embedding'],
      rows,
      2,
    ),
  );
  log('(hybrid - mode: mean per-query nDCG@10 difference ± its paired standard error)');
}

if (options.fusion && prepared.length > 0) {
  log('\nFusion methods compared, hybrid nDCG@10 (one setting for every set)');
  log(fusionComparison(prepared, chosen));
}

if (options.crossValidation && prepared.length > 1) {
  log('');
  log(crossValidate(prepared, log));
}

if (options.chunking) {
  const chunkingStarted = performance.now();
  const questionsFile = fileURLToPath(new URL('./fastapi-questions.json', import.meta.url));
  const questions = loadQuestions(questionsFile);
  log(
    `\ndocs-fastapi: ${questions.length} questions (bench/fastapi-questions.json); a hit is a chunk holding the answer passage in the top 4`,
  );
  log(await runChunkingStudy(model, resolve(dataRoot, 'docs-fastapi'), questions, chosen, log));
  log(`chunking study ${seconds(performance.now() - chunkingStarted)}`);
}

log(`\ntotal ${seconds(performance.now() - started)}`);
