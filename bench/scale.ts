// Scale benchmark: builds namespaces of 10k and 100k chunks from the real text in ../shared/data (repeated and
// perturbed deterministically) through the service's own IngestService and KnowledgeStore, with a deterministic
// 384-dimension hash embedding (bench/hash-embedding.ts, no provider calls), then measures in fresh processes:
// start-up load, lexical / vector / hybrid search through SearchService (p50, p95, QPS on one core), peak RSS, single
// small-document ingests, MiniSearch and brute-force cosine baselines on the same chunks (with ratios and recall@10),
// and POST /agent time to the first SSE byte against a loopback provider double. Prints one table per size, PASS/MISS
// per target, and writes bench/.cache/scale-results.json.
// Run: npm run bench   or   npx tsx bench/scale.ts [--sizes 10000,100000] [--keep] [--budget-ms 6000]
//      [--batch 200] [--concurrency 200] [--single-ingests 20] [--agent-requests 50]
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startProviderDouble } from '../test/support/provider-double.js';
import { hashEmbed, hashEmbeddingDimensions, hashEmbeddingId } from './hash-embedding.js';
import type { AgentResult, BuildResult, BuildStretch, ChildOptions, MeasureResult, QueryTimings } from './scale-child.js';
import { runScaleChild } from './scale-child-process.js';

const resultsFile = fileURLToPath(new URL('./.cache/scale-results.json', import.meta.url));
const namespace = 'scale';

const { values: flags } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    keep: { type: 'boolean', default: false },
    'budget-ms': { type: 'string', default: '6000' },
    batch: { type: 'string', default: '200' },
    concurrency: { type: 'string' },
    'single-ingests': { type: 'string', default: '20' },
    'agent-requests': { type: 'string', default: '50' },
    // Build through the app's POST /tools/ingest, embeddings from a provider double in this process.
    'over-http': { type: 'boolean', default: false },
  },
});
const wholeNumber = (name: string, text: string | undefined): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive whole number (got ${JSON.stringify(text)})`);
  return value;
};
const sizes = (flags.sizes ?? '').split(',').map((size) => wholeNumber('sizes', size.trim().replace(/_/g, '')));
const batch = wholeNumber('batch', flags.batch);

/** Seconds per 100,000 chunks of the first and last tenths of the build, wall and CPU, and last / first. */
function ingestSlope(build: BuildResult) {
  const per100k = (stretch: BuildStretch | undefined, time: 'seconds' | 'cpuSeconds') =>
    stretch === undefined || stretch.chunks === 0 ? 0 : (stretch[time] * 100_000) / stretch.chunks;
  const [first, last] = [build.tenths[0], build.tenths.at(-1)];
  const slope = (time: 'seconds' | 'cpuSeconds') => {
    const start = per100k(first, time);
    const end = per100k(last, time);
    return { start, end, ratio: start > 0 ? end / start : 0 };
  };
  return { wall: slope('seconds'), cpu: slope('cpuSeconds') };
}

interface SizeResult {
  readonly target: number;
  readonly build: BuildResult;
  readonly measure: MeasureResult;
  readonly agent: AgentResult;
  /** Seconds the whole size took, building included. */
  readonly wallSeconds: number;
}

/** The build step, over HTTP with its own provider double (which keeps none of the million texts) when asked. */
async function buildNamespace(options: ChildOptions): Promise<BuildResult> {
  if (!flags['over-http']) return runScaleChild<BuildResult>('build', options);
  const provider = await startProviderDouble({ embeddingDimensions: hashEmbeddingDimensions, embed: hashEmbed, keepRequests: false });
  try {
    return await runScaleChild<BuildResult>('build', { ...options, overHttp: true, providerUrl: provider.baseUrl });
  } finally {
    await provider.close();
  }
}

async function runSize(target: number): Promise<SizeResult> {
  const started = performance.now();
  const root = await mkdtemp(join(tmpdir(), 'knowledge-agent-scale-'));
  console.error(`\n${target.toLocaleString('en')} chunks: storage root ${root}`);
  const base = { root, namespace, budgetMs: wholeNumber('budget-ms', flags['budget-ms']) };
  try {
    const build = await buildNamespace({
      ...base,
      chunks: target,
      batch,
      ...(flags.concurrency === undefined ? {} : { concurrency: wholeNumber('concurrency', flags.concurrency) }),
    });
    const measure = await runScaleChild<MeasureResult>('measure', {
      ...base,
      singleIngests: wholeNumber('single-ingests', flags['single-ingests']),
    });
    // The double answers chat instantly and embeds queries with the benchmark's own function, so the app's model
    // (same id) finds the namespace's vectors current.
    const provider = await startProviderDouble({ embeddingDimensions: hashEmbeddingDimensions, embed: hashEmbed });
    let agent: AgentResult;
    try {
      agent = await runScaleChild<AgentResult>('agent', {
        ...base,
        providerUrl: provider.baseUrl,
        agentRequests: wholeNumber('agent-requests', flags['agent-requests']),
      });
      if (provider.embeddingRequests().length === 0) throw new Error('the app never asked the provider double for a query embedding');
    } finally {
      await provider.close();
    }
    return { target, build, measure, agent, wallSeconds: (performance.now() - started) / 1000 };
  } finally {
    if (flags.keep) console.error(`kept ${root}`);
    else await rm(root, { recursive: true, force: true });
  }
}

const milliseconds = (value: number): string => (value < 1 ? value.toFixed(3) : value < 10 ? value.toFixed(2) : value.toFixed(1));
const whole = (value: number): string => Math.round(value).toLocaleString('en');
const ratio = (baseline: number, ours: number): string => (ours > 0 ? `${(baseline / ours).toFixed(baseline / ours < 10 ? 1 : 0)}x` : '-');
const pad = (text: string, width: number, right = false): string => (right ? text.padStart(width) : text.padEnd(width));

function searchRow(label: string, ours: QueryTimings, baselineLabel: string, baseline: QueryTimings | undefined): string {
  const cells = (timings: QueryTimings | undefined) =>
    timings === undefined
      ? ['-', '-', '-', '-'].map((cell) => pad(cell, 9, true)).join('')
      : [milliseconds(timings.p50), milliseconds(timings.p95), whole(timings.qps), milliseconds(timings.cpuMean)]
          .map((cell) => pad(cell, 9, true))
          .join('');
  return `${pad(label, 18)}${cells(ours)}   ${pad(baselineLabel, 20)}${cells(baseline)}   ${baseline === undefined ? '-' : ratio(baseline.p50, ours.p50)}`;
}

function printSize(result: SizeResult): void {
  const { build, measure, agent } = result;
  const search = measure.search;
  const servicePeak = Math.max(measure.service.peakRss, agent.memory.peakRss);
  console.log(
    `\n== ${result.target.toLocaleString('en')} chunks: ${whole(measure.chunks)} stored in ${whole(build.documents)} documents, ${hashEmbeddingDimensions}-d ${hashEmbeddingId} vectors ==`,
  );
  console.log(
    `${measure.queries} queries (MS MARCO, Vaswani, FastAPI questions), limit 10, sequential on one core; ms of wall time, QPS = 1 / mean, CPU = ms of CPU per query`,
  );
  const header = ['p50', 'p95', 'QPS', 'CPU'].map((cell) => pad(cell, 9, true)).join('');
  console.log(`${pad('search', 18)}${header}   ${pad('baseline, same chunks', 20)}${header}   baseline p50 / ours`);
  console.log(searchRow('lexical (BM25F)', search.lexical, 'MiniSearch', measure.miniSearch ?? undefined));
  console.log(searchRow('vector (cosine)', search.embedding, 'brute-force cosine', measure.bruteForce));
  console.log(searchRow('hybrid (fused)', search.hybrid, '', undefined));
  const fallbacks = search.lexical.fallbacks + search.embedding.fallbacks + search.hybrid.fallbacks;
  if (fallbacks > 0) console.log(`WARNING: ${fallbacks} searches fell back to another mode`);
  console.log(
    `  vector recall@10 against brute force: the index ${measure.bruteForce.indexRecallAt10.toFixed(3)}, the service's results (diversified by document) ${measure.bruteForce.recallAt10.toFixed(3)}, over ${measure.bruteForce.recallQueries} queries; MiniSearch timed on ${measure.miniSearch?.count ?? 0} of them; query embedding ${measure.queryEmbeddingMicroseconds.toFixed(0)} µs (in the vector and hybrid times)`,
  );
  console.log(
    `  build (all modes' indexes): ${build.seconds.toFixed(1)} s ${flags['over-http'] ? 'through POST /tools/ingest (embedded by the provider double)' : `in IngestService (hash embedding ${build.embedSeconds.toFixed(1)} s of it)`}, ${whole(build.chunksPerSecond)} chunks/s (step CPU ${build.cpuSeconds.toFixed(1)} s), ` +
      `${build.ingestCalls} ingest calls of <= ${batch} documents at concurrency ${build.concurrency}, ${whole(build.diskMegabytes)} MB on disk, build peak RSS ${whole(build.memory.peakRss)} MB`,
  );
  const slope = ingestSlope(build);
  console.log(
    `  ingest slope: ${slope.wall.start.toFixed(1)} s per 100,000 chunks in the first tenth (CPU ${slope.cpu.start.toFixed(1)} s), ` +
      `${slope.wall.end.toFixed(1)} s in the last (CPU ${slope.cpu.end.toFixed(1)} s): last / first ${slope.wall.ratio.toFixed(2)} (CPU ${slope.cpu.ratio.toFixed(2)})`,
  );
  console.log(
    `  start-up load (KnowledgeStore.initialize): ${measure.loadSeconds.toFixed(2)} s (CPU ${measure.loadCpuSeconds.toFixed(2)} s), RSS after load ${whole(measure.afterLoad.rss)} MB ` +
      `(JS heap ${whole(measure.afterLoad.heapUsed)} MB, typed arrays ${whole(measure.afterLoad.arrayBuffers)} MB), peak while loading ${whole(measure.afterLoad.peakRss)} MB`,
  );
  console.log(
    `  peak RSS: ${whole(measure.service.peakRss)} MB loaded + searched + ingested into; ${whole(agent.memory.peakRss)} MB for the app serving /agent; target figure ${whole(servicePeak)} MB`,
  );
  console.log(
    `  one small document (${measure.singleIngest.chunksEach.toFixed(1)} chunks) into the loaded namespace, durable write included: ` +
      `p50 ${milliseconds(measure.singleIngest.p50)} ms, p95 ${milliseconds(measure.singleIngest.p95)} ms over ${measure.singleIngest.count}; ` +
      `a lexical search right after each: p50 ${milliseconds(measure.searchAfterIngest.p50)} ms, p95 ${milliseconds(measure.searchAfterIngest.p95)} ms`,
  );
  console.log(
    `  POST /agent (hybrid retrieval, instant provider double, ${agent.firstByte.count} requests${agent.failures > 0 ? `, ${agent.failures} FAILED` : ''}): ` +
      `headers p50 ${milliseconds(agent.headers.p50)} ms; first SSE byte p50 ${milliseconds(agent.firstByte.p50)} ms, p95 ${milliseconds(agent.firstByte.p95)} ms; first answer text p50 ${milliseconds(agent.firstText.p50)} ms; ` +
      `complete p50 ${milliseconds(agent.complete.p50)} ms; app start-up ${agent.startupSeconds.toFixed(2)} s`,
  );
  console.log(
    `  baselines: ${measure.miniSearch === null ? 'MiniSearch not built at this size (it outgrows the heap)' : `MiniSearch build ${measure.miniSearch.buildSeconds.toFixed(1)} s, +${whole(measure.miniSearch.rssMegabytes)} MB RSS`}; brute-force vectors set up in ${measure.bruteForce.setupSeconds.toFixed(1)} s`,
  );
  console.log(`  wall time for this size: ${whole(result.wallSeconds)} s`);
}

interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly pass: boolean;
}

function checkTargets(result: SizeResult): TargetCheck[] {
  const { build, measure, agent } = result;
  const peak = Math.max(measure.service.peakRss, agent.memory.peakRss);
  const slope = ingestSlope(build);
  return [
    {
      target: 'ingest: last tenth <= 1.3x the first',
      measured: `${slope.wall.ratio.toFixed(2)}x (CPU ${slope.cpu.ratio.toFixed(2)}x)`,
      pass: slope.wall.ratio <= 1.3,
    },
    { target: 'lexical p50 <= 1 ms', measured: `${milliseconds(measure.search.lexical.p50)} ms`, pass: measure.search.lexical.p50 <= 1 },
    {
      target: 'vector p50 <= 10 ms, recall@10 >= 0.95',
      measured: `${milliseconds(measure.search.embedding.p50)} ms, recall@10 ${measure.bruteForce.indexRecallAt10.toFixed(3)}`,
      pass: measure.search.embedding.p50 <= 10 && measure.bruteForce.indexRecallAt10 >= 0.95,
    },
    { target: 'hybrid p50 <= 12 ms', measured: `${milliseconds(measure.search.hybrid.p50)} ms`, pass: measure.search.hybrid.p50 <= 12 },
    {
      target: 'start-up load <= 2 s',
      measured: `${measure.loadSeconds.toFixed(2)} s (CPU ${measure.loadCpuSeconds.toFixed(2)} s)`,
      pass: measure.loadSeconds <= 2,
    },
    { target: 'peak RSS <= 700 MB', measured: `${whole(peak)} MB`, pass: peak <= 700 },
    {
      target: 'one small document ingest p50 <= 300 ms',
      measured: `${milliseconds(measure.singleIngest.p50)} ms (p95 ${milliseconds(measure.singleIngest.p95)} ms)`,
      pass: measure.singleIngest.p50 <= 300,
    },
    {
      target: '/agent first SSE byte p50 <= 20 ms',
      measured: `${milliseconds(agent.firstByte.p50)} ms${agent.failures > 0 ? `, ${agent.failures} failed runs` : ''}`,
      pass: agent.firstByte.p50 <= 20 && agent.failures === 0,
    },
  ];
}

const machine = {
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  node: process.version,
  loadAverageAtStart: loadavg().map((value) => Number(value.toFixed(2))),
};
console.error(
  `scale benchmark: sizes ${sizes.join(', ')}; ${machine.cpus} CPUs (${machine.cpuModel}), load average ${machine.loadAverageAtStart.join(' ')}`,
);
const results: SizeResult[] = [];
async function save(): Promise<void> {
  await mkdir(fileURLToPath(new URL('./.cache/', import.meta.url)), { recursive: true });
  const largest = results.at(-1);
  await writeFile(
    resultsFile,
    `${JSON.stringify(
      {
        generatedAt: new Date().toISOString(),
        machine: { ...machine, loadAverageAtEnd: loadavg().map((value) => Number(value.toFixed(2))) },
        embedding: { model: hashEmbeddingId, dimensions: hashEmbeddingDimensions },
        sizes: results,
        targets: largest === undefined ? [] : { chunks: largest.target, checks: checkTargets(largest) },
      },
      null,
      2,
    )}\n`,
  );
}

for (const size of sizes) {
  const result = await runSize(size);
  results.push(result);
  printSize(result);
  await save();
}

const largest = results.at(-1);
if (largest !== undefined) {
  const note = largest.target === 100_000 ? '' : ' (the targets are set for 100,000 chunks)';
  console.log(
    `\ntargets at ${largest.target.toLocaleString('en')} chunks, ${hashEmbeddingDimensions} dimensions, on this ${machine.cpus}-CPU machine${note}:`,
  );
  for (const check of checkTargets(largest)) console.log(`${check.pass ? 'PASS' : 'MISS'}  ${pad(check.target, 42)} ${check.measured}`);
  const busiest = Math.max(...machine.loadAverageAtStart, ...loadavg());
  if (busiest > machine.cpus) {
    console.log(
      `note: the machine was busy (load average up to ${busiest.toFixed(1)} on ${machine.cpus} CPUs): wall times include waiting for a CPU; the CPU figures do not`,
    );
  }
  console.log(`figures written to ${resultsFile}`);
}
