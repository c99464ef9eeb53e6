// How quickly /health answers while the service takes hostile input (issues 13 and 26): two HTML pages built to stall
// a parser (100,000 nested divs, 392,000 spans) with an ordinary page in one ingest, then a 6 MB upload of
// pathological Markdown, each --rounds times on one service. Prints the /health latencies (p50, p99, max) of each
// workload over all its rounds against the 100 ms p99 bound, the RSS growth, and what each round stored or refused.
// The test of the same workloads (test/http/hostile-pages.test.ts) holds outcomes, memory and "no freeze"; the
// percentile lives here because a shared machine makes it no pass/fail criterion.
// Run: npm run bench:hostile -- [--rounds 3]
import { parseArgs } from 'node:util';
import { percentile, startHostileScenario, type HealthMeasurement } from '../test/support/hostile-inputs.js';

const { values: flags } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Number(flags.rounds);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20)
  throw new Error(`--rounds must be a whole number from 1 to 20 (got ${flags.rounds})`);

const boundMs = 100;
const scenario = await startHostileScenario();
try {
  /** What the rounds of one workload measured, over all its rounds. */
  const tally = () => ({ latencies: [] as number[], growthMb: [] as number[], outcomes: [] as string[] });
  const workloads = { 'hostile HTML pages': tally(), '6 MB pathological Markdown': tally() };
  async function record<Result>(name: keyof typeof workloads, measured: HealthMeasurement<Result>, outcome: (result: Result) => string) {
    const started = performance.now();
    const result = await measured.result;
    const seconds = (performance.now() - started) / 1000;
    const { latencies, growthMb } = await measured.health;
    workloads[name].latencies.push(...latencies);
    workloads[name].growthMb.push(growthMb);
    workloads[name].outcomes.push(`${outcome(result)} in ${seconds.toFixed(1)} s`);
  }
  for (let round = 1; round <= rounds; round += 1) {
    await record('hostile HTML pages', scenario.ingestHostilePages(`hostile-${round}`), (result) =>
      [...result.documents.map((document) => document.status), ...result.errors.map((error) => error.code)].join(', '),
    );
    await record(
      '6 MB pathological Markdown',
      scenario.uploadPathologicalMarkdown(`hostile-markdown-${round}`),
      ({ status, body }) => `${status}: saved ${body.saved}${body.errors.map((error) => `, ${error.code}`).join('')}`,
    );
  }
  for (const [name, { latencies, growthMb, outcomes }] of Object.entries(workloads)) {
    const p99 = percentile(latencies, 0.99);
    console.log(
      `${name}: /health over ${latencies.length} checks p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms ` +
        `(${p99 < boundMs ? 'within' : 'OVER'} the ${boundMs} ms bound), max ${Math.max(...latencies).toFixed(1)} ms; ` +
        `RSS growth up to ${Math.max(...growthMb).toFixed(0)} MB`,
    );
    for (const [index, outcome] of outcomes.entries()) console.log(`  round ${index + 1}: ${outcome}`);
  }
} finally {
  await scenario.dispose();
}
