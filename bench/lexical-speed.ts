// Speed and memory of LexicalIndex at 100,000 chunks built from perturbed MS MARCO passages, plus tokenizer throughput.
// Run: npx tsx bench/lexical-speed.ts            (add --expose-gc after tsx for steadier memory figures)
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { LexicalIndex } from '../src/indexes/lexical-index.js';
import { tokenize } from '../src/indexes/tokenize.js';
import { seededRandom } from '../test/support/durability-documents.js';
import { requireSharedData, sharedDataDirectory } from './shared-data.js';

const chunkCount = 100_000;
const chunksPerPage = 20;
requireSharedData('msmarco-trecdl-5k');
const dataRoot = `${sharedDataDirectory}/msmarco-trecdl-5k`;
const lines = (file: string) =>
  readFileSync(`${dataRoot}/${file}`, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
const passages = lines('corpus.jsonl').map((line) => (JSON.parse(line) as { text: string }).text.split(/\s+/));
const queries = lines('queries.jsonl').map((line) => (JSON.parse(line) as { text: string }).text);
const vocabulary = [...new Set(passages.flat())];

/** Chunk `number`: 2-4 passages with ~10% of words dropped and ~5% replaced; pages of 20 chunks share a title. */
function makeChunk(number: number): { title: string; headings: string; body: string } {
  const random = seededRandom(number + 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const words: string[] = [];
  const passageCount = 2 + Math.floor(random() * 3);
  for (let index = 0; index < passageCount; index++) {
    for (const word of pick(passages)) {
      const roll = random();
      if (roll < 0.1) continue;
      words.push(roll < 0.15 ? pick(vocabulary) : word);
    }
  }
  const pageRandom = seededRandom(1_000_003 + Math.floor(number / chunksPerPage));
  const titleWords = passages[Math.floor(pageRandom() * passages.length)] ?? [];
  return {
    title: titleWords.slice(0, 3 + Math.floor(pageRandom() * 4)).join(' '),
    headings: words.slice(0, 2 + Math.floor(random() * 3)).join(' '),
    body: words.join(' '),
  };
}

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
// Two collections a tick apart, so that typed arrays dropped while growing have released their memory.
async function collect(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await sleep(50);
  gc?.();
}
const percentile = (sorted: readonly number[], share: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;

// Tokenizer throughput over the generated bodies.
{
  const sample = Array.from({ length: 5000 }, (_, number) => makeChunk(number).body);
  const bytes = sample.reduce((total, text) => total + Buffer.byteLength(text), 0);
  for (const text of sample) tokenize(text);
  const started = performance.now();
  for (let round = 0; round < 3; round++) for (const text of sample) tokenize(text);
  const seconds = (performance.now() - started) / 1000;
  console.log(`tokenize: ${((3 * bytes) / 1e6 / seconds).toFixed(1)} MB/s over ${megabytes(bytes)} of chunk text`);
}

await collect();
const before = process.memoryUsage();
const index = new LexicalIndex();
let wordTotal = 0;
const buildStarted = performance.now();
for (let number = 0; number < chunkCount; number++) {
  const chunk = makeChunk(number);
  wordTotal += chunk.body.split(' ').length;
  index.add(`chunk-${number}`, chunk);
}
const buildSeconds = (performance.now() - buildStarted) / 1000;
await collect();
const after = process.memoryUsage();
console.log(
  `build: ${chunkCount} chunks (${(wordTotal / chunkCount).toFixed(0)} body words each) in ${buildSeconds.toFixed(1)} s, ` +
    `${((buildSeconds * 1e6) / chunkCount).toFixed(0)} µs per chunk including generating it`,
);
console.log(
  `memory delta: rss ${megabytes(after.rss - before.rss)}, heapUsed ${megabytes(after.heapUsed - before.heapUsed)}, ` +
    `arrayBuffers ${megabytes(after.arrayBuffers - before.arrayBuffers)} (total rss ${megabytes(after.rss)})`,
);

function measureSearches(label: string): void {
  for (let round = 0; round < 3; round++) for (const query of queries) index.search(query, 10);
  const timings: number[] = [];
  for (let round = 0; round < 25; round++) {
    for (const query of queries) {
      const started = performance.now();
      index.search(query, 10);
      timings.push(performance.now() - started);
    }
  }
  timings.sort((left, right) => left - right);
  const average = timings.reduce((total, time) => total + time, 0) / timings.length;
  console.log(
    `${label}: ${timings.length} searches, p50 ${percentile(timings, 0.5).toFixed(3)} ms, ` +
      `p95 ${percentile(timings, 0.95).toFixed(3)} ms, max ${(timings.at(-1) ?? 0).toFixed(3)} ms, mean ${average.toFixed(3)} ms`,
  );
}
measureSearches('search (limit 10, 43 queries x 25)');

// Incremental work on the full index: new chunks, replacements, removals up to a compaction.
{
  const extra = 2000;
  let started = performance.now();
  for (let number = 0; number < extra; number++) index.add(`extra-${number}`, makeChunk(chunkCount + number));
  console.log(`add ${extra} more: ${(((performance.now() - started) * 1000) / extra).toFixed(0)} µs per chunk`);
  started = performance.now();
  for (let number = 0; number < extra; number++) index.add(`chunk-${number}`, makeChunk(chunkCount * 2 + number));
  console.log(`replace ${extra}: ${(((performance.now() - started) * 1000) / extra).toFixed(0)} µs per chunk`);
  started = performance.now();
  let slowest = 0;
  for (let number = extra; number < 30_000; number++) {
    const removeStarted = performance.now();
    index.remove(`chunk-${number}`);
    slowest = Math.max(slowest, performance.now() - removeStarted);
  }
  console.log(
    `remove 28000: ${(performance.now() - started).toFixed(0)} ms in all, slowest (the compaction) ${slowest.toFixed(0)} ms; size ${index.size}`,
  );
  measureSearches('search after removals');
}
