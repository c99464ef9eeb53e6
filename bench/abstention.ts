// Fits the relevance floor of the "not in these docs" check (src/agent/coverage.ts) across sites, leave-one-site-out:
// for each site, the floor is chosen on the other sites alone and scored on it. Each site is ingested (cached in
// bench/.cache/sites-knowledge) and every question asked through the service with the check off, which grades the
// answers the check may lose; then the search evidence of every question is measured in-process, as the agent sees it.
// The floor chosen on a training set refuses as many out-of-scope questions as it can while refusing at most
// `maxInScopeRefused` of the in-scope questions of each training site.
// Run: npm run bench:abstention [-- --sites fastapi,uv]
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { relevanceFloor, type RelevanceFloor, passesRelevanceFloor } from '../src/agent/coverage.js';
import { evaluate, type QuestionResult } from '../src/cli/evaluation.js';
import { KnowledgeAgentClient } from '../src/cli/client.js';
import { loadConfig } from '../src/config.js';
import { ChunkEmbedder } from '../src/embedding/chunk-embedder.js';
import { chunkMarkdown } from '../src/ingest/chunk-markdown.js';
import { selectModels } from '../src/providers/select-models.js';
import type { RelevanceEvidence } from '../src/search/relevance.js';
import { SearchService } from '../src/search/search-service.js';
import { KnowledgeStore } from '../src/store/knowledge-store.js';
import { startBenchApp } from './bench-app.js';
import { formatTable } from './ranking-scores.js';
import { chosenSites, siteQuestions, type Site } from './sites.js';
import { ingestSite } from './site-ingest.js';
import { sanitizeNamespace } from '../src/store/namespace-name.js';

const maxInScopeRefused = 0.05;

interface Observation {
  readonly site: string;
  readonly id: string;
  readonly question: string;
  readonly outOfScope: boolean;
  readonly evidence: RelevanceEvidence;
  /** The answer's grade with the check off (in-scope questions). */
  readonly grade: QuestionResult['grade'];
}

function argumentSites(argv: readonly string[]): string[] {
  const index = argv.indexOf('--sites');
  return index === -1 ? [] : (argv[index + 1] ?? '').split(',').filter((name) => name !== '');
}

const sites = chosenSites(argumentSites(process.argv.slice(2)));
const storage = fileURLToPath(new URL('./.cache/sites-knowledge', import.meta.url));
/** Every question's evidence and grade, for a closer look. */
const observationsFile = fileURLToPath(new URL('./.cache/abstention-observations.json', import.meta.url));
mkdirSync(storage, { recursive: true });
const environment = {
  KNOWLEDGE_AGENT_MODEL: 'extractive',
  ...process.env,
  KNOWLEDGE_AGENT_STORAGE_PATH: storage,
  KNOWLEDGE_AGENT_FILE_ROOTS: sites.map((site) => site.directory).join(':'),
  KNOWLEDGE_AGENT_COVERAGE_CHECK: 'false',
};

// 1. Ingest and grade the answers without the check, through HTTP.
const grades = new Map<string, Map<string, QuestionResult>>();
{
  const { app, baseUrl } = await startBenchApp(environment);
  try {
    const client = new KnowledgeAgentClient({ baseUrl: new URL(`${baseUrl}/`), token: undefined });
    for (const site of sites) {
      await ingestSite(baseUrl, site, (message) => console.log(message));
      const summary = await evaluate(client, siteQuestions(site), { namespace: site.name, mode: 'hybrid' });
      grades.set(site.name, new Map(summary.questions.map((result) => [result.id, result])));
    }
  } finally {
    await app.close();
  }
}

// 2. The search evidence of each question, in-process over the same storage.
const config = loadConfig({ ...environment, KNOWLEDGE_AGENT_RATE_LIMIT: '0' });
const models = await selectModels(config.provider, console);
if (models.embeddings === undefined) throw new Error('no embedding model: the floor is fitted with embeddings');
const store = new KnowledgeStore({
  root: config.storageRoot,
  embeddingModel: models.embeddings.id,
  chunkBody: (body) => chunkMarkdown(body),
  warn: () => {},
});
await store.initialize();
const embedder = new ChunkEmbedder(store, models.embeddings, (message) => console.error(message));
const search = new SearchService(store, embedder, config.limits.maxResults);
const observations: Observation[] = [];
/** Every evidence in one shape, each field present, so that the fit's millions of floor checks read alike objects. */
const evidenceOf = async (site: Site, query: string, mode: 'hybrid' | 'lexical'): Promise<RelevanceEvidence> => {
  const found = (await search.search(sanitizeNamespace(site.name), query, { mode, limit: config.topK })).relevance as RelevanceEvidence;
  const { termCoverage, similarity, similarityMargin, embeddingModel, unknownOptions = [], unknownNames = [] } = found;
  return { termCoverage, similarity, similarityMargin, embeddingModel, unknownOptions, unknownNames };
};
const lexicalObservations: Observation[] = [];
for (const site of sites) {
  for (const question of siteQuestions(site)) {
    if ((question.earlier_questions ?? []).length > 0) continue;
    const graded = grades.get(site.name)?.get(question.id);
    if (graded === undefined) continue;
    const outOfScope = question.out_of_scope === true;
    const asked = { site: site.name, id: question.id, question: question.question, outOfScope, grade: graded.grade };
    observations.push({ ...asked, evidence: await evidenceOf(site, question.question, 'hybrid') });
    lexicalObservations.push({ ...asked, evidence: await evidenceOf(site, question.question, 'lexical') });
  }
}
await embedder.close();
await store.close();
await models.embeddings.close?.();

writeFileSync(observationsFile, `${JSON.stringify({ hybrid: observations, lexical: lexicalObservations }, null, 1)}\n`);

// 3. Leave-one-site-out.
interface Score {
  readonly outOfScopeRefused: number;
  readonly outOfScope: number;
  readonly inScopeRefused: number;
  readonly inScope: number;
  readonly goodLost: number;
  readonly good: number;
}

/** One pass over the rows, nothing allocated but the result: the fit scores some million floors. */
function score(floor: RelevanceFloor, rows: readonly Observation[]): Score {
  const counts = { outOfScopeRefused: 0, outOfScope: 0, inScopeRefused: 0, inScope: 0, goodLost: 0, good: 0 };
  for (const row of rows) {
    const refused = !passesRelevanceFloor(row.evidence, floor);
    if (row.outOfScope) {
      counts.outOfScope++;
      if (refused) counts.outOfScopeRefused++;
      continue;
    }
    counts.inScope++;
    if (refused) counts.inScopeRefused++;
    if (row.grade === 'good') {
      counts.good++;
      if (refused) counts.goodLost++;
    }
  }
  return counts;
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

/** Every floor of the grid; the lexical floor is fitted separately, on lexical evidence. */
function grid(lexicalOnly: boolean): RelevanceFloor[] {
  const steps = (from: number, to: number, step: number) =>
    Array.from({ length: Math.round((to - from) / step) + 1 }, (_, index) => Number((from + index * step).toFixed(3)));
  if (lexicalOnly) return steps(0, 1, 0.02).map((lexical) => ({ ...relevanceFloor, lexical }));
  // The similarity floor varies fastest and from the bottom, so that of floors that refuse the same questions the fit
  // keeps the lowest.
  // The penalty stops at 0.3 by design: a name the docs never use weighs against a question, and never decides alone
  // (an answerable question may name the asker's own setting).
  return steps(0, 0.3, 0.1).flatMap((unknownNamePenalty) =>
    [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1].flatMap((termWeight) =>
      steps(-0.3, 1.2, 0.005).flatMap((combined) =>
        steps(0, 0.4, 0.02).map((similarity) => ({ ...relevanceFloor, combined, termWeight, unknownNamePenalty, similarity })),
      ),
    ),
  );
}

/**
 * The floor that refuses the most out-of-scope questions while keeping every training site's in-scope refusals low. Its
 * similarity floor stays below every in-scope question of the training sites: on its own it refuses only questions
 * further from the docs than any answerable one seen.
 */
function fit(rows: readonly Observation[], candidates: readonly RelevanceFloor[]): RelevanceFloor {
  const names = [...new Set(rows.map((row) => row.site))];
  const lowestAnswerable = Math.min(...rows.flatMap((row) => (row.outOfScope ? [] : [row.evidence.similarity ?? Infinity])));
  const siteRows = names.map((name) => rows.filter((row) => row.site === name));
  let best: { floor: RelevanceFloor; refused: number; inScopeRefused: number } | undefined;
  for (const floor of candidates) {
    if (floor.similarity >= lowestAnswerable) continue;
    const perSite = siteRows.map((site) => score(floor, site));
    if (perSite.some((site) => share(site.inScopeRefused, site.inScope) > maxInScopeRefused)) continue;
    const refused = perSite.reduce((sum, site) => sum + share(site.outOfScopeRefused, site.outOfScope), 0) / names.length;
    const inScopeRefused = perSite.reduce((sum, site) => sum + site.inScopeRefused, 0);
    if (
      best === undefined ||
      refused > best.refused + 1e-9 ||
      (Math.abs(refused - best.refused) < 1e-9 && inScopeRefused < best.inScopeRefused)
    )
      best = { floor, refused, inScopeRefused };
  }
  if (best === undefined) throw new Error('no floor keeps in-scope refusals low enough on every training site');
  return best.floor;
}

function report(title: string, rows: readonly Observation[], lexicalOnly: boolean): void {
  const candidates = grid(lexicalOnly);
  const names = [...new Set(rows.map((row) => row.site))];
  const percent = (part: number, whole: number) => `${part}/${whole} (${(100 * share(part, whole)).toFixed(0)}%)`;
  const table = names.map((name) => {
    const floor = fit(
      rows.filter((row) => row.site !== name),
      candidates,
    );
    const held = score(
      floor,
      rows.filter((row) => row.site === name),
    );
    return [
      name,
      lexicalOnly
        ? floor.lexical.toFixed(2)
        : `${floor.combined.toFixed(3)} / ${floor.termWeight} / ${floor.unknownNamePenalty} / ${floor.similarity.toFixed(2)}`,
      percent(held.outOfScopeRefused, held.outOfScope),
      percent(held.inScopeRefused, held.inScope),
      percent(held.goodLost, held.good),
    ];
  });
  const all = fit(rows, candidates);
  const overall = score(all, rows);
  console.log(`\n${title}: each site held out (its floor fitted on the others)`);
  console.log(
    formatTable(
      [
        'held-out site',
        lexicalOnly ? 'floor' : 'floor / term weight / unknown-name penalty / similarity',
        'out-of-scope refused',
        'in-scope refused',
        'good answers lost',
      ],
      table,
    ),
  );
  console.log(
    `fitted on every site: ${JSON.stringify(lexicalOnly ? { lexical: all.lexical } : { combined: all.combined, termWeight: all.termWeight, unknownNamePenalty: all.unknownNamePenalty, similarity: all.similarity })}; ` +
      `out-of-scope refused ${percent(overall.outOfScopeRefused, overall.outOfScope)}, in-scope refused ${percent(overall.inScopeRefused, overall.inScope)}`,
  );
}

report('Hybrid ranking with embeddings (similarity margin + weight x term coverage, and a similarity floor)', observations, false);
report('Lexical ranking, no embeddings (term coverage)', lexicalObservations, true);
