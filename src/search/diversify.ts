// Per-document diversity of a ranking: no document takes more than a few of the first places while other documents
// have hits, so one long page cannot fill the top k; its further hits follow, in order, after the others.
import type { ScoredHit } from '../indexes/scored-hit.js';

/** Chunks of one document among the first results before the others' turn; the agent's 4 snippets span two pages at least. */
export const maxHitsPerDocument = 2;

/** Hits to read before diversifying so that `limit` of them remain even when one document holds many of the best. */
export function diversificationDepth(limit: number): number {
  return Math.max(4 * limit, 20);
}

export function diversifyByDocument(
  hits: readonly ScoredHit[],
  documentOf: (key: string) => string | undefined,
  perDocument = maxHitsPerDocument,
): ScoredHit[] {
  const first: ScoredHit[] = [];
  const deferred: ScoredHit[] = [];
  const seen = new Map<string, number>();
  for (const hit of hits) {
    const document = documentOf(hit.key) ?? hit.key;
    const count = seen.get(document) ?? 0;
    seen.set(document, count + 1);
    (count < perDocument ? first : deferred).push(hit);
  }
  return [...first, ...deferred];
}
