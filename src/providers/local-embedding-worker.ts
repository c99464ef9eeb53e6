// Worker-thread entry of the local embedding model: loads the model once, then embeds the texts of each job.
import { workerData } from 'node:worker_threads';
import { KnowledgeError, isKnowledgeError } from '../errors.js';
import { serveJobs } from '../worker-pool.js';
import { describe, embedTexts, loadModel } from './local-embedding-inference.js';
import type { InferenceSettings } from './local-model-settings.js';

const settings = workerData as InferenceSettings;
// Loaded with the first job, once serveJobs has set this thread's priority: onnxruntime's threads inherit it. A failed
// load is reported by every job (as embeddings_unavailable).
let model: ReturnType<typeof loadModel> | undefined;

serveJobs<readonly string[], Float32Array[]>(
  async (texts) => {
    model ??= loadModel(settings.modelDirectory, settings.threads);
    const loaded = await model;
    try {
      return await embedTexts(loaded, texts, settings);
    } catch (error) {
      throw isKnowledgeError(error)
        ? error
        : new KnowledgeError('embedding_failed', `the local embedding model failed: ${describe(error)}`, { cause: error });
    }
  },
  { niceness: settings.niceness },
);
