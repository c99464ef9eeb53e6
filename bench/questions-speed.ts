// npm run bench:questions: what the question log costs an answer, and how long the gaps report takes over 100,000
// questions. Two services over the same docs (the extractive model, the local embedding model, hybrid retrieval), one
// with KNOWLEDGE_AGENT_QUESTION_LOG=off and one with full: generate answers alternately on each, p50 and p95 compared
// (the issue's bound: at most 1 ms more at p50). Then 100,000 questions (a long tail of distinct phrasings, 30% not
// covered, 2% rated) are written into the full service's log and GET /api/gaps builds the report, cold (every
// grouped question embedded) and warm (bound: at most 5 s).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { QuestionLogRecord } from '../src/store/question-log.js';
import { startBenchApp, type BenchApp } from './bench-app.js';

const answersEach = Number(process.env.BENCH_ANSWERS ?? 300);
const loggedQuestions = 100_000;

const documents = [
  ['Vacation', 'Employees get twenty-five vacation days per year. Unused days expire in March.'],
  ['Expenses', 'Submit expense reports within thirty days through the finance portal.'],
  ['Accounts', 'Every employee gets an account on their first day. Passwords expire every ninety days.'],
  ['Deployment', 'The service is deployed with a rolling update. Each rollout waits for health checks to pass.'],
  ['Caching', 'Responses are cached for five minutes. The cache is cleared on every deployment.'],
];
const questions = [
  'How many vacation days do employees get?',
  'When do unused vacation days expire?',
  'How do I submit an expense report?',
  'When do passwords expire?',
  'How is the service deployed?',
  'How long are responses cached?',
];

async function start(mode: string, root: string): Promise<BenchApp> {
  const bench = await startBenchApp({
    KNOWLEDGE_AGENT_MODEL: 'extractive',
    KNOWLEDGE_AGENT_STORAGE_PATH: root,
    KNOWLEDGE_AGENT_QUESTION_LOG: mode,
  });
  const ingested = await bench.app.inject({
    method: 'POST',
    url: '/tools/ingest',
    payload: {
      namespace: 'handbook',
      sources: documents.map(([title, text]) => ({ type: 'text', title, value: `# ${title}\n\n${text}` })),
    },
  });
  if (ingested.statusCode !== 200) throw new Error(`ingest failed: ${ingested.body}`);
  return bench;
}

async function answerMs(bench: BenchApp, question: string): Promise<number> {
  const started = performance.now();
  const response = await bench.app.inject({
    method: 'POST',
    url: '/api/agents/knowledge/generate',
    payload: { messages: [{ role: 'user', content: question }], toolParams: { namespace: 'handbook' } },
  });
  const elapsed = performance.now() - started;
  if (response.statusCode !== 200) throw new Error(`generate failed: ${response.body}`);
  return elapsed;
}

const percentile = (values: readonly number[], share: number) =>
  [...values].sort((left, right) => left - right)[Math.floor(share * (values.length - 1))] ?? 0;

const topics = [
  'single sign-on',
  'webhooks',
  'rate limits',
  'backups',
  'the audit log',
  'two-factor login',
  'custom domains',
  'billing',
  'the CSV export',
  'dark mode',
  'the mobile app',
  'Slack notifications',
  'API keys',
  'data retention',
  'user roles',
  'the search index',
  'email templates',
  'time zones',
  'file uploads',
  'the GraphQL API',
  'proxies',
  'Kubernetes',
  'Docker images',
  'LDAP groups',
  'the command line',
  'offline mode',
  'translations',
  'PDF reports',
  'SAML metadata',
  'IP allow lists',
  'payment methods',
  'invoices',
  'usage quotas',
  'background jobs',
  'cron schedules',
  'the Python SDK',
  'the Java client',
  'TLS certificates',
  'log shipping',
  'Prometheus metrics',
  'dashboards',
  'alert rules',
  'read replicas',
  'database migrations',
  'feature flags',
  'A/B tests',
  'the browser extension',
  'keyboard shortcuts',
  'accessibility',
  'GDPR requests',
  'account deletion',
  'password policies',
  'session timeouts',
  'OAuth scopes',
  'the webhook signature',
  'retries',
  'pagination',
  'sorting results',
  'bulk imports',
  'sandbox accounts',
];

/** 100,000 questions: 60 topics x 12 phrasings x 8 variants (a long tail), 30% not covered, 2% rated. */
function syntheticLog(): string {
  const phrasings = [
    (topic: string) => `How do I configure ${topic}?`,
    (topic: string) => `Is ${topic} supported on Windows?`,
    (topic: string) => `What does ${topic} do`,
    (topic: string) => `${topic} is not working after the upgrade`,
    (topic: string) => `Can I turn off ${topic} for one team?`,
    (topic: string) => `Where are the ${topic} settings`,
    (topic: string) => `How to migrate ${topic} from version 2`,
    (topic: string) => `Does ${topic} work with SSO?`,
    (topic: string) => `What is the default value of ${topic}?`,
    (topic: string) => `How do I test ${topic} locally`,
    (topic: string) => `Why is ${topic} slow?`,
    (topic: string) => `Can ${topic} be used from the API?`,
  ];
  const day = 86_400_000;
  const now = Date.now();
  const lines: string[] = [];
  for (let index = 0; index < loggedQuestions; index++) {
    // Skewed: low topic numbers are asked far more often.
    const topic = topics[Math.floor(topics.length * Math.random() ** 2)] as string;
    const phrasing = phrasings[index % phrasings.length] as (topic: string) => string;
    const question = `${phrasing(topic)}${index % 8 === 0 ? '' : ` (${index % 8})`}`;
    const runId = `bench-${index}`;
    const at = new Date(now - Math.floor(Math.random() * 30 * day)).toISOString();
    const covered = Math.random() >= 0.3;
    const record: QuestionLogRecord = {
      kind: 'question',
      runId,
      at,
      channel: 'generate',
      question,
      query: question,
      pages: [
        { file: 'vacation.md', title: 'Vacation', origin: 'text', score: 0.41 },
        { file: 'accounts.md', title: 'Accounts', origin: 'text', score: 0.32 },
      ],
      pageCount: 2,
      answerLength: 180,
      covered,
      sources: covered ? ['vacation.md'] : [],
      latencyMs: 12,
    };
    lines.push(JSON.stringify(record));
    if (index % 50 === 0)
      lines.push(JSON.stringify({ kind: 'feedback', runId, at, rating: covered ? 'up' : 'down', comment: `comment ${index % 7}` }));
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const roots = {
    off: await mkdtemp(join(tmpdir(), 'bench-questions-off-')),
    full: await mkdtemp(join(tmpdir(), 'bench-questions-full-')),
  };
  const off = await start('off', roots.off);
  const full = await start('full', roots.full);
  try {
    // Warm-up: the model, the JIT, the first log file.
    for (const question of questions) {
      await answerMs(off, question);
      await answerMs(full, question);
    }
    const times = { off: [] as number[], full: [] as number[] };
    for (let index = 0; index < answersEach; index++) {
      const question = questions[index % questions.length] as string;
      // Alternating which goes first, so neither always runs on a warmer cache.
      if (index % 2 === 0) {
        times.off.push(await answerMs(off, question));
        times.full.push(await answerMs(full, question));
      } else {
        times.full.push(await answerMs(full, question));
        times.off.push(await answerMs(off, question));
      }
    }
    const p50 = { off: percentile(times.off, 0.5), full: percentile(times.full, 0.5) };
    console.log(`answers (generate, ${answersEach} each, interleaved):`);
    console.log(`  log off:  p50 ${p50.off.toFixed(2)} ms, p95 ${percentile(times.off, 0.95).toFixed(2)} ms`);
    console.log(`  log full: p50 ${p50.full.toFixed(2)} ms, p95 ${percentile(times.full, 0.95).toFixed(2)} ms`);
    console.log(`  logging adds ${(p50.full - p50.off).toFixed(2)} ms at p50 (bound: 1 ms)`);

    const folder = join(roots.full, 'handbook', '.questions');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, `${new Date().toISOString().slice(0, 10)}.jsonl`), syntheticLog());
    for (const run of ['cold', 'warm']) {
      const started = performance.now();
      const response = await full.app.inject({ method: 'GET', url: '/api/gaps/handbook' });
      const elapsed = performance.now() - started;
      if (response.statusCode !== 200) throw new Error(`report failed: ${response.body}`);
      const report = response.json<{ totals: { questions: number }; groups: { label: string; count: number }[] }>();
      console.log(
        `gaps report over ${report.totals.questions} questions (${run}): ${(elapsed / 1000).toFixed(2)} s, ${report.groups.length} groups, ` +
          `largest "${report.groups[0]?.label}" (${report.groups[0]?.count}) (bound: 5 s)`,
      );
    }
  } finally {
    await off.app.close();
    await full.app.close();
    await rm(roots.off, { recursive: true, force: true });
    await rm(roots.full, { recursive: true, force: true });
  }
}

await main();
