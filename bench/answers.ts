// Answer quality on the development sites, measured by `knowledge-agent eval`'s code through the real service's HTTP
// API: each site (bench/sites.ts) is ingested into the namespace of its name (cached in bench/.cache/sites-knowledge),
// and every question of its file in bench/questions/ is asked (a search for the retrieval figures, generate for the
// answer), with the offline extractive model and the bundled local embedding model (or whatever KNOWLEDGE_AGENT_MODEL
// and LLM_* name). Prints a row per site: retrieval, answers (good / partial / wrong / refused) and abstention.
// Run: npm run bench:answers [-- --sites fastapi,uv] [--verbose] [--json FILE]
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KnowledgeAgentClient } from '../src/cli/client.js';
import { evaluate, type EvaluationSummary } from '../src/cli/evaluation.js';
import { startBenchApp } from './bench-app.js';
import { formatTable } from './ranking-scores.js';
import { ingestSite } from './site-ingest.js';
import { chosenSites, siteQuestions } from './sites.js';

interface Options {
  readonly sites: readonly string[];
  readonly verbose: boolean;
  readonly json: string | undefined;
}

function parseArguments(argv: readonly string[]): Options {
  let sites: string[] = [];
  let verbose = false;
  let json: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === '--sites') sites = (argv[++index] ?? '').split(',').filter((name) => name !== '');
    else if (argument === '--verbose') verbose = true;
    else if (argument === '--json') json = argv[++index];
    else throw new Error(`unknown argument ${argument} (use --sites a,b, --verbose, --json FILE)`);
  }
  return { sites, verbose, json };
}

const options = parseArguments(process.argv.slice(2));
const sites = chosenSites(options.sites);
const storage = fileURLToPath(new URL('./.cache/sites-knowledge', import.meta.url));
mkdirSync(storage, { recursive: true });
const { app, baseUrl } = await startBenchApp({
  KNOWLEDGE_AGENT_MODEL: 'extractive',
  ...process.env,
  KNOWLEDGE_AGENT_STORAGE_PATH: storage,
  KNOWLEDGE_AGENT_FILE_ROOTS: sites.map((site) => site.directory).join(':'),
});

const percent = (part: number, whole: number) => `${part} (${whole === 0 ? 0 : Math.round((100 * part) / whole)}%)`;
try {
  const client = new KnowledgeAgentClient({ baseUrl: new URL(`${baseUrl}/`), token: undefined });
  const summaries: EvaluationSummary[] = [];
  for (const site of sites) {
    await ingestSite(baseUrl, site, (message) => console.log(message));
    const summary = await evaluate(client, siteQuestions(site), { namespace: site.name, mode: 'hybrid' });
    summaries.push(summary);
    if (options.verbose) {
      for (const result of summary.questions) {
        console.log(
          `\n### ${result.id} [${result.outOfScope ? `out of scope, ${result.covered ? 'answered' : 'refused'}` : result.grade}] ${result.question}`,
        );
        console.log(`retrieved: ${result.retrieved.slice(0, 4).join(', ')}  cited: ${result.citedPages.join(', ')}\n${result.answer}`);
      }
    }
  }
  const rows = summaries.map((summary) => {
    const { retrieval, answers, abstention } = summary;
    return [
      summary.namespace,
      retrieval.ndcg10.toFixed(3),
      String(answers.questions),
      percent(answers.good, answers.questions),
      percent(answers.partial, answers.questions),
      percent(answers.wrong, answers.questions),
      percent(answers.refused, answers.questions),
      percent(abstention.outOfScopeRefused, abstention.outOfScope),
    ];
  });
  console.log(`\n${formatTable(['site', 'nDCG@10', 'in scope', 'good', 'partial', 'wrong', 'refused', 'out-of-scope refused'], rows)}`);
  if (options.json !== undefined) writeFileSync(options.json, `${JSON.stringify(summaries, null, 2)}\n`);
} finally {
  await app.close();
}
