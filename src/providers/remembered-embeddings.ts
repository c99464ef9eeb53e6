// An embedding model that remembers the vectors of the texts it embedded most recently, so that texts asked for again
// are not embedded again: a question, embedded by its search and then wanted by the extractive answerer, and the
// passages of pages that keep answering related questions (the answerer embeds its ten best for every answer, about
// 165 ms with the local model; a provider bills each call).

import type { EmbeddingModel } from './embedding-model.js';

/**
 * `model` with the vectors of the last `capacity` texts it embedded remembered (least recently used forgotten first).
 * Only the texts not remembered are sent, in one call; the vectors given back are shared, so callers must not change
 * them. It does not own `model`: whoever made that closes it.
 */
export function rememberingEmbeddings(model: EmbeddingModel, capacity: number): EmbeddingModel {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`remember at least one text, not ${capacity}`);
  // A Map iterates in insertion order: a text used again is moved to the end, so the first key is the least recent.
  const remembered = new Map<string, Float32Array>();
  const remember = (text: string, vector: Float32Array) => {
    remembered.delete(text);
    remembered.set(text, vector);
    if (remembered.size > capacity) remembered.delete(remembered.keys().next().value as string);
  };
  return {
    id: model.id,
    async embed(texts, signal) {
      const missing = [...new Set(texts.filter((text) => !remembered.has(text)))];
      const fresh = new Map<string, Float32Array>();
      if (missing.length > 0) {
        const vectors = await model.embed(missing, signal);
        if (vectors.length !== missing.length) throw new Error(`${vectors.length} vectors for ${missing.length} texts`);
        missing.forEach((text, position) => fresh.set(text, vectors[position] as Float32Array));
      }
      // Every vector is taken before any is remembered: remembering may forget one that a later text needs.
      const vectors = texts.map((text) => fresh.get(text) ?? (remembered.get(text) as Float32Array));
      vectors.forEach((vector, position) => remember(texts[position] as string, vector));
      return vectors;
    },
  };
}
