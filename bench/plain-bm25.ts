// The data README's baseline, recomputed on any set: plain BM25 (k1 0.9, b 0.4) over lowercase alphanumeric
// tokens of title and text, no stemming or stopwords, whole documents (no chunking).
import { inverseDocumentFrequency } from '../src/indexes/bm25.js';
import { bm25TermScore } from '../test/support/bm25-reference.js';
import type { BeirSet } from './beir-set.js';

const parameters = { k1: 0.9, b: 0.4 };

function tokens(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** The top `count` document ids of each query, in the set's query order. */
export function plainBm25Rankings(set: BeirSet, count: number): string[][] {
  const postings = new Map<string, Map<number, number>>();
  const lengths = set.documents.map((document, number) => {
    const terms = tokens(`${document.title} ${document.text}`);
    for (const term of terms) {
      const list = postings.get(term) ?? new Map<number, number>();
      list.set(number, (list.get(number) ?? 0) + 1);
      postings.set(term, list);
    }
    return terms.length;
  });
  const averageLength = lengths.reduce((sum, length) => sum + length, 0) / Math.max(1, lengths.length);
  return set.queries.map((query) => {
    const totals = new Map<number, number>();
    for (const term of new Set(tokens(query.text))) {
      const list = postings.get(term);
      if (list === undefined) continue;
      const idf = inverseDocumentFrequency(set.documents.length, list.size);
      for (const [number, frequency] of list) {
        totals.set(number, (totals.get(number) ?? 0) + bm25TermScore(frequency, lengths[number] ?? 0, averageLength, idf, parameters));
      }
    }
    return [...totals]
      .sort((left, right) => right[1] - left[1] || left[0] - right[0])
      .slice(0, count)
      .map(([number]) => set.documents[number]?.id ?? '');
  });
}
