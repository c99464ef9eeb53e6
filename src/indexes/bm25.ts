// BM25's inverse document frequency (the index inlines the rest of the BM25F formula; test/support/bm25-reference.ts
// writes the formulas out as pure functions the index's scores are checked against).

/**
 * Inverse document frequency in the Lucene form ln(1 + (N - n + 0.5) / (n + 0.5)), which stays
 * positive even for terms in more than half of the documents.
 */
export function inverseDocumentFrequency(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}
