// Ingestion speed through the service's own IngestService + KnowledgeStore, without embedding calls: the 155 FastAPI
// Markdown pages (target <= 2 s) and the 196-page bash manual PDF (target <= 5 s, peak RSS measured in a child process);
// then the same FastAPI ingest against the loopback provider double, counting embedding requests per 1,000 chunks.
// Run: npx tsx bench/ingest-speed.ts [--runs 5] [--only fastapi|pdf|embeddings] [--all-pdfs] [--strict]
//   --all-pdfs: peak RSS of every shared PDF too (how memory grows with the document); --strict: exit 1 on a MISS.
// Wall time is the target; CPU time (user + system, all threads) is printed beside it because on a busy machine wall
// time mostly measures waiting for a core. CPU time leaves out waiting for the disk (the store fsyncs every write).
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { chunkMarkdown } from '../src/ingest/chunk-markdown.js';
import { DocumentConverter } from '../src/ingest/document-converter.js';
import { loadSource } from '../src/ingest/load-source.js';
import { createOpenAiCompatible } from '../src/providers/openai-compatible.js';
import { startProviderDouble } from '../test/support/provider-double.js';
import { bashManualPdf, fastapiDirectory, ingestFiles, markdownFiles, type IngestRun } from './ingest-speed-child.js';
import { requireSharedData, sharedDataDirectory } from './shared-data.js';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    only: { type: 'string' },
    'all-pdfs': { type: 'boolean', default: false },
    strict: { type: 'boolean', default: false },
  },
});
const runs = Number(flags.runs);
if (!Number.isInteger(runs) || runs < 1 || runs > 50) throw new Error(`--runs must be a whole number from 1 to 50 (got ${flags.runs})`);
const sections = ['fastapi', 'pdf', 'embeddings'];
if (flags.only !== undefined && !sections.includes(flags.only))
  throw new Error(`--only must be one of ${sections.join(', ')} (got ${flags.only})`);
const wanted = (section: string): boolean => flags.only === undefined || flags.only === section;
requireSharedData('docs-fastapi', join('pdfs', basename(bashManualPdf)));

const fastapiTargetMs = 2_000;
const pdfTargetMs = 5_000;
/** Simulated provider latency, so requests overlap the way they would against a remote provider. */
const providerDelayMs = 25;
const childScript = fileURLToPath(new URL('./ingest-speed-child.ts', import.meta.url));
const execute = promisify(execFile);
// As the service converts: PDFs in a worker thread (process.cpuUsage counts every thread of the process).
const converter = new DocumentConverter({ workers: 1 });
const limits = {
  maxSourceBytes: 6 * 1024 * 1024,
  maxTextBytes: 200 * 1024,
  downloadTimeoutMs: 15_000,
  allowPrivateUrls: false,
  fileRoots: [sharedDataDirectory],
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const milliseconds = (value: number): string => `${Math.round(value).toLocaleString('en-US')} ms`;
const megabytes = (kilobytes: number): string => `${(kilobytes / 1024).toFixed(0)} MB`;
const verdict = (value: number, target: number): string => (value <= target ? 'PASS' : 'MISS');
const load = (): string => `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`;

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function checked(label: string, result: IngestRun): IngestRun {
  if (result.failures.length > 0) throw new Error(`${label}: ${result.failures.length} sources failed, first: ${result.failures[0]}`);
  return result;
}

interface ChildReport {
  readonly maxRssKb: number;
  readonly ms?: number;
  readonly cpuMs?: number;
  readonly chunks?: number;
  readonly failures?: string[];
}

/** Runs the child script in a fresh process (the tsx loader included, as in the baselines) and parses its JSON line. */
async function child(...args: string[]): Promise<ChildReport> {
  const { stdout } = await execute(process.execPath, ['--import', import.meta.resolve('tsx'), childScript, ...args], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const report = JSON.parse(stdout.trim().split('\n').pop() ?? '') as ChildReport;
  if ((report.failures?.length ?? 0) > 0) throw new Error(`${args.join(' ')}: ${report.failures?.[0]}`);
  return report;
}

/** CPU time (user + system) of `work`, in milliseconds. */
async function cpuTimed<T>(work: () => Promise<T>): Promise<{ value: T; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}

/** CPU time of load + convert, then of chunking, of `paths` on their own (medians of `repeats`): the parts in src/ingest. */
async function stageCpu(paths: readonly string[], repeats: number): Promise<{ loadMs: number; chunkMs: number }> {
  const loadMs: number[] = [];
  const chunkMs: number[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    const loaded = await cpuTimed(async () => {
      const bodies: string[] = [];
      for (const path of paths) bodies.push((await loadSource({ kind: 'file', path }, limits, converter)).markdown.trim());
      return bodies;
    });
    const chunked = await cpuTimed(async () => {
      for (const body of loaded.value) chunkMarkdown(body);
    });
    loadMs.push(loaded.cpuMs);
    chunkMs.push(chunked.cpuMs);
  }
  return { loadMs: median(loadMs), chunkMs: median(chunkMs) };
}

interface Timing {
  readonly label: string;
  readonly target: number;
  readonly ms: number;
  readonly bestMs: number;
  readonly cpuMs: number;
  readonly chunks: number;
  readonly stages: readonly (readonly [string, number])[];
}

const fastapiFiles = await markdownFiles(fastapiDirectory);
console.log(`ingest speed, ${runs} runs each (embedding calls only in the last section); ${load()}`);
const timings: Timing[] = [];
const summaries: string[] = [];

// 1. The FastAPI pages, in this process, each run into a fresh storage root (the first run also pays for warm-up).
if (wanted('fastapi')) {
  const measured: IngestRun[] = [];
  for (let index = 0; index < runs; index++) {
    const run = checked('FastAPI', await ingestFiles(fastapiFiles));
    measured.push(run);
    console.log(
      `  FastAPI run ${index + 1}: ${milliseconds(run.ms)} wall, ${milliseconds(run.cpuMs)} CPU, ${run.documents} documents, ${run.chunks} chunks`,
    );
  }
  const cpuMs = median(measured.map((run) => run.cpuMs));
  const stages = await stageCpu(fastapiFiles, runs);
  timings.push({
    label: `FastAPI pages (${fastapiFiles.length} .md files)`,
    target: fastapiTargetMs,
    ms: median(measured.map((run) => run.ms)),
    bestMs: Math.min(...measured.map((run) => run.ms)),
    cpuMs,
    chunks: measured[0]?.chunks ?? 0,
    stages: [
      ['read + front matter', stages.loadMs],
      ['chunking', stages.chunkMs],
      ['store: files, index, lexical index (rest)', Math.max(0, cpuMs - stages.loadMs - stages.chunkMs)],
    ],
  });
}

// 2. The bash manual, each run in a fresh child process; peak RSS minus that of a child that only imports the modules.
if (wanted('pdf')) {
  const measured: ChildReport[] = [];
  const baselineKb: number[] = [];
  const pdfjsBaselineKb: number[] = [];
  for (let index = 0; index < runs; index++) {
    baselineKb.push((await child('baseline')).maxRssKb);
    pdfjsBaselineKb.push((await child('baseline-pdfjs')).maxRssKb);
    const run = await child('file', bashManualPdf);
    measured.push(run);
    console.log(
      `  PDF run ${index + 1}: ${milliseconds(run.ms ?? 0)} wall, ${milliseconds(run.cpuMs ?? 0)} CPU, ${run.chunks} chunks, peak RSS ${megabytes(run.maxRssKb)} (baseline ${megabytes(baselineKb[index] ?? 0)})`,
    );
  }
  const cpuMs = median(measured.map((run) => run.cpuMs ?? 0));
  const stages = await stageCpu([bashManualPdf], Math.min(runs, 3));
  timings.push({
    label: `${basename(bashManualPdf)} (196 pp)`,
    target: pdfTargetMs,
    ms: median(measured.map((run) => run.ms ?? 0)),
    bestMs: Math.min(...measured.map((run) => run.ms ?? 0)),
    cpuMs,
    chunks: measured[0]?.chunks ?? 0,
    stages: [
      ['read + PDF to Markdown (pdf.js)', stages.loadMs],
      ['chunking', stages.chunkMs],
      ['store, loading pdf.js on first use, warm-up (rest)', Math.max(0, cpuMs - stages.loadMs - stages.chunkMs)],
    ],
  });
  const peakKb = median(measured.map((run) => run.maxRssKb));
  const baseline = median(baselineKb);
  summaries.push(
    `PDF peak RSS: ${megabytes(peakKb - baseline)} over a child that only imports the modules (${megabytes(peakKb)} - ${megabytes(baseline)}); ` +
      `loading pdf.js alone accounts for ${megabytes(median(pdfjsBaselineKb) - baseline)}`,
  );
  if (flags['all-pdfs']) {
    const directory = join(sharedDataDirectory, 'pdfs');
    const rows: string[][] = [['PDF', 'wall', 'CPU', 'chunks', 'peak RSS over baseline']];
    for (const name of (await readdir(directory)).filter((file) => file.endsWith('.pdf')).sort()) {
      const run = await child('file', join(directory, name));
      rows.push([
        name,
        milliseconds(run.ms ?? 0),
        milliseconds(run.cpuMs ?? 0),
        String(run.chunks ?? 0),
        megabytes(run.maxRssKb - baseline),
      ]);
    }
    summaries.push(`every shared PDF, one child each:\n${table(rows)}`);
  }
}

// 3. Embedding batching: the OpenAI-compatible adapter with the service's defaults, against the loopback double.
if (wanted('embeddings')) {
  const double = await startProviderDouble({ embeddingDelayMs: providerDelayMs });
  try {
    const provider = createOpenAiCompatible({
      apiKey: 'sk-bench-0123456789',
      baseUrl: double.baseUrl,
      chatModel: 'gpt-4o-mini',
      embeddingModel: 'text-embedding-3-small',
      temperature: 0.2,
    });
    const run = checked('FastAPI with embeddings', await ingestFiles(fastapiFiles, provider.embeddings));
    const inputs = double.embeddingRequests().map((request) => (Array.isArray(request.body?.input) ? request.body.input.length : 1));
    const inputTotal = inputs.reduce((total, count) => total + count, 0);
    summaries.push(
      `embedding calls at ingest (${fastapiFiles.length} FastAPI pages, ${run.chunks} chunks, the double answering after ${providerDelayMs} ms):\n` +
        table([
          ['requests', 'per 1,000 chunks', 'inputs/request (mean, min-max)', 'max in flight', 'wall'],
          [
            String(inputs.length),
            ((inputs.length / run.chunks) * 1000).toFixed(1),
            `${(inputTotal / Math.max(1, inputs.length)).toFixed(1)}, ${Math.min(...inputs)}-${Math.max(...inputs)}`,
            String(double.maxEmbeddingRequestsInFlight),
            milliseconds(run.ms),
          ],
        ]) +
        (inputTotal === run.chunks ? '' : `\nnote: ${inputTotal} inputs embedded for ${run.chunks} chunks`),
    );
  } finally {
    await double.close();
  }
}

console.log('');
if (timings.length > 0) {
  console.log(
    table([
      ['ingest (stages: CPU, measured apart)', 'median wall', 'best wall', 'median CPU', 'chunks', 'chunks/s', 'target', 'wall', 'CPU'],
      ...timings.flatMap((timing) => [
        [
          timing.label,
          milliseconds(timing.ms),
          milliseconds(timing.bestMs),
          milliseconds(timing.cpuMs),
          String(timing.chunks),
          (timing.chunks / (timing.ms / 1000)).toFixed(0),
          `<= ${milliseconds(timing.target)}`,
          verdict(timing.ms, timing.target),
          verdict(timing.cpuMs, timing.target),
        ],
        ...timing.stages.map(([stage, cpuMs]) => [`  ${stage}`, '', '', milliseconds(cpuMs), '', '', '', '', '']),
      ]),
    ]),
  );
  console.log('');
}
for (const summary of summaries) console.log(`${summary}\n`);
for (const timing of timings) {
  console.log(
    `${verdict(timing.ms, timing.target)} ${timing.label} <= ${milliseconds(timing.target)}: median ${milliseconds(timing.ms)} wall (CPU ${milliseconds(timing.cpuMs)})`,
  );
}
console.log(`(${load()} at the end)`);
if (flags.strict && timings.some((timing) => timing.ms > timing.target)) process.exitCode = 1;
