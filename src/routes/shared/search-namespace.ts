// What the search routes of every wire format share: the namespace the request may read is searched, and its hits
// are numbered as snippets, which each format's shaper turns into its results.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toSnippets, type Snippet } from '../../search/snippet.js';
import type { SearchMode, SearchOutcome, SearchService } from '../../search/search-service.js';
import { abortedWhenClientLeaves, authorizeNamespace } from '../plumbing/index.js';

export interface SearchRouteOptions {
  readonly search: SearchService;
  readonly defaultNamespace: string;
}

export interface SearchRequest {
  readonly namespace?: string | undefined;
  readonly query: string;
  readonly mode: SearchMode;
  readonly limit: number;
}

/** Searches for the request; a client that leaves stops the search (its query embedding, a rerank call). */
export async function searchNamespace(
  request: FastifyRequest,
  reply: FastifyReply,
  options: SearchRouteOptions,
  asked: SearchRequest,
): Promise<{ outcome: SearchOutcome; snippets: Snippet[] }> {
  const namespace = authorizeNamespace(request, asked.namespace ?? options.defaultNamespace);
  const outcome = await options.search.search(namespace, asked.query, {
    mode: asked.mode,
    limit: asked.limit,
    signal: abortedWhenClientLeaves(reply),
  });
  return { outcome, snippets: toSnippets(outcome) };
}
