// Vector search past 100,000 chunks: exact search against the inverted lists (src/indexes/inverted-lists.ts), and
// usearch's HNSW when it is installed (`npm install --no-save usearch@2` first; it is not a dependency), on the chunks
// of the scale benchmark's corpus (bench/scale-corpus.ts, ../shared/data) with its hash embedding. Reports, per index:
// build time (adds, training included), p50/p95 search time for the top 10, recall@10 against exact search, and the
// memory the index added. Probes are swept for the inverted lists, the search width for usearch.
// Run: npm run bench:vectors -- [--chunks 1000000] [--queries 300]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chunkMarkdown } from '../src/ingest/chunk-markdown.js';
import { embeddingText } from '../src/embedding/embedding-text.js';
import { defaultApproximateSearch, VectorIndex } from '../src/indexes/vector-index.js';
import { joinedRows } from '../src/indexes/unit-rows.js';
import { hashEmbed, hashEmbeddingDimensions as dimensions } from './hash-embedding.js';
import { loadScaleCorpus } from './scale-corpus.js';
import { percentile } from './percentile.js';

const { values: flags } = parseArgs({
  options: {
    chunks: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '300' },
    probes: { type: 'string', default: '64,128,192,256,320,352' },
    lists: { type: 'string', default: String(defaultApproximateSearch.training.listCount) },
    usearch: { type: 'boolean', default: true },
  },
  allowNegative: true,
});
const chunkTarget = Number(flags.chunks);
const queryCount = Number(flags.queries);
const progress = (message: string) => process.stderr.write(`${message}\n`);
const megabytes = () => (process.memoryUsage().rss / 2 ** 20).toFixed(0);

const corpus = loadScaleCorpus();
const started = performance.now();
const vectors: Float32Array[] = [];
for (let number = 0; vectors.length < chunkTarget; number++) {
  const document = corpus.document(number);
  for (const chunk of chunkMarkdown(document.text)) {
    if (vectors.length >= chunkTarget) break;
    vectors.push(hashEmbed(embeddingText(document.title, chunk.headingPath, chunk.text)));
  }
}
const queries = corpus.queries.slice(0, queryCount).map(hashEmbed);
progress(
  `${vectors.length} chunk vectors and ${queries.length} queries embedded in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

function timed<T>(run: (query: Float32Array) => T): { results: T[]; p50: number; p95: number } {
  for (const query of queries.slice(0, 20)) run(query); // warm-up
  const samples: number[] = [];
  const results = queries.map((query) => {
    const start = performance.now();
    const result = run(query);
    samples.push(performance.now() - start);
    return result;
  });
  return { results, p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) };
}

function recallAt10(found: readonly (readonly string[])[], exact: readonly (readonly string[])[]): number {
  let total = 0;
  found.forEach((keys, index) => {
    const wanted = new Set(exact[index]);
    total += keys.filter((key) => wanted.has(key)).length / Math.max(1, wanted.size);
  });
  return total / found.length;
}

function build(approximate: typeof defaultApproximateSearch): { index: VectorIndex; seconds: number; addedMb: number } {
  globalThis.gc?.();
  const before = process.memoryUsage();
  const start = performance.now();
  const index = new VectorIndex(dimensions, 64, approximate);
  vectors.forEach((vector, row) => index.add(`c${row}`, vector));
  const seconds = (performance.now() - start) / 1000;
  globalThis.gc?.();
  const after = process.memoryUsage();
  const addedMb = (after.rss - before.rss) / 2 ** 20;
  return { index, seconds, addedMb };
}

const rows: string[] = [];
const exactBuild = build({ ...defaultApproximateSearch, fromRows: Number.POSITIVE_INFINITY });
const exact = timed((query) => exactBuild.index.search(query, 10).map((hit) => hit.key));
progress(`exact: built in ${exactBuild.seconds.toFixed(1)} s, p50 ${exact.p50.toFixed(2)} ms (rss ${megabytes()} MB)`);
rows.push(
  `| exact (int8 scan + float32 rescoring) | ${exactBuild.seconds.toFixed(1)} s | ${exact.p50.toFixed(2)} / ${exact.p95.toFixed(2)} ms | 1.000 | ${exactBuild.addedMb.toFixed(0)} MB |`,
);

const fromRows = Math.min(defaultApproximateSearch.fromRows, vectors.length);
const training = { ...defaultApproximateSearch.training, listCount: Number(flags.lists) };
const listsBuild = build({ ...defaultApproximateSearch, fromRows, training });
const liveRows = listsBuild.index.liveRows();
const live = { ...liveRows, rows: joinedRows(liveRows.rows(), liveRows.keys.length * dimensions) };
for (const probes of (flags.probes ?? '').split(',').map(Number)) {
  // Exactly `probes` lists: the default's floor on the rows scanned is what is being chosen here.
  const index = VectorIndex.fromRows(dimensions, live.keys, live.rows, live.lists, {
    ...defaultApproximateSearch,
    probes,
    scannedRows: 0,
    fromRows,
    training,
  });
  const found = timed((query) => index.search(query, 10).map((hit) => hit.key));
  const recall = recallAt10(found.results, exact.results);
  progress(`inverted lists, ${probes} probes: p50 ${found.p50.toFixed(2)} ms, recall@10 ${recall.toFixed(3)}`);
  rows.push(
    `| inverted lists (${training.listCount} lists), ${probes} probes | ${listsBuild.seconds.toFixed(1)} s | ${found.p50.toFixed(2)} / ${found.p95.toFixed(2)} ms | ${recall.toFixed(3)} | ${listsBuild.addedMb.toFixed(0)} MB |`,
  );
}

{
  const index = VectorIndex.fromRows(dimensions, live.keys, live.rows, live.lists, { ...defaultApproximateSearch, fromRows, training });
  const found = timed((query) => index.search(query, 10).map((hit) => hit.key));
  const recall = recallAt10(found.results, exact.results);
  const { probes, scannedRows } = defaultApproximateSearch;
  progress(`inverted lists, the default: p50 ${found.p50.toFixed(2)} ms, recall@10 ${recall.toFixed(3)}`);
  rows.push(
    `| **the default**: inverted lists, ${probes} probes or more until ${scannedRows} rows | ${listsBuild.seconds.toFixed(1)} s | ${found.p50.toFixed(2)} / ${found.p95.toFixed(2)} ms | ${recall.toFixed(3)} | ${listsBuild.addedMb.toFixed(0)} MB |`,
  );
}

if (flags.usearch) await compareUsearch();

console.log(`\n${vectors.length} chunks, ${queries.length} queries, top 10, ${dimensions} dimensions\n`);
console.log('| index | build | search p50 / p95 | recall@10 | memory added |');
console.log('|---|---|---|---|---|');
for (const row of rows) console.log(row);

interface UsearchIndex {
  add(keys: BigUint64Array, vectors: Float32Array, threads?: number): void;
  search(vector: Float32Array, k: number, threads: number): { keys: BigUint64Array };
  save(path: string): void;
  load(path: string): void;
}

/** usearch's HNSW (int8, cosine) on the same vectors: built once, then searched at several widths (saved and reloaded). */
async function compareUsearch(): Promise<void> {
  let usearch: { Index: new (options: Record<string, unknown>) => UsearchIndex };
  try {
    usearch = (await import('usearch' as string)) as typeof usearch;
  } catch {
    progress('usearch is not installed: `npm install --no-save usearch@2` to compare it');
    return;
  }
  const settings = { metric: 'cos', dimensions, connectivity: 16, quantization: 'i8', expansion_add: 128 };
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const start = performance.now();
  const built = new usearch.Index({ ...settings, expansion_search: 64 });
  const batch = 10_000;
  for (let first = 0; first < vectors.length; first += batch) {
    const slice = vectors.slice(first, first + batch);
    const matrix = new Float32Array(slice.length * dimensions);
    slice.forEach((vector, row) => matrix.set(vector, row * dimensions));
    built.add(
      BigUint64Array.from(slice, (_, row) => BigInt(first + row)),
      matrix,
      0,
    ); // every core
  }
  const seconds = (performance.now() - start) / 1000;
  const addedMb = (process.memoryUsage().rss - before) / 2 ** 20;
  progress(`usearch built in ${seconds.toFixed(1)} s on every core`);
  const directory = await mkdtemp(join(tmpdir(), 'bench-usearch-'));
  try {
    const path = join(directory, 'index.usearch');
    built.save(path);
    for (const expansionSearch of [64, 256, 1024]) {
      const index = new usearch.Index({ ...settings, expansion_search: expansionSearch });
      index.load(path);
      const found = timed((query) => Array.from(index.search(query, 10, 1).keys, (key) => `c${key}`));
      const recall = recallAt10(found.results, exact.results);
      progress(`usearch ef ${expansionSearch}: p50 ${found.p50.toFixed(2)} ms, recall@10 ${recall.toFixed(3)}`);
      rows.push(
        `| usearch HNSW i8, M 16, ef_add 128, ef ${expansionSearch} | ${seconds.toFixed(1)} s (2 threads) | ${found.p50.toFixed(2)} / ${found.p95.toFixed(2)} ms | ${recall.toFixed(3)} | ${addedMb.toFixed(0)} MB |`,
      );
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
