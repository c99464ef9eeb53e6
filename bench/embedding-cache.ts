// Embeds a list of texts once per model and text set: the vectors are kept in bench/.cache/ as raw float32 rows,
// in a file named after the model id, the model's fingerprint, a label (the test set) and a hash of the texts, so a
// re-run loads them.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmbeddingModel } from '../src/providers/embedding-model.js';

export const cacheDirectory = fileURLToPath(new URL('./.cache/', import.meta.url));

/** Texts per call to the model, so progress can be shown during a long first run. */
const progressSlice = 1024;

export interface CachedEmbeddings {
  readonly vectors: Float32Array[];
  /** Whether the vectors came from the cache. */
  readonly cached: boolean;
  readonly milliseconds: number;
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/** Longer than any truncation (about 600 tokens, each position different), so a change of truncation changes its vector. */
const probeText = Array.from({ length: 300 }, (_, index) => `word${index}`).join(' ');
const fingerprints = new WeakMap<EmbeddingModel, Promise<string>>();

/**
 * A hash of the probe's vector, rounded to 0.001: the model id stays the same when how it embeds changes (truncation,
 * arithmetic, pooling), and vectors cached before such a change must not be reused.
 */
function fingerprint(model: EmbeddingModel): Promise<string> {
  let known = fingerprints.get(model);
  if (known === undefined) {
    known = model.embed([probeText]).then(([vector]) => {
      const rounded = Int32Array.from(vector ?? [], (value) => Math.round(value * 1000));
      return createHash('sha256').update(rounded).digest('hex').slice(0, 8);
    });
    fingerprints.set(model, known);
  }
  return known;
}

function cacheFile(modelId: string, modelFingerprint: string, label: string, texts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const text of texts) hash.update(text).update('\u0000');
  const name = `${safeName(modelId)}-${modelFingerprint}--${safeName(label)}--${texts.length}-${hash.digest('hex').slice(0, 16)}.f32`;
  return join(cacheDirectory, name);
}

function readVectors(file: string, count: number): Float32Array[] | undefined {
  if (!existsSync(file)) return undefined;
  const bytes = readFileSync(file);
  if (count === 0 || bytes.byteLength % (4 * count) !== 0) return undefined;
  const rows = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice();
  const dimensions = rows.length / count;
  return Array.from({ length: count }, (_, row) => rows.subarray(row * dimensions, (row + 1) * dimensions));
}

function writeVectors(file: string, vectors: readonly Float32Array[]): void {
  const dimensions = vectors[0]?.length ?? 0;
  const rows = new Float32Array(vectors.length * dimensions);
  vectors.forEach((vector, row) => rows.set(vector, row * dimensions));
  mkdirSync(cacheDirectory, { recursive: true });
  // Written aside and renamed, so an interrupted run never leaves a truncated file under the final name.
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, rows);
  renameSync(partial, file);
}

export interface EmbedOptions {
  /** Vectors of texts already embedded in this run (by another chunking of the same corpus); filled as texts are embedded. */
  readonly known?: Map<string, Float32Array>;
  readonly report?: (message: string) => void;
}

export async function embedWithCache(
  model: EmbeddingModel,
  label: string,
  texts: readonly string[],
  options: EmbedOptions = {},
): Promise<CachedEmbeddings> {
  const started = performance.now();
  const file = cacheFile(model.id, await fingerprint(model), label, texts);
  const cached = readVectors(file, texts.length);
  if (cached !== undefined) {
    if (options.known !== undefined) texts.forEach((text, index) => options.known?.set(text, cached[index] as Float32Array));
    return { vectors: cached, cached: true, milliseconds: performance.now() - started };
  }
  const known = options.known ?? new Map<string, Float32Array>();
  const missing = [...new Set(texts.filter((text) => !known.has(text)))];
  for (let start = 0; start < missing.length; start += progressSlice) {
    const slice = missing.slice(start, start + progressSlice);
    const vectors = await model.embed(slice);
    slice.forEach((text, index) => known.set(text, vectors[index] as Float32Array));
    const seconds = (performance.now() - started) / 1000;
    if (missing.length > progressSlice)
      options.report?.(`  ${label}: embedded ${start + slice.length}/${missing.length} texts in ${seconds.toFixed(0)} s`);
  }
  const vectors = texts.map((text) => known.get(text) as Float32Array);
  if (vectors.length > 0) writeVectors(file, vectors);
  return { vectors, cached: false, milliseconds: performance.now() - started };
}
