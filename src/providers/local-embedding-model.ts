// The local embedding adapter: all-MiniLM-L6-v2 (384 dimensions, int8 ONNX) run by onnxruntime-node in worker
// threads, so inference never blocks the event loop. Two lanes: bulk requests (ingestion) queue for the bulk workers,
// while a search's query has a worker of its own and never waits behind an ingest.
import { setMaxListeners } from 'node:events';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { KnowledgeError } from '../errors.js';
import { packageRoot } from '../package-root.js';
import { WorkerPool, workerEntry, type WorkerFailure } from '../worker-pool.js';
import type { EmbeddingModel } from './embedding-model.js';
import { positionLimit, requiredFiles, type InferenceSettings } from './local-model-settings.js';

export const localEmbeddingModelId = 'local:all-MiniLM-L6-v2-int8';

/** `<package root>/models/all-MiniLM-L6-v2`, installed there by `npm ci` (scripts/install-model.mjs). */
export const defaultModelDirectory = join(packageRoot, 'models', 'all-MiniLM-L6-v2');

export interface LocalEmbeddingModelOptions {
  /** Holds tokenizer.json, tokenizer_config.json and onnx/model_q4.onnx (+ its .onnx_data). */
  modelDirectory?: string;
  /** Tokens per text, [CLS] and [SEP] included; the rest is cut off. 256 is the model's max_seq_length. */
  maxTokens?: number;
  /** onnxruntime intra-op threads of each bulk worker. */
  threads?: number;
  /** Bulk workers (each loads the model: ~60 MB). */
  workers?: number;
  /** Wall time of one embedding job, loading the model included (milliseconds); past it the job fails (temporary). */
  jobTimeoutMs?: number;
}

/**
 * A request of one text of at most this many characters (about 128 tokens) takes the query lane: a search's query
 * (the agent's are at most 300 characters). Any other request, however small, queues for the bulk lane, so a query
 * never waits behind a document's chunks (a short page's four chunks of 256 tokens took the query worker ~0.5 s).
 */
const queryLaneChars = 512;
/** Texts per bulk job: a long request is split, so jobs of concurrent requests interleave. */
const bulkJobTexts = 64;
/** Wall time of one job, loading the model included: generous for 64 texts on a busy machine (milliseconds). */
const defaultJobTimeoutMs = 120_000;
/** Heap of each worker: the tokenizer and the texts of a job; onnxruntime's memory is native, outside this limit. */
const workerMemoryMb = 256;

function positiveInteger(name: string, value: number, maximum = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < 1 || value > maximum)
    throw new RangeError(`${name} must be an integer from 1 to ${maximum}, got ${value}`);
  return value;
}

/**
 * A job past its time limit is temporary (a busy machine): the ingest stores the document without vectors and they
 * are embedded later, as when a provider is down.
 */
function embeddingFailure(jobTimeoutMs: number): (reason: WorkerFailure, detail: string) => KnowledgeError {
  return (reason, detail) => {
    const what =
      reason === 'timed-out'
        ? `took longer than ${jobTimeoutMs / 1000} s`
        : reason === 'out-of-memory'
          ? 'ran out of memory'
          : `failed (${detail})`;
    return new KnowledgeError('embedding_failed', `the local embedding model ${what}; its worker was restarted`, {
      temporary: reason === 'timed-out',
    });
  };
}

export async function createLocalEmbeddingModel(options: LocalEmbeddingModelOptions = {}): Promise<EmbeddingModel> {
  const maxTokens = positiveInteger('maxTokens', options.maxTokens ?? 256, positionLimit);
  if (maxTokens < 3) throw new RangeError(`maxTokens must leave room for [CLS], [SEP] and one token, got ${maxTokens}`);
  const settings: InferenceSettings = {
    modelDirectory: options.modelDirectory ?? defaultModelDirectory,
    maxTokens,
    threads: positiveInteger('threads', options.threads ?? 1, 64),
    niceness: 3,
  };
  // One single-threaded worker per core: two sessions need no barrier between threads (one session with two intra-op
  // threads took 12% more CPU time, and waits for its slower thread whenever another process holds a core).
  const workers = positiveInteger('workers', options.workers ?? Math.min(2, availableParallelism()), 16);
  const jobTimeoutMs = positiveInteger('jobTimeoutMs', options.jobTimeoutMs ?? defaultJobTimeoutMs);
  const missing = requiredFiles.filter((file) => !existsSync(join(settings.modelDirectory, file)));
  if (missing.length > 0) {
    throw new KnowledgeError(
      'embeddings_unavailable',
      `the local embedding model is not installed: ${settings.modelDirectory} lacks ${missing.join(', ')}; run \`npm ci\` or \`node scripts/install-model.mjs\``,
    );
  }
  const entry = workerEntry(import.meta.url, 'local-embedding-worker');
  const resourceLimits = { maxOldGenerationSizeMb: workerMemoryMb };
  const failure = embeddingFailure(jobTimeoutMs);
  const bulk = new WorkerPool({ entry, size: workers, resourceLimits, workerData: settings, failure });
  // One thread: a query is a few tokens.
  const queries = new WorkerPool({ entry, size: 1, resourceLimits, workerData: { ...settings, threads: 1, niceness: 0 }, failure });
  const close = async () => {
    await Promise.all([bulk.close(), queries.close()]);
  };
  try {
    // Loads the query lane's model now, so a broken install is reported at start-up and the first search is quick.
    await queries.run(['warm-up'], { timeoutMs: jobTimeoutMs });
  } catch (error) {
    await close();
    throw error;
  }

  return {
    id: localEmbeddingModelId,
    async embed(texts, signal) {
      signal?.throwIfAborted();
      if (texts.length === 0) return [];
      if (texts.length === 1 && (texts[0] as string).length <= queryLaneChars)
        return queries.run<Float32Array[]>(texts, { timeoutMs: jobTimeoutMs, signal });
      const jobs: string[][] = [];
      for (let start = 0; start < texts.length; start += bulkJobTexts) jobs.push(texts.slice(start, start + bulkJobTexts));
      // The jobs listen to a signal of their own, which alone listens to the caller's: re-embedding a namespace is
      // hundreds of jobs, and as many listeners on one signal make Node warn of a leak.
      const jobsAborted = new AbortController();
      setMaxListeners(0, jobsAborted.signal);
      const forwardAbort = () => jobsAborted.abort(signal?.reason);
      signal?.addEventListener('abort', forwardAbort, { once: true });
      try {
        const vectors = await Promise.all(
          jobs.map((job) => bulk.run<Float32Array[]>(job, { timeoutMs: jobTimeoutMs, signal: jobsAborted.signal })),
        );
        return vectors.flat();
      } finally {
        signal?.removeEventListener('abort', forwardAbort);
      }
    },
    close,
  };
}
