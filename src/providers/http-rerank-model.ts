// The adapter for the rerank endpoint that llama.cpp's server, vLLM, Jina and Cohere share: POST {base}/rerank with
// {model, query, documents, top_n}, answered by {results: [{index, relevance_score}]}. The official OpenAI client has
// no such method, so this is a plain fetch, with the client's conventions: one time limit, the caller's signal, and
// errors as KnowledgeErrors whose messages never hold the key.
import { KnowledgeError, isKnowledgeError } from '../errors.js';
import { safeProviderMessage } from './provider-error.js';
import type { RerankModel } from './rerank-model.js';

export interface HttpRerankSettings {
  readonly model: string;
  /** The OpenAI-compatible base URL (`http://host:port/v1`); the endpoint is `{baseUrl}/rerank`. */
  readonly baseUrl: string;
  /** Sent as a bearer token when set; a local server needs none. */
  readonly apiKey: string | undefined;
  /** Milliseconds the whole call (connection, answer, body) may take. */
  readonly timeoutMs: number;
}

/** A score per candidate fits in kilobytes: an answer past this is not a rerank answer, and is not read on. */
const maxAnswerBytes = 1_000_000;

/** The response's body as text, or undefined (the rest left unread) once it passes `limit` bytes. */
async function readUpTo(response: Response, limit: number): Promise<string | undefined> {
  if (response.body === null) return '';
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of response.body) {
    size += part.byteLength;
    // Leaving the loop cancels the stream: the rest is never downloaded.
    if (size > limit) return undefined;
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

export function createHttpRerankModel(settings: HttpRerankSettings): RerankModel {
  const endpoint = `${settings.baseUrl.replace(/\/+$/, '')}/rerank`;
  const failure = (message: string, temporary: boolean) =>
    new KnowledgeError('provider_error', safeProviderMessage(message, settings.apiKey), { temporary });
  return {
    id: settings.model,
    async score(query, documents, signal) {
      if (documents.length === 0) return [];
      signal?.throwIfAborted();
      // Linked by hand: Node 20's AbortSignal.any keeps every signal it links to a long-lived one.
      const controller = new AbortController();
      const abort = () => controller.abort(signal?.reason);
      signal?.addEventListener('abort', abort, { once: true });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, settings.timeoutMs);
      let status: number;
      let body: string;
      try {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            ...(settings.apiKey === undefined ? {} : { authorization: `Bearer ${settings.apiKey}` }),
          },
          body: JSON.stringify({ model: settings.model, query, documents, top_n: documents.length }),
          signal: controller.signal,
        });
        status = response.status;
        const text = await readUpTo(response, maxAnswerBytes);
        if (text === undefined) throw failure(`the reranker's answer is over ${maxAnswerBytes / 1_000_000} MB`, false);
        body = text;
      } catch (error) {
        if (signal?.aborted || isKnowledgeError(error)) throw error;
        if (timedOut) throw failure(`the reranker did not answer within ${settings.timeoutMs} ms`, true);
        const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
        throw failure(`the reranker could not be reached or broke off: ${String(error)}${cause}`, true);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
      }
      if (status === 401 || status === 403) {
        throw failure(`the reranker refused the credentials (HTTP ${status}); check KNOWLEDGE_AGENT_RERANK_API_KEY or LLM_API_KEY`, false);
      }
      if (status < 200 || status >= 300) {
        throw failure(`the reranker answered HTTP ${status}: ${errorDetail(body)}`, status === 408 || status === 429 || status >= 500);
      }
      const scores = parseRerankResults(body, documents.length);
      if (typeof scores === 'string') throw failure(`the reranker's answer is malformed: ${scores}`, false);
      return scores;
    },
  };
}

/**
 * The scores of a rerank answer in the documents' order, or what is wrong with it. Results may come in any order
 * (servers send them best first), with `relevance_score` or `score`; every document must be scored exactly once.
 */
export function parseRerankResults(body: string, documentCount: number): number[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'it is not JSON';
  }
  const results = (parsed as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return 'it has no results array';
  const scores: (number | undefined)[] = new Array(documentCount).fill(undefined);
  for (const result of results as unknown[]) {
    const { index, relevance_score: relevance, score } = (result ?? {}) as Record<string, unknown>;
    const value = relevance ?? score;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= documentCount) {
      return `a result has no index of the ${documentCount} documents sent`;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) return `the result of document ${index} has no numeric score`;
    if (scores[index] !== undefined) return `document ${index} is scored twice`;
    scores[index] = value;
  }
  const missing = scores.findIndex((value) => value === undefined);
  if (missing !== -1)
    return `${documentCount - results.length} of the ${documentCount} documents are not scored (document ${missing} first)`;
  return scores as number[];
}

/** The message of an error body (OpenAI, llama.cpp, vLLM and Cohere shapes), else the body's start. */
function errorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown } | null;
    const error = parsed?.error;
    if (typeof error === 'string') return error;
    if (typeof (error as { message?: unknown } | undefined)?.message === 'string') return (error as { message: string }).message;
    if (typeof parsed?.message === 'string') return parsed.message;
  } catch {
    // Not JSON: the text itself.
  }
  return body.trim().slice(0, 200) || '(no body)';
}
