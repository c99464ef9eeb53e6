// Per-document diversity of a ranking: no document takes more than a few of the first places while other documents
// have hits, so one long page cannot fill the top k; its further hits follow, in order, after the others.
import type { ScoredHit } from '../indexes/scored-hit.js';

/** Chunks of one document among the first results before the others' turn; the agent's 4 snippets span two pages at least. */
export const maxHitsPerDocument = 2;

/** Hits to read before diversifying so that `limit` of them remain even when one document holds many of the best. */
export function diversificationDepth(limit: number): number {
  return Math.max(4 * limit, 20);
}

/**
 * The hits of `search` (the best `depth`, best first) that a diversified result of `limit` needs, searched as shallow
 * as that allows: twice the limit, then `diversificationDepth(limit)` only when fewer than `limit` of those lead for
 * their document. The first `limit` diversified hits are then the same as from the deeper search, which costs more (a
 * skipping ranking stops later the more results it keeps).
 */
export function searchDiverseEnough(
  search: (depth: number) => ScoredHit[],
  limit: number,
  documentOf: (key: string) => string | undefined,
  perDocument = maxHitsPerDocument,
): ScoredHit[] {
  const shallowDepth = 2 * limit;
  const shallow = search(shallowDepth);
  if (shallow.length < shallowDepth || leadingAndDeferred(shallow, documentOf, perDocument).leading.length >= limit) return shallow;
  return search(diversificationDepth(limit));
}

export function diversifyByDocument(
  hits: readonly ScoredHit[],
  documentOf: (key: string) => string | undefined,
  perDocument = maxHitsPerDocument,
): ScoredHit[] {
  const { leading, deferred } = leadingAndDeferred(hits, documentOf, perDocument);
  return [...leading, ...deferred];
}

/** The hits within the first `perDocument` of their document, and the others, each in order. */
function leadingAndDeferred(
  hits: readonly ScoredHit[],
  documentOf: (key: string) => string | undefined,
  perDocument: number,
): { leading: ScoredHit[]; deferred: ScoredHit[] } {
  const leading: ScoredHit[] = [];
  const deferred: ScoredHit[] = [];
  const seen = new Map<string, number>();
  for (const hit of hits) {
    const document = documentOf(hit.key) ?? hit.key;
    const count = seen.get(document) ?? 0;
    seen.set(document, count + 1);
    (count < perDocument ? leading : deferred).push(hit);
  }
  return { leading, deferred };
}
