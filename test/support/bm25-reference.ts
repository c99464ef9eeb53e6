// BM25 and BM25F ranking math as pure functions over plain numbers: the reference the lexical index, which inlines
// the same formulas, is checked against (test/indexes/), and the plain BM25 baseline of the benchmarks (bench/plain-bm25.ts).

export interface Bm25Parameters {
  /** Term-frequency saturation: higher lets repeated terms keep adding score. */
  readonly k1: number;
  /** Length normalization from 0 (none) to 1 (full). */
  readonly b: number;
}

/** One field of one document as BM25F sees it. */
export interface FieldFrequency {
  readonly termFrequency: number;
  readonly length: number;
  readonly averageLength: number;
  readonly weight: number;
  /** Length normalization of this field, 0 to 1. */
  readonly b: number;
}

/** The factor 1 - b + b * length / averageLength that divides a raw term frequency. */
export function lengthNormalization(length: number, averageLength: number, b: number): number {
  if (averageLength <= 0) return 1;
  return 1 - b + (b * length) / averageLength;
}

/** tf * (k1 + 1) / (tf + k1): 0 for tf 0, rising towards k1 + 1. */
export function saturate(termFrequency: number, k1: number): number {
  if (termFrequency <= 0) return 0;
  return (termFrequency * (k1 + 1)) / (termFrequency + k1);
}

/** Classic BM25 contribution of one term to one document. */
export function bm25TermScore(
  termFrequency: number,
  documentLength: number,
  averageDocumentLength: number,
  idf: number,
  parameters: Bm25Parameters,
): number {
  const normalized = termFrequency / lengthNormalization(documentLength, averageDocumentLength, parameters.b);
  return idf * saturate(normalized, parameters.k1);
}

/**
 * BM25F contribution of one term: each field's frequency is length-normalized and weighted, the sum
 * is saturated once, so a term repeated across title and body cannot score twice over.
 */
export function bm25fTermScore(fields: readonly FieldFrequency[], idf: number, k1: number): number {
  let weightedFrequency = 0;
  for (const field of fields) {
    if (field.termFrequency <= 0) continue;
    weightedFrequency += (field.weight * field.termFrequency) / lengthNormalization(field.length, field.averageLength, field.b);
  }
  return idf * saturate(weightedFrequency, k1);
}
