// Speed of the local embedding model: load time, query latency, ingest throughput per number of bulk workers and
// threads, and the longest event-loop stall an ingest causes (what a concurrent search waits at most).
// Run: npx tsx bench/local-embedding-speed.ts
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Tokenizer } from '@huggingface/tokenizers';
import { tokenize } from '../src/providers/local-embedding-inference.js';
import { createLocalEmbeddingModel, defaultModelDirectory } from '../src/providers/local-embedding-model.js';
import { requireSharedData, sharedDataDirectory } from './shared-data.js';

requireSharedData('msmarco-trecdl-5k');
const dataRoot = join(sharedDataDirectory, 'msmarco-trecdl-5k');
const documentCount = 500;
const queryCount = 100;
const maxTokens = 256;
const lines = (file: string) =>
  readFileSync(join(dataRoot, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
const documents = lines('corpus.jsonl')
  .slice(0, documentCount)
  .map((line) => JSON.parse(line) as { title?: string; text: string })
  .map((passage) => (passage.title ? `${passage.title}\n${passage.text}` : passage.text));
const queries = lines('queries.jsonl')
  .slice(0, queryCount)
  .map((line) => (JSON.parse(line) as { text: string }).text);

const readJson = (file: string): object => JSON.parse(readFileSync(join(defaultModelDirectory, file), 'utf8')) as object;
const tokenizer = new Tokenizer(readJson('tokenizer.json'), readJson('tokenizer_config.json'));
const tokenTotal = documents.reduce((total, text) => total + tokenize(tokenizer, text, maxTokens).length, 0);

const percentile = (values: readonly number[], share: number): number => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
};
const milliseconds = (value: number): string => `${value.toFixed(1)} ms`;

// Other processes skew every figure (two threads suffer most): the load average says how busy the machine was.
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
console.log(
  `${availableParallelism()} CPUs, load average ${load()}; ${documents.length} passages, ${tokenTotal} tokens (${(tokenTotal / documents.length).toFixed(0)} per passage, at most ${maxTokens}); ${queries.length} queries`,
);

/** Bulk workers and onnxruntime threads in each; the service runs one single-threaded worker per core (two at most). */
const layouts = [
  { workers: 1, threads: 1 },
  { workers: 1, threads: 2 },
  { workers: 2, threads: 1 },
];

const loadStarted = performance.now();
const model = await createLocalEmbeddingModel({ maxTokens });
const loadTime = performance.now() - loadStarted;
await model.embed(queries.slice(0, 5)); // warm-up
const latencies: number[] = [];
for (const query of queries) {
  const started = performance.now();
  await model.embed([query]);
  latencies.push(performance.now() - started);
}
await model.close?.();
console.log(
  `load ${milliseconds(loadTime)}; one query p50 ${milliseconds(percentile(latencies, 0.5))}, p95 ${milliseconds(percentile(latencies, 0.95))}`,
);

for (const { workers, threads } of layouts) {
  const bulk = await createLocalEmbeddingModel({ workers, threads, maxTokens });
  await bulk.embed(documents.slice(0, 8));
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = performance.now();
  // A search arriving during the ingest: its query has a worker of its own.
  const ingest = bulk.embed(documents);
  const concurrent: number[] = [];
  let ingestDone = false;
  void ingest.then(() => (ingestDone = true));
  while (!ingestDone) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const queryStarted = performance.now();
    await bulk.embed([queries[concurrent.length % queries.length] as string]);
    concurrent.push(performance.now() - queryStarted);
  }
  await ingest;
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  await bulk.close?.();
  console.log(
    `  ${`${workers} worker(s) of ${threads} thread(s)`.padEnd(26)} ${(tokenTotal / seconds).toFixed(0).padStart(5)} tokens/s, ${(documents.length / seconds).toFixed(1).padStart(5)} documents/s; ` +
      `longest event-loop stall ${milliseconds(delay.max / 1e6)}; a query during the ingest p50 ${milliseconds(percentile(concurrent, 0.5))}, max ${milliseconds(Math.max(...concurrent))}`,
  );
}
console.log(`\nload average ${load()}`);
