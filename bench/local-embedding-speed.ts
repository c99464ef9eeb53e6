// Speed of the local embedding model: load time, query latency, ingest throughput per batch size and thread count,
// and the longest event-loop stall an ingest causes (what a concurrent search waits at most).
// Run: npx tsx bench/local-embedding-speed.ts
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Tokenizer } from '@huggingface/tokenizers';
import { createLocalEmbeddingModel, defaultModelDirectory, tokenize } from '../src/providers/local-embedding-model.js';

const dataRoot = '/work/shared/data/msmarco-trecdl-5k';
const documentCount = 500;
const queryCount = 100;
const maxTokens = 256;
const lines = (file: string) => readFileSync(join(dataRoot, file), 'utf8').split('\n').filter((line) => line.trim() !== '');
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

console.log(`${availableParallelism()} CPUs; ${documents.length} passages, ${tokenTotal} tokens (${(tokenTotal / documents.length).toFixed(0)} per passage, at most ${maxTokens}); ${queries.length} queries`);

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
  console.log(`\nthreads ${threads}: load ${milliseconds(loadTime)}; one query p50 ${milliseconds(percentile(latencies, 0.5))}, p95 ${milliseconds(percentile(latencies, 0.95))}`);

  for (const batchSize of [8, 16, 32, 64]) {
    const batched = await createLocalEmbeddingModel({ threads, maxTokens, batchSize });
    await batched.embed(documents.slice(0, batchSize));
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    await batched.embed(documents);
    const seconds = (performance.now() - started) / 1000;
    delay.disable();

    // A search arriving during an ingest: its query waits for the running batch, then goes in between.
    const ingest = batched.embed([...documents, ...documents]);
    const concurrent: number[] = [];
    for (const query of queries.slice(0, 20)) {
      const queryStarted = performance.now();
      await batched.embed([query]);
      concurrent.push(performance.now() - queryStarted);
    }
    await ingest;

    console.log(
      `  batch ${String(batchSize).padStart(2)}: ${(tokenTotal / seconds).toFixed(0).padStart(5)} tokens/s, ${(documents.length / seconds).toFixed(1).padStart(5)} documents/s; ` +
        `longest event-loop stall ${milliseconds(delay.max / 1e6)}; a query during an ingest p50 ${milliseconds(percentile(concurrent, 0.5))}, max ${milliseconds(Math.max(...concurrent))}`,
    );
  }
}
