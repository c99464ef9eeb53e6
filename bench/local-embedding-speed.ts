// Speed of the local embedding model: load time, query latency, ingest throughput per batch size and thread count,
// and the longest event-loop stall an ingest causes (what a concurrent search waits at most).
// Run: npx tsx bench/local-embedding-speed.ts
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Tokenizer } from '@huggingface/tokenizers';
import { tokenize } from '../src/providers/local-embedding-inference.js';
import { createLocalEmbeddingModel, defaultModelDirectory } from '../src/providers/local-embedding-model.js';
import { fileURLToPath } from 'node:url';

const dataRoot = fileURLToPath(new URL('../../shared/data/msmarco-trecdl-5k', import.meta.url));
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

const unlimited = Number.MAX_SAFE_INTEGER;
const batchings: { name: string; batchSize: number; maxBatchTokens: number }[] = [
  { name: 'batch 8', batchSize: 8, maxBatchTokens: unlimited },
  { name: 'batch 32', batchSize: 32, maxBatchTokens: unlimited },
  { name: 'batch 64', batchSize: 64, maxBatchTokens: unlimited },
  { name: 'batch 32, 2048 tokens', batchSize: 32, maxBatchTokens: 2048 },
  { name: 'batch 32, 1024 tokens', batchSize: 32, maxBatchTokens: 1024 },
  { name: 'batch 32, 512 tokens (default)', batchSize: 32, maxBatchTokens: 512 },
  { name: 'batch 32, 256 tokens', batchSize: 32, maxBatchTokens: 256 },
];

for (const threads of [1, 2]) {
  const loadStarted = performance.now();
  const model = await createLocalEmbeddingModel({ threads, maxTokens });
  const loadTime = performance.now() - loadStarted;
  await model.embed(queries.slice(0, 5)); // warm-up

  const latencies: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await model.embed([query]);
    latencies.push(performance.now() - started);
  }
  console.log(
    `\nthreads ${threads}: load ${milliseconds(loadTime)}; one query p50 ${milliseconds(percentile(latencies, 0.5))}, p95 ${milliseconds(percentile(latencies, 0.95))}`,
  );

  for (const { name, batchSize, maxBatchTokens } of batchings) {
    const batched = await createLocalEmbeddingModel({ threads, maxTokens, batchSize, maxBatchTokens });
    await batched.embed(documents.slice(0, 8));
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    // A search arriving during the ingest: its query waits for the running batch, then goes in between.
    const ingest = batched.embed(documents);
    const concurrent: number[] = [];
    let ingestDone = false;
    void ingest.then(() => (ingestDone = true));
    while (!ingestDone) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const queryStarted = performance.now();
      await batched.embed([queries[concurrent.length % queries.length] as string]);
      concurrent.push(performance.now() - queryStarted);
    }
    await ingest;
    const seconds = (performance.now() - started) / 1000;
    delay.disable();
    console.log(
      `  ${name.padEnd(32)} ${(tokenTotal / seconds).toFixed(0).padStart(5)} tokens/s, ${(documents.length / seconds).toFixed(1).padStart(5)} documents/s; ` +
        `longest event-loop stall ${milliseconds(delay.max / 1e6)}; a query during the ingest p50 ${milliseconds(percentile(concurrent, 0.5))}, max ${milliseconds(Math.max(...concurrent))}`,
    );
  }
}
console.log(`\nload average ${load()}`);
