// The local embedding model's files and inference settings, apart from the inference itself so that the main thread,
// which only starts the model's workers, does not load onnxruntime and the tokenizer.
import { join } from 'node:path';

/** How a worker loads and runs the model; checked by createLocalEmbeddingModel before any worker starts. */
export interface InferenceSettings {
  /** Holds tokenizer.json, tokenizer_config.json and onnx/model_q4.onnx (+ its .onnx_data), and the int8 form made from it. */
  readonly modelDirectory: string;
  /** Tokens per text, [CLS] and [SEP] included; the rest is cut off. */
  readonly maxTokens: number;
  /** onnxruntime intra-op threads. */
  readonly threads: number;
  /**
   * How many nice levels below the event loop the worker runs. The query lane 0: it serves searches. The bulk lane 3,
   * so that on busy cores the event loop and the query lane come first (embedding searches during a FastAPI ingest:
   * p99 34 ms instead of 53), but not 10 like document conversion: a bulk lane below every other process's priority
   * starved on a shared machine (~0.3 of a core at load 11).
   */
  readonly niceness: number;
}

/** The installed model: 4-bit weights, from which int8-model.ts makes the form that is run. */
export const modelFile = join('onnx', 'model_q4.onnx');
export const requiredFiles = ['tokenizer.json', 'tokenizer_config.json', modelFile, `${modelFile}_data`];
export const positionLimit = 512; // the model's max_position_embeddings
