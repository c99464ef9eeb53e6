// More namespaces than the memory budget holds: 200 namespaces of 10,000 chunks and one of 100,000, served by one
// KnowledgeStore whose KNOWLEDGE_AGENT_MEMORY_BUDGET holds a fifth of the small ones. Measures the first query on a
// closed namespace (it is opened, searched, and the least recently used are dropped), a query on a loaded one, the
// first query on the closed 100,000-chunk namespace (target <= 2 s), how many stay loaded, evictions and memory.
// The namespaces are built once (bench/scale-child.ts build: the service's IngestService, the hash embedding) into
// bench/.cache/namespaces-seed, and the 200 are hard-linked copies of one seed in bench/.cache/namespaces: identical
// contents, each loaded as its own namespace (the page cache holds the files once, so loads read from memory, as
// they do on a server whose disk cache is warm). Writes bench/.cache/namespaces-results.json.
// Run: nice -n 10 npm run bench:namespaces [-- --namespaces 200 --chunks 10000 --big 100000 --share 5]
import { spawn } from 'node:child_process';
import { copyFile, link, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ChunkEmbedder } from '../src/embedding/chunk-embedder.js';
import { chunkMarkdown } from '../src/ingest/chunk-markdown.js';
import { SearchService } from '../src/search/search-service.js';
import { journalFileName } from '../src/store/folder/index-files.js';
import { KnowledgeStore } from '../src/store/knowledge-store.js';
import { createHashEmbeddingModel, hashEmbeddingId } from './hash-embedding.js';
import { loadScaleCorpus } from './scale-corpus.js';
import { sanitizeNamespace } from '../src/store/namespace-name.js';
import { percentile } from './percentile.js';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));
const cache = fileURLToPath(new URL('./.cache/', import.meta.url));
const seedRoot = join(cache, 'namespaces-seed');
const root = join(cache, 'namespaces');
const resultsFile = join(cache, 'namespaces-results.json');

const { values: flags } = parseArgs({
  options: {
    namespaces: { type: 'string', default: '200' },
    chunks: { type: 'string', default: '10000' },
    big: { type: 'string', default: '100000' },
    share: { type: 'string', default: '5' },
  },
});
const count = Number(flags.namespaces);
const chunks = Number(flags.chunks);
const bigChunks = Number(flags.big);
const share = Number(flags.share);
const smallSeed = `seed-${chunks}`;
const bigSeed = `seed-${bigChunks}`;
const bigName = `big-${bigChunks}`;
const names = Array.from({ length: count }, (_, index) => `team-${String(index).padStart(3, '0')}`);

const progress = (message: string): void => void process.stderr.write(`  ${message}\n`);
const megabytes = (bytes: number): number => Math.round(bytes / 1024 / 1024);

/** Builds a seed namespace through bench/scale-child.ts (the service's own ingest), unless it is there already. */
async function seed(name: string, target: number): Promise<void> {
  if (await exists(join(seedRoot, name, 'index.json'))) return;
  progress(`building ${name} (${target.toLocaleString('en')} chunks), once`);
  await mkdir(seedRoot, { recursive: true });
  const options = JSON.stringify({ root: seedRoot, namespace: name, chunks: target });
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/scale-child.ts', 'build', options], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`building ${name} exited with ${code}`))));
  });
}

/** A namespace folder of hard links to the seed's files; the journal is copied, as a commit appends to it in place. */
async function linkNamespace(seedName: string, name: string): Promise<void> {
  const target = join(root, name);
  if (await exists(join(target, 'index.json'))) return;
  await rm(target, { recursive: true, force: true });
  await mkdir(target, { recursive: true });
  for (const entry of await readdir(join(seedRoot, seedName), { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const from = join(seedRoot, seedName, entry.name);
    await (entry.name === journalFileName ? copyFile(from, join(target, entry.name)) : link(from, join(target, entry.name)));
  }
}

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

const summary = (samples: readonly number[]) => ({
  count: samples.length,
  p50: Number(percentile(samples, 0.5).toFixed(1)),
  p95: Number(percentile(samples, 0.95).toFixed(1)),
  max: Number(Math.max(...samples).toFixed(1)),
});

await seed(smallSeed, chunks);
await seed(bigSeed, bigChunks);
await mkdir(root, { recursive: true });
for (const name of names) await linkNamespace(smallSeed, name);
await linkNamespace(bigSeed, bigName);

const warn = (message: string) => progress(`warning: ${message}`);
const options = { root, embeddingModel: hashEmbeddingId, chunkBody: (body: string) => chunkMarkdown(body), warn };
// One small namespace's estimate, from a store of its own, sets the budget.
const probe = new KnowledgeStore(options);
const oneBytes = await probe.withNamespace(sanitizeNamespace(names[0] as string), async (namespace) => namespace.estimatedBytes);
const budget = Math.floor((count / share + 0.5) * oneBytes);
progress(`one ${chunks.toLocaleString('en')}-chunk namespace: estimated ${megabytes(oneBytes)} MB; budget ${megabytes(budget)} MB`);

const startedAt = performance.now();
const store = new KnowledgeStore({ ...options, memoryBudget: budget });
await store.initialize();
const startupSeconds = (performance.now() - startedAt) / 1000;
progress(`start-up: ${store.memory.loaded} namespaces loaded in ${startupSeconds.toFixed(1)} s`);

const model = createHashEmbeddingModel();
const search = new SearchService(store, new ChunkEmbedder(store, model, (message) => warn(message)), 20);
const queries = loadScaleCorpus().queries;
let queryNumber = 0;
/** Milliseconds of CPU (all of the process's threads) the last timed query took: less disturbed than wall time on a busy machine. */
let lastCpu = 0;
const timedQuery = async (name: string): Promise<number> => {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const outcome = await search.search(sanitizeNamespace(name), queries[queryNumber++ % queries.length] as string, {
    mode: 'hybrid',
    limit: 10,
  });
  if (outcome.hits.length === 0) throw new Error(`no hits in ${name}`);
  const cpu = process.cpuUsage(cpuStarted);
  lastCpu = (cpu.user + cpu.system) / 1000;
  return performance.now() - started;
};

// Round 1 queries every namespace in turn: those not loaded at start-up are closed.
const closedFirst: number[] = [];
const closedFirstCpu: number[] = [];
const loadedQueries: number[] = [];
let maxLoaded = 0;
let peakEstimate = 0;
for (const name of names) {
  const before = store.memory;
  const milliseconds = await timedQuery(name);
  // Opening it either added a loaded namespace or closed others.
  if (store.memory.loaded > before.loaded || store.memory.evictions > before.evictions) {
    closedFirst.push(milliseconds);
    closedFirstCpu.push(lastCpu);
  } else loadedQueries.push(milliseconds);
  // A loaded namespace answers again at once.
  loadedQueries.push(await timedQuery(name));
  maxLoaded = Math.max(maxLoaded, store.memory.loaded);
  peakEstimate = Math.max(peakEstimate, store.memory.estimatedBytes);
}
progress(
  `round 1: first query on a closed namespace p50 ${percentile(closedFirst, 0.5).toFixed(0)} ms, max ${Math.max(...closedFirst).toFixed(0)} ms`,
);

// The big namespace: closed (loaded at start-up or never), queried, then pushed out by a fifth of the small ones.
const bigFirst: number[] = [];
const bigFirstCpu: number[] = [];
for (let round = 0; round < 3; round++) {
  const evictionsBefore = store.memory.evictions;
  bigFirst.push(await timedQuery(bigName));
  bigFirstCpu.push(lastCpu);
  progress(
    `first query on closed ${bigName}: ${(bigFirst.at(-1) as number).toFixed(0)} ms, CPU ${lastCpu.toFixed(0)} ms (${store.memory.evictions - evictionsBefore} evicted)`,
  );
  for (const name of names.slice(round * (count / share), (round + 1) * (count / share) + 1)) await timedQuery(name);
}

const usage = process.memoryUsage();
const results = {
  date: new Date().toISOString(),
  namespaces: count,
  chunksEach: chunks,
  bigChunks,
  budgetMegabytes: megabytes(budget),
  oneNamespaceEstimateMegabytes: megabytes(oneBytes),
  startupSeconds: Number(startupSeconds.toFixed(1)),
  maxLoaded,
  peakEstimateMegabytes: megabytes(peakEstimate),
  evictions: store.memory.evictions,
  firstQueryOnClosedMilliseconds: summary(closedFirst),
  firstQueryOnClosedCpuMilliseconds: summary(closedFirstCpu),
  queryOnLoadedMilliseconds: summary(loadedQueries),
  firstQueryOnClosedBigMilliseconds: bigFirst.map((milliseconds) => Math.round(milliseconds)),
  firstQueryOnClosedBigCpuMilliseconds: bigFirstCpu.map((milliseconds) => Math.round(milliseconds)),
  bigTargetMet: Math.max(...bigFirst) <= 2000,
  loadAverage: loadavg().map((load) => Number(load.toFixed(1))),
  memory: {
    peakRssMegabytes: Math.round(process.resourceUsage().maxRSS / 1024),
    rssMegabytes: megabytes(usage.rss),
    heapUsedMegabytes: megabytes(usage.heapUsed),
    arrayBuffersMegabytes: megabytes(usage.arrayBuffers),
  },
};
await store.close();
await writeFile(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
console.log(JSON.stringify(results, null, 2));
