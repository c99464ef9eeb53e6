// The rerank stage of a search: the head of a ranking goes to a rerank model and comes back in the model's order,
// each hit scored with the model's relevance score. A failure leaves the ranking as it was and says why.
import { embeddingText } from '../embedding/embedding-text.js';
import { isKnowledgeError } from '../errors.js';
import type { ScoredHit } from '../indexes/scored-hit.js';
import type { RerankModel } from '../providers/rerank-model.js';

export interface SearchReranking {
  readonly model: RerankModel;
  /** Hits of the ranking's head sent to the model; at least as many as the search returns are sent. */
  readonly candidates: number;
}

/** Characters of a candidate sent to the model: rerankers read about 512 tokens, and the request stays small. */
const maxRerankTextLength = 2_000;

/** A candidate as the model reads it: its document's title and heading path, then its text, cut at a word. */
export function rerankText(title: string, headingPath: readonly string[], text: string): string {
  const full = embeddingText(title, headingPath, text);
  if (full.length <= maxRerankTextLength) return full;
  const space = full.slice(0, maxRerankTextLength + 1).search(/\s\S*$/);
  let end = space > maxRerankTextLength * 0.8 ? space : maxRerankTextLength;
  // Never half a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(full.charAt(end - 1))) end -= 1;
  return full.slice(0, end).trimEnd();
}

/** The candidates best first by the model's scores (ties keep the ranking's order), each scored with its own. */
export function orderByRelevance(candidates: readonly ScoredHit[], scores: readonly number[]): ScoredHit[] {
  return candidates
    .map((hit, position) => ({ key: hit.key, score: scores[position] ?? Number.NEGATIVE_INFINITY, position }))
    .sort((left, right) => right.score - left.score || left.position - right.position)
    .map(({ key, score }) => ({ key, score }));
}

export interface RerankRequest {
  readonly query: string;
  /** The ranking, best first. */
  readonly hits: readonly ScoredHit[];
  /** Results the search returns. */
  readonly limit: number;
  /** The text sent for a hit (see rerankText); undefined leaves the hit out. */
  readonly textOf: (key: string) => string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * The ranking's head reordered by the model: only the candidates, scored by the model (they are at least `limit`);
 * or, when the model fails, the ranking as it was with a notice saying so. The caller's abort is thrown.
 */
export async function rerankHits(
  reranking: SearchReranking,
  request: RerankRequest,
): Promise<{ hits: readonly ScoredHit[]; notice?: string }> {
  const candidates = request.hits.slice(0, Math.max(reranking.candidates, request.limit)).flatMap((hit) => {
    const text = request.textOf(hit.key);
    return text === undefined ? [] : [{ hit, text }];
  });
  if (candidates.length === 0) return { hits: request.hits };
  try {
    const scores = await reranking.model.score(
      request.query,
      candidates.map((candidate) => candidate.text),
      request.signal,
    );
    return {
      hits: orderByRelevance(
        candidates.map((candidate) => candidate.hit),
        scores,
      ),
    };
  } catch (error) {
    if (request.signal?.aborted === true || !isKnowledgeError(error)) throw error;
    return {
      hits: request.hits,
      notice: `reranking with ${reranking.model.id} failed (${error.message}); these results are in the search's own order`,
    };
  }
}
