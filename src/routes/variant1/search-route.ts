// Variant 1 search: POST /tools/search, answering the seed's Matches.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { toMatch } from './match.js';
import { jsonSuccess } from '../plumbing/index.js';
import { searchNamespace, type SearchRouteOptions } from '../shared/index.js';
import { variant1SearchBodySchema, variant1SearchResponseSchema } from './search-schemas.js';

export interface Variant1SearchRouteOptions extends SearchRouteOptions {
  /** Matches per search when the request names no `top_k`. */
  readonly topK: number;
  /** The storage root as configured, for the stored files the matches name. */
  readonly storagePath: string;
}

export const variant1SearchRoute: FastifyPluginAsyncZod<Variant1SearchRouteOptions> = async (app, options) => {
  app.post(
    '/tools/search',
    {
      schema: {
        tags: ['Search'],
        summary: 'Search a namespace by embedding similarity (Variant 1)',
        description:
          'Ranks the chunks of the namespace by cosine similarity to the query (`mode` `embedding`, the default), by BM25 (`lexical`) or both fused (`hybrid`). ' +
          'At most `top_k` matches (KNOWLEDGE_AGENT_TOP_K by default, 20 at most). ' +
          '`notice` explains a fallback to lexical ranking, or says that the namespace does not exist (no matches, and nothing is created).',
        body: variant1SearchBodySchema,
        documentation: {
          success: jsonSuccess('The best matches, best first.', variant1SearchResponseSchema),
          errors: ['invalid_namespace', 'forbidden', 'embeddings_unavailable', 'embedding_failed'],
        },
      },
      config: { access: 'read', cost: 'free' },
    },
    async (request, reply) => {
      const { query } = request.body;
      const { outcome, snippets } = await searchNamespace(request, reply, options, {
        ...request.body,
        limit: request.body.top_k ?? options.topK,
      });
      return {
        namespace: outcome.namespace,
        query,
        mode: outcome.mode,
        matches: snippets.map((snippet) => toMatch(snippet, options.storagePath, outcome.namespace)),
        ...(outcome.notice === undefined ? {} : { notice: outcome.notice }),
      };
    },
  );
};
