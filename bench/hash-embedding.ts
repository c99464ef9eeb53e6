// A deterministic 384-dimension embedding model for the scale benchmark only (bench/scale.ts): signed feature
// hashing of lowercase word unigrams and bigrams (a few English function words left out), L2-normalized.
// Cheap, needs no provider, and texts sharing words get similar vectors, so vector search has realistic structure.
// Not imported by the service; the benchmark hands it to the service's own IngestService and SearchService, and to
// the loopback provider double so that the running app embeds queries with the very same function.
import type { EmbeddingModel } from '../src/providers/embedding-model.js';
import { finalizeHash, fnv1a } from '../test/support/feature-hashing.js';

export const hashEmbeddingId = 'bench-hash-384';
export const hashEmbeddingDimensions = 384;

const wordPattern = /[\p{L}\p{N}]+/gu;
const functionWords = new Set(
  'a an and are as at be by for from has have how i in is it its of on or that the this to was were what when which with you your'.split(
    ' ',
  ),
);

/** The unit vector of `text`; a text without words maps to a fixed vector rather than to zeros. */
export function hashEmbed(text: string): Float32Array {
  const sums = new Float64Array(hashEmbeddingDimensions);
  const add = (feature: number, weight: number) => {
    const hash = finalizeHash(feature);
    // An independent sign makes collisions cancel out on average instead of piling up.
    const slot = hash % hashEmbeddingDimensions;
    sums[slot] = (sums[slot] as number) + (finalizeHash(hash ^ 0x9e3779b9) & 1 ? weight : -weight);
  };
  let previous: number | undefined;
  for (const match of text.toLowerCase().matchAll(wordPattern)) {
    const word = match[0];
    if (functionWords.has(word)) continue;
    const hash = fnv1a(word);
    add(hash, 1);
    if (previous !== undefined) add(Math.imul(previous, 0x9e3779b1) ^ hash ^ 0x2545f491, 0.5);
    previous = hash;
  }
  let sumOfSquares = 0;
  for (const value of sums) sumOfSquares += value * value;
  const vector = new Float32Array(hashEmbeddingDimensions);
  if (sumOfSquares === 0) {
    vector[0] = 1;
    return vector;
  }
  const scale = 1 / Math.sqrt(sumOfSquares);
  for (let index = 0; index < hashEmbeddingDimensions; index++) vector[index] = (sums[index] as number) * scale;
  return vector;
}

export function createHashEmbeddingModel(): EmbeddingModel {
  return {
    id: hashEmbeddingId,
    async embed(texts) {
      return texts.map(hashEmbed);
    },
  };
}
