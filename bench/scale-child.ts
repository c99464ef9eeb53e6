// The measuring processes of the scale benchmark, started by bench/scale.ts (one process per step, so each step's
// memory figures are its own): `build` ingests generated documents into a fresh namespace; `measure` loads it as the
// service does at start-up and times searches, the MiniSearch and brute-force cosine baselines and single ingests;
// `agent` starts the real app over the same folder and times POST /agent; `verify` reopens a namespace whose build was
// killed (bench/scale-kill.ts) and checks it holds every acknowledged document. Each prints one JSON line on stdout.
// Run by hand: node --expose-gc --import tsx bench/scale-child.ts <build|measure|agent|verify> '<options as JSON>'
import { request, Agent } from 'node:http';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import MiniSearch from 'minisearch';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { chunkMarkdown } from '../src/ingest/chunk-markdown.js';
import { ChunkEmbedder } from '../src/embedding/chunk-embedder.js';
import { embeddingText } from '../src/embedding/embedding-text.js';
import { normalize } from '../src/indexes/cosine.js';
import { roundToFloat16 } from '../src/indexes/float16.js';
import { DocumentConverter } from '../src/ingest/document-converter.js';
import { IngestService } from '../src/ingest/ingest-service.js';
import type { IngestSource } from '../src/ingest/ingest-source.js';
import type { EmbeddingModel } from '../src/providers/embedding-model.js';
import { SearchService, type SearchMode } from '../src/search/search-service.js';
import { KnowledgeStore } from '../src/store/knowledge-store.js';
import { createHashEmbeddingModel, hashEmbed, hashEmbeddingDimensions, hashEmbeddingId } from './hash-embedding.js';
import { seededRandom } from '../test/support/durability-documents.js';
import { loadScaleCorpus, type ScaleDocument } from './scale-corpus.js';
import { sanitizeNamespace } from '../src/store/namespace-name.js';

export interface Timings {
  readonly count: number;
  /** Milliseconds. */
  readonly p50: number;
  readonly p95: number;
  readonly mean: number;
  /** Sequential queries per second on one core: 1 / mean. */
  readonly qps: number;
}

/** Search timings, plus the process's CPU time per query: less disturbed than wall time on a busy machine. */
export interface QueryTimings extends Timings {
  /** Milliseconds of CPU (user + system, all threads) per query, over the timed queries. */
  readonly cpuMean: number;
}

export interface Memory {
  /** Megabytes: the process's peak resident set so far (getrusage maxrss), and its resident set now. */
  readonly peakRss: number;
  readonly rss: number;
  readonly heapUsed: number;
  /** Typed arrays and Buffers (outside the JS heap). */
  readonly arrayBuffers: number;
}

export interface BuildResult {
  readonly chunks: number;
  readonly documents: number;
  readonly ingestCalls: number;
  readonly concurrency: number;
  /** Time spent inside IngestService.ingest, generating the documents excluded. */
  readonly seconds: number;
  /** CPU time of the whole build step (generating the documents included). */
  readonly cpuSeconds: number;
  readonly embedSeconds: number;
  readonly chunksPerSecond: number;
  readonly diskMegabytes: number;
  readonly memory: Memory;
  /** Each tenth of the build in turn (the last one closing the namespace excluded): whether ingest slows down as it grows. */
  readonly tenths: readonly BuildStretch[];
}

export interface BuildStretch {
  readonly chunks: number;
  /** Time spent inside the ingest calls (IngestService.ingest, or POST /tools/ingest), and the process's CPU time over the same stretch. */
  readonly seconds: number;
  readonly cpuSeconds: number;
}

export interface MeasureResult {
  readonly chunks: number;
  readonly loadSeconds: number;
  readonly loadCpuSeconds: number;
  readonly afterLoad: Memory;
  readonly queries: number;
  readonly queryEmbeddingMicroseconds: number;
  readonly search: Record<SearchMode, QueryTimings & { readonly fallbacks: number; readonly empty: number }>;
  readonly singleIngest: Timings & { readonly chunksEach: number };
  /** A lexical search right after each single ingest (it must not wait for the write queue or read the folder). */
  readonly searchAfterIngest: Timings;
  /** The service's figures: loaded, searched and ingested into, before the baselines take memory of their own. */
  readonly service: Memory;
  readonly bruteForce: QueryTimings & {
    readonly setupSeconds: number;
    /** Of the service's vector search, whose results are diversified by document. */
    readonly recallAt10: number;
    /** Of the namespace's vector index itself (exact search, or the inverted lists past their size). */
    readonly indexRecallAt10: number;
    readonly recallQueries: number;
  };
  /** Null past `miniSearchUpTo` chunks. */
  readonly miniSearch: (QueryTimings & { readonly buildSeconds: number; readonly rssMegabytes: number }) | null;
}

/** MiniSearch's index of a million chunks outgrows V8's default heap (4 GB here): the baseline stops at this size. */
const miniSearchUpTo = 300_000;

export interface AgentResult {
  /** buildApp over the storage root: configuration, models, loading every namespace, routes. */
  readonly startupSeconds: number;
  readonly retrievalMode: string;
  /** Response headers (sent before the run starts), then the first body byte: the first SSE frame. */
  readonly headers: Timings;
  readonly firstByte: Timings;
  readonly firstText: Timings;
  readonly complete: Timings;
  readonly failures: number;
  readonly memory: Memory;
}

export interface ChildOptions {
  readonly root: string;
  readonly namespace: string;
  readonly chunks?: number;
  readonly batch?: number;
  readonly concurrency?: number;
  readonly singleIngests?: number;
  readonly agentRequests?: number;
  /** Milliseconds each search mode is timed for, at least one pass over the queries. */
  readonly budgetMs?: number;
  readonly providerUrl?: string;
  /**
   * build: store the documents through the app's `POST /tools/ingest` (one process, its embeddings from the provider
   * double at `providerUrl`) instead of calling IngestService.
   */
  readonly overHttp?: boolean;
  /** build: print each ingest call's acknowledged documents, as they are acknowledged (for the kill -9 check). */
  readonly acknowledge?: boolean;
  /** verify: a file of the acknowledged documents' hashes, one a line. */
  readonly acknowledgedFile?: string;
}

/** What `build` prints after each ingest call when asked to acknowledge: the documents stored by that call. */
export interface Acknowledgement {
  readonly acknowledged: readonly string[];
  /** Chunks stored so far. */
  readonly chunks: number;
}

export interface VerifyResult {
  /** Opening the namespace as the service does at start-up, reconciling it with its folder included. */
  readonly loadSeconds: number;
  readonly documents: number;
  readonly chunks: number;
  readonly markdownFiles: number;
  readonly acknowledged: number;
  /** Acknowledged documents the namespace does not hold. */
  readonly lost: number;
  /** Hits of a lexical and a vector search over the reopened namespace. */
  readonly lexicalHits: number;
  readonly vectorHits: number;
  readonly memory: Memory;
}

const megabytes = (bytes: number): number => bytes / 1024 / 1024;
const progress = (message: string): void => void process.stderr.write(`  ${message}\n`);

function memory(): Memory {
  const usage = process.memoryUsage();
  // maxRSS is in kilobytes.
  return {
    peakRss: process.resourceUsage().maxRSS / 1024,
    rss: megabytes(usage.rss),
    heapUsed: megabytes(usage.heapUsed),
    arrayBuffers: megabytes(usage.arrayBuffers),
  };
}

async function collect(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await sleep(20);
  gc?.();
}

function timings(samples: readonly number[]): Timings {
  const sorted = [...samples].sort((left, right) => left - right);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
  const mean = sorted.reduce((total, value) => total + value, 0) / Math.max(1, sorted.length);
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), mean, qps: mean > 0 ? 1000 / mean : 0 };
}

interface TimingPlan {
  readonly budgetMs: number;
  /** Queries timed even past the budget. */
  readonly minimumSamples: number;
  readonly warmUp: number;
}

/**
 * Warms up, then times the queries one after another, cycling through them (at most five passes) until both the
 * minimum number of samples and the time budget are reached. The queries come shuffled, so any prefix is a fair mix.
 */
async function timeQueries(
  queries: readonly string[],
  plan: TimingPlan,
  run: (query: string) => Promise<void> | void,
): Promise<QueryTimings> {
  for (const query of queries.slice(0, plan.warmUp)) await run(query);
  const samples: number[] = [];
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  for (let position = 0; position < 5 * queries.length; position++) {
    if (samples.length >= plan.minimumSamples && performance.now() - started >= plan.budgetMs) break;
    const query = queries[position % queries.length] as string;
    const queryStarted = performance.now();
    await run(query);
    samples.push(performance.now() - queryStarted);
  }
  return { ...timings(samples), cpuMean: cpuMilliseconds(cpuStarted) / Math.max(1, samples.length) };
}

function cpuMilliseconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function shuffled<T>(items: readonly T[]): T[] {
  const random = seededRandom(20_240_601);
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

function createStore(root: string): KnowledgeStore {
  return new KnowledgeStore({
    root,
    embeddingModel: hashEmbeddingId,
    chunkBody: (body) => chunkMarkdown(body),
    warn: (message) => progress(`store warning: ${message}`),
  });
}

// The benchmark ingests Markdown only, which is converted in place: this converter never starts a worker.
const markdownConverter = new DocumentConverter({ workers: 1 });

function createIngest(store: KnowledgeStore, embeddings: EmbeddingModel, concurrency?: number): IngestService {
  return new IngestService({
    store,
    embeddings: new ChunkEmbedder(store, embeddings, (message, error) => progress(`embedding error: ${message}: ${String(error)}`)),
    converter: markdownConverter,
    limits: { maxSourceBytes: 6_000_000, maxTextBytes: 200_000, downloadTimeoutMs: 15_000, allowPrivateUrls: false, fileRoots: [] },
    ...(concurrency === undefined ? {} : { concurrency }),
    logError: (message, error) => progress(`ingest error: ${message}: ${String(error)}`),
  });
}

async function folderBytes(directory: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) bytes += await folderBytes(path);
    else if (entry.isFile()) bytes += (await stat(path)).size;
  }
  return bytes;
}

function textSource(document: { title: string; text: string }): IngestSource {
  return { kind: 'text', text: document.text, title: document.title };
}

/** What one ingest call of the build stored: each document's chunk count and content hash (in-process only). */
type StoredDocuments = { readonly chunks: number; readonly hash?: string }[];

/** How the build stores its documents, and how much of its time went to embedding them in this process. */
interface BuildIngest {
  ingest(documents: ScaleDocument[]): Promise<StoredDocuments>;
  close(): Promise<void>;
  readonly embedSeconds: number;
}

/** Through IngestService, embedding with the benchmark's own function in this process. */
async function serviceIngest(options: ChildOptions, concurrency: number): Promise<BuildIngest> {
  let embedMilliseconds = 0;
  const embeddings: EmbeddingModel = {
    id: hashEmbeddingId,
    async embed(texts) {
      // Timed synchronously: an await here would count the other documents' work done meanwhile.
      const started = performance.now();
      const vectors = texts.map(hashEmbed);
      embedMilliseconds += performance.now() - started;
      return vectors;
    },
  };
  const store = createStore(options.root);
  await store.initialize();
  const ingest = createIngest(store, embeddings, concurrency);
  return {
    async ingest(documents) {
      const report = await ingest.ingest(sanitizeNamespace(options.namespace), documents.map(textSource));
      return report.outcomes.map((outcome) => {
        if (outcome.status === 'failed') throw new Error(`ingest of ${outcome.source} failed: ${outcome.error.message}`);
        if (outcome.status !== 'saved')
          throw new Error(`document ${outcome.document.title} was ${outcome.status}, expected a new document`);
        return { chunks: outcome.document.chunks.length, hash: outcome.document.hash };
      });
    },
    close: () => store.close(),
    get embedSeconds() {
      return embedMilliseconds / 1000;
    },
  };
}

/** The app over the storage root, its embeddings (the benchmark's hash model) from the provider double at `providerUrl`. */
function benchApp(root: string, providerUrl: string, environment: Record<string, string> = {}): Promise<FastifyInstance> {
  return buildApp(
    loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      LLM_API_KEY: 'bench-key',
      LLM_BASE_URL: providerUrl,
      KNOWLEDGE_AGENT_EMBEDDING_MODEL: hashEmbeddingId,
      KNOWLEDGE_AGENT_STORAGE_PATH: root,
      KNOWLEDGE_AGENT_RATE_LIMIT: '0',
      ...environment,
    }),
    { logger: false },
  );
}

/** Listens on a free loopback port; resolves with the app's base URL. */
async function listening(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the app has no port');
  return `http://127.0.0.1:${address.port}`;
}

/** Through the app's `POST /tools/ingest` over one kept-alive connection, the provider double embedding. */
async function httpIngest(options: ChildOptions): Promise<BuildIngest> {
  if (options.providerUrl === undefined) throw new Error('build over HTTP needs providerUrl');
  // The kill -9 check reads the content hashes of what was acknowledged, which the route does not answer.
  if (options.acknowledge === true) throw new Error('build over HTTP cannot acknowledge documents by hash');
  const app = await benchApp(options.root, options.providerUrl);
  const url = new URL('/tools/ingest', await listening(app));
  const connection = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    async ingest(documents) {
      const body = {
        namespace: options.namespace,
        sources: documents.map((document) => ({ type: 'text', value: document.text, title: document.title })),
      };
      const text = (await postStream(connection, url, body)).body;
      const answer = JSON.parse(text) as { documents: { status: string; chunks: number }[]; errors: unknown[] };
      if (answer.errors.length > 0 || answer.documents.some((document) => document.status !== 'saved'))
        throw new Error(`POST /tools/ingest did not save every document: ${text.slice(0, 500)}`);
      return answer.documents.map((document) => ({ chunks: document.chunks }));
    },
    async close() {
      connection.destroy();
      await app.close();
    },
    embedSeconds: 0,
  };
}

async function build(options: ChildOptions): Promise<BuildResult> {
  const cpuStarted = process.cpuUsage();
  const target = options.chunks ?? 10_000;
  const batch = options.batch ?? 200;
  const concurrency = options.concurrency ?? batch;
  const corpus = loadScaleCorpus();
  const ingest = options.overHttp === true ? await httpIngest(options) : await serviceIngest(options, concurrency);
  let chunks = 0;
  let documents = 0;
  let calls = 0;
  let ingestMilliseconds = 0;
  let next = 0;
  const tenths: BuildStretch[] = [];
  let tenthStart = { chunks: 0, ingestMilliseconds: 0, cpu: process.cpuUsage() };
  while (chunks < target) {
    // Whole batches, then smaller ones near the target, so the namespace ends just past it.
    const averageChunks = documents === 0 ? 14 : chunks / documents;
    const count = Math.max(1, Math.min(batch, Math.ceil((target - chunks) / averageChunks)));
    const documentsOfCall = Array.from({ length: count }, () => corpus.document(next++));
    const started = performance.now();
    const stored = await ingest.ingest(documentsOfCall);
    ingestMilliseconds += performance.now() - started;
    calls++;
    const acknowledged: string[] = [];
    for (const document of stored) {
      chunks += document.chunks;
      documents++;
      if (document.hash !== undefined) acknowledged.push(document.hash);
    }
    if (options.acknowledge === true) process.stdout.write(`${JSON.stringify({ acknowledged, chunks } satisfies Acknowledgement)}\n`);
    // At fixed marks, so each tenth is about a tenth (the last one too).
    if (chunks >= ((tenths.length + 1) * target) / 10) {
      const tenth = {
        chunks: chunks - tenthStart.chunks,
        seconds: (ingestMilliseconds - tenthStart.ingestMilliseconds) / 1000,
        cpuSeconds: cpuMilliseconds(tenthStart.cpu) / 1000,
      };
      tenths.push(tenth);
      tenthStart = { chunks, ingestMilliseconds, cpu: process.cpuUsage() };
      progress(
        `build: ${chunks} chunks, ${documents} documents, ${(ingestMilliseconds / 1000).toFixed(1)} s (this tenth ${tenth.seconds.toFixed(1)} s, CPU ${tenth.cpuSeconds.toFixed(1)} s), rss ${memory().rss.toFixed(0)} MB`,
      );
    }
  }
  const closeStarted = performance.now();
  await ingest.close();
  ingestMilliseconds += performance.now() - closeStarted;
  const seconds = ingestMilliseconds / 1000;
  return {
    chunks,
    documents,
    ingestCalls: calls,
    concurrency,
    seconds,
    cpuSeconds: cpuMilliseconds(cpuStarted) / 1000,
    embedSeconds: ingest.embedSeconds,
    chunksPerSecond: chunks / seconds,
    diskMegabytes: megabytes(await folderBytes(join(options.root, options.namespace))),
    memory: memory(),
    tenths,
  };
}

/** Opens the namespace a killed build left, as a restarted service does, and checks that every acknowledged document is there. */
async function verify(options: ChildOptions): Promise<VerifyResult> {
  if (options.acknowledgedFile === undefined) throw new Error('verify needs acknowledgedFile');
  const hashes = (await readFile(options.acknowledgedFile, 'utf8')).split('\n').filter((line) => line !== '');
  const started = performance.now();
  const store = createStore(options.root);
  await store.initialize();
  try {
    return await store.withExistingNamespace(sanitizeNamespace(options.namespace), async (namespace) => {
      if (namespace === undefined) throw new Error(`the killed build left no namespace ${options.namespace}`);
      const loadSeconds = (performance.now() - started) / 1000;
      const query = loadScaleCorpus().queries[0] as string;
      return {
        loadSeconds,
        documents: namespace.documentCount,
        chunks: namespace.chunkCount,
        markdownFiles: await markdownFileCount(join(options.root, options.namespace)),
        acknowledged: hashes.length,
        lost: hashes.filter((hash) => namespace.findByHash(hash) === undefined).length,
        lexicalHits: namespace.searchLexical(query, 10).length,
        vectorHits: namespace.searchVectors(hashEmbed(query), 10).length,
        memory: memory(),
      };
    });
  } finally {
    await store.close();
  }
}

async function markdownFileCount(directory: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (entry.isDirectory() && !entry.name.startsWith('.')) count += await markdownFileCount(join(directory, entry.name));
    else if (entry.isFile() && entry.name.endsWith('.md')) count++;
  }
  return count;
}

/** Top 10 of a plain loop over one Float32Array of unit rows, kept by insertion into a sorted array. */
function bruteForceTop10(matrix: Float32Array, rows: number, query: Float32Array): number[] {
  const dimensions = query.length;
  const bestRows: number[] = [];
  const bestScores: number[] = [];
  for (let row = 0; row < rows; row++) {
    let score = 0;
    const offset = row * dimensions;
    for (let index = 0; index < dimensions; index++) score += (matrix[offset + index] as number) * (query[index] as number);
    if (bestScores.length === 10 && score <= (bestScores[9] as number)) continue;
    let position = bestScores.length;
    while (position > 0 && (bestScores[position - 1] as number) < score) position--;
    bestScores.splice(position, 0, score);
    bestRows.splice(position, 0, row);
    if (bestScores.length > 10) {
      bestScores.pop();
      bestRows.pop();
    }
  }
  return bestRows;
}

async function measure(options: ChildOptions): Promise<MeasureResult> {
  const budgetMs = options.budgetMs ?? 6000;
  const corpus = loadScaleCorpus();
  const queries = shuffled(corpus.queries);
  const model = createHashEmbeddingModel();
  // Ours: at least one whole pass. Brute force: one whole pass too, for recall. MiniSearch is slow at scale: a sample.
  const ours: TimingPlan = { budgetMs, minimumSamples: queries.length, warmUp: 40 };
  const bruteForcePlan: TimingPlan = { budgetMs, minimumSamples: queries.length, warmUp: 5 };
  const miniSearchPlan: TimingPlan = { budgetMs, minimumSamples: 25, warmUp: 3 };
  await collect();

  // Start-up load: what the service does before it serves its first request.
  const loadStarted = performance.now();
  const loadCpuStarted = process.cpuUsage();
  const store = createStore(options.root);
  await store.initialize();
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const loadCpuSeconds = cpuMilliseconds(loadCpuStarted) / 1000;
  const namespace = await store.namespace(sanitizeNamespace(options.namespace));
  const chunks = namespace.chunkCount;
  if (namespace.pendingChunkCount > 0) progress(`warning: ${namespace.pendingChunkCount} chunks have no vector of ${hashEmbeddingId}`);
  await collect();
  const afterLoad = memory();
  progress(
    `load: ${chunks} chunks in ${loadSeconds.toFixed(2)} s (CPU ${loadCpuSeconds.toFixed(2)} s), rss ${afterLoad.rss.toFixed(0)} MB`,
  );

  for (const query of queries) hashEmbed(query);
  const embedStarted = performance.now();
  for (let round = 0; round < 10; round++) for (const query of queries) hashEmbed(query);
  const queryEmbeddingMicroseconds = ((performance.now() - embedStarted) * 1000) / (10 * queries.length);

  const search = new SearchService(
    store,
    new ChunkEmbedder(store, model, (message, error) => progress(`embedding error: ${message}: ${String(error)}`)),
    20,
  );
  const vectorHits = new Map<string, string[]>();
  const searchTimings = {} as Record<SearchMode, QueryTimings & { fallbacks: number; empty: number }>;
  for (const mode of ['lexical', 'embedding', 'hybrid'] as const) {
    let fallbacks = 0;
    let empty = 0;
    const samples = await timeQueries(queries, ours, async (query) => {
      const outcome = await search.search(sanitizeNamespace(options.namespace), query, { mode, limit: 10 });
      if (outcome.mode !== mode) fallbacks++;
      if (outcome.hits.length === 0) empty++;
      if (mode === 'embedding')
        vectorHits.set(
          query,
          outcome.hits.map((hit) => hit.chunk.id),
        );
    });
    searchTimings[mode] = { ...samples, fallbacks, empty };
    progress(`search ${mode}: p50 ${samples.p50.toFixed(2)} ms over ${samples.count} queries`);
  }
  // The vector index's own top 10, before the service diversifies its results by document (at most 2 a page first).
  const indexHits = new Map(queries.map((query) => [query, namespace.searchVectors(hashEmbed(query), 10).map((hit) => hit.key)]));

  // One small document at a time into the loaded namespace; ingest resolves once the document is durably written.
  const ingest = createIngest(store, model);
  const ingestSamples: number[] = [];
  const searchAfterIngestSamples: number[] = [];
  let ingestedChunks = 0;
  // Numbered after the namespace's documents, so that measuring a kept namespace again ingests new ones, not the same.
  // A small document can repeat one already stored (they are one to three passages of the corpus): it is skipped by
  // the service, and not timed here, and the next one is sent.
  let number = namespace.documentCount;
  const wanted = options.singleIngests ?? 20;
  while (ingestSamples.length < wanted) {
    if (number > namespace.documentCount + 10 * wanted) throw new Error('the small documents keep repeating stored ones');
    const source = textSource(corpus.smallDocument(number++));
    const started = performance.now();
    const report = await ingest.ingest(sanitizeNamespace(options.namespace), [source]);
    const took = performance.now() - started;
    const outcome = report.outcomes[0];
    if (outcome?.status === 'skipped') continue;
    if (outcome?.status !== 'saved')
      throw new Error(`single ingest ${number}: ${outcome?.status === 'failed' ? outcome.error.message : outcome?.status}`);
    ingestSamples.push(took);
    ingestedChunks += outcome.document.chunks.length;
    const query = queries[ingestSamples.length % queries.length] ?? 'index';
    const searchStarted = performance.now();
    await search.search(sanitizeNamespace(options.namespace), query, { mode: 'lexical', limit: 10 });
    searchAfterIngestSamples.push(performance.now() - searchStarted);
  }
  const singleIngest = { ...timings(ingestSamples), chunksEach: ingestedChunks / ingestSamples.length };
  const searchAfterIngest = timings(searchAfterIngestSamples);
  const slowest = ingestSamples.indexOf(Math.max(...ingestSamples));
  progress(
    `single ingest: p50 ${singleIngest.p50.toFixed(0)} ms, p95 ${singleIngest.p95.toFixed(0)} ms; the slowest ${(ingestSamples[slowest] ?? 0).toFixed(0)} ms (number ${slowest + 1} of ${ingestSamples.length}); a search after each p50 ${searchAfterIngest.p50.toFixed(1)} ms`,
  );
  const service = memory();

  // Baselines over the same chunks: the texts and vectors the namespace holds now (read before it is closed: its
  // texts are read from its files).
  const setupStarted = performance.now();
  const rows = namespace.documents.flatMap((document) =>
    document.chunks.map((chunk) => ({
      id: chunk.id,
      title: document.title,
      headings: chunk.headingPath.join(' '),
      body: chunk.text,
      path: chunk.headingPath,
    })),
  );
  await store.close();
  // At the precision the service stores vectors (unit length, rounded to float16), so that recall measures the
  // approximate index against exact search over the same vectors (the rounding alone: docs/performance.md).
  const matrix = new Float32Array(rows.length * hashEmbeddingDimensions);
  rows.forEach((row, index) => {
    const unit = normalize(hashEmbed(embeddingText(row.title, row.path, row.body)));
    roundToFloat16(unit);
    matrix.set(unit, index * hashEmbeddingDimensions);
  });
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  let recallTotal = 0;
  let indexRecallTotal = 0;
  let recallQueries = 0;
  const bruteSamples = await timeQueries(queries, bruteForcePlan, (query) => {
    const best = bruteForceTop10(matrix, rows.length, hashEmbed(query));
    const ours = vectorHits.get(query);
    if (ours !== undefined) {
      const exact = new Set(best.map((row) => rows[row]?.id));
      const recall = (ids: readonly string[]) => ids.filter((id) => exact.has(id)).length / Math.max(1, Math.min(10, exact.size));
      recallTotal += recall(ours);
      indexRecallTotal += recall(indexHits.get(query) ?? []);
      recallQueries++;
      vectorHits.delete(query);
    }
  });
  const mean = (total: number) => (recallQueries === 0 ? 0 : total / recallQueries);
  const bruteForce = {
    ...bruteSamples,
    setupSeconds,
    recallAt10: mean(recallTotal),
    indexRecallAt10: mean(indexRecallTotal),
    recallQueries,
  };
  progress(
    `brute force: p50 ${bruteForce.p50.toFixed(2)} ms, recall@10 of the vector index ${bruteForce.indexRecallAt10.toFixed(3)}, of the service's diversified results ${bruteForce.recallAt10.toFixed(3)}`,
  );

  const miniSearch = chunks > miniSearchUpTo ? null : await timeMiniSearch(rows, queries, miniSearchPlan);
  return {
    chunks,
    loadSeconds,
    loadCpuSeconds,
    afterLoad,
    queries: queries.length,
    queryEmbeddingMicroseconds,
    search: searchTimings,
    singleIngest,
    searchAfterIngest,
    service,
    bruteForce,
    miniSearch,
  };
}

async function timeMiniSearch(
  rows: readonly { id: string; title: string; headings: string; body: string }[],
  queries: readonly string[],
  plan: TimingPlan,
): Promise<NonNullable<MeasureResult['miniSearch']>> {
  await collect();
  const beforeMiniSearch = memory().rss;
  const miniStarted = performance.now();
  // The same fields and field weights as the service's BM25F index.
  const mini = new MiniSearch<{ id: string; title: string; headings: string; body: string }>({
    fields: ['title', 'headings', 'body'],
    searchOptions: { boost: { title: 3, headings: 2 } },
  });
  mini.addAll(rows.map(({ id, title, headings, body }) => ({ id, title, headings, body })));
  const buildSeconds = (performance.now() - miniStarted) / 1000;
  await collect();
  const rssMegabytes = memory().rss - beforeMiniSearch;
  const miniSamples = await timeQueries(queries, plan, (query) => {
    mini.search(query).slice(0, 10);
  });
  progress(`MiniSearch: built in ${buildSeconds.toFixed(1)} s, p50 ${miniSamples.p50.toFixed(2)} ms`);
  return { ...miniSamples, buildSeconds, rssMegabytes };
}

interface StreamTimes {
  headers: number;
  firstByte: number;
  firstText: number;
  complete: number;
  body: string;
}

function postStream(agent: Agent, url: URL, body: unknown): Promise<StreamTimes> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const started = performance.now();
    let headers = 0;
    let firstByte = 0;
    let firstText = 0;
    let text = '';
    const outgoing = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (response) => {
        headers = performance.now() - started;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (firstByte === 0) firstByte = performance.now() - started;
          text += chunk;
          if (firstText === 0 && text.includes('"type":"text_message"')) firstText = performance.now() - started;
        });
        response.on('end', () => {
          if (response.statusCode !== 200) reject(new Error(`POST ${url.pathname} answered ${response.statusCode}: ${text.slice(0, 300)}`));
          else resolve({ headers, firstByte, firstText, complete: performance.now() - started, body: text });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

async function agent(options: ChildOptions): Promise<AgentResult> {
  if (options.providerUrl === undefined) throw new Error('agent needs providerUrl');
  const queries = shuffled(loadScaleCorpus().queries);
  await collect();
  const started = performance.now();
  const app = await benchApp(options.root, options.providerUrl, { KNOWLEDGE_AGENT_DEFAULT_NAMESPACE: options.namespace });
  const startupSeconds = (performance.now() - started) / 1000;
  const base = await listening(app);
  const connection = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // The namespace's vectors must be those of the service's model, or search would fall back to lexical.
    const check = await fetch(`${base}/tools/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ namespace: options.namespace, query: queries[0], mode: 'hybrid', top_k: 4 }),
    });
    const checked = (await check.json()) as { mode?: string; notice?: string; matches?: unknown[] };
    if (checked.mode !== 'hybrid' || checked.notice !== undefined || (checked.matches?.length ?? 0) === 0) {
      throw new Error(`hybrid search through the app is not usable: ${JSON.stringify(checked).slice(0, 300)}`);
    }

    const url = new URL('/agent', base);
    const total = options.agentRequests ?? 50;
    const headers: number[] = [];
    const firstBytes: number[] = [];
    const firstTexts: number[] = [];
    const completes: number[] = [];
    let failures = 0;
    for (let number = -5; number < total; number++) {
      const query = queries[(number + 5) % queries.length] as string;
      const times = await postStream(connection, url, {
        thread_id: `bench-${number}`,
        run_id: `run-${number}`,
        messages: [{ role: 'user', content: `@knowledge ${query}` }],
        tool_params: { namespace: options.namespace },
      });
      if (number < 0) continue;
      const ok =
        times.body.includes('"type":"text_message"') &&
        !times.body.includes('"type":"error"') &&
        times.body.trimEnd().endsWith('data: [DONE]');
      if (!ok) failures++;
      headers.push(times.headers);
      firstBytes.push(times.firstByte);
      firstTexts.push(times.firstText);
      completes.push(times.complete);
    }
    return {
      startupSeconds,
      retrievalMode: 'hybrid',
      headers: timings(headers),
      firstByte: timings(firstBytes),
      firstText: timings(firstTexts),
      complete: timings(completes),
      failures,
      memory: memory(),
    };
  } finally {
    connection.destroy();
    await app.close();
  }
}

const steps = { build, measure, agent, verify } as const;
const [step, optionsText] = process.argv.slice(2);
if (step === undefined || !(step in steps)) {
  process.stderr.write(
    'usage: node --expose-gc --import tsx bench/scale-child.ts <build|measure|agent|verify> \'{"root":"…","namespace":"…"}\'\n',
  );
  process.exit(2);
}
const result = await steps[step as keyof typeof steps](JSON.parse(optionsText ?? '{}') as ChildOptions);
// Exit once the line is out: nothing the step opened should keep the measurement process alive.
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
