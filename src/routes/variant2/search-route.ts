// Variant 2 search: POST /api/tools/searchDocs and its Mastra tool-execution forms, answering SearchDocsResults.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { toVariant2Result } from './result.js';
import { jsonSuccess } from '../plumbing/index.js';
import {
  searchNamespace,
  toolExecuteBodySchema,
  toolExecuteQuerySchema,
  toolExecutionData,
  type SearchRouteOptions,
} from '../shared/index.js';
import { searchDocsBodySchema, searchDocsResponseSchema, type SearchDocsBody } from './search-schemas.js';

/** searchDocs answers 5 results unless asked for more; the service caps every search at 20. */
const defaultSearchLimit = 5;

export const variant2SearchRoute: FastifyPluginAsyncZod<SearchRouteOptions> = async (app, options) => {
  async function searchDocs(request: FastifyRequest, reply: FastifyReply, body: SearchDocsBody) {
    const { outcome, snippets } = await searchNamespace(request, reply, options, { ...body, limit: body.limit ?? defaultSearchLimit });
    return {
      namespace: outcome.namespace,
      query: body.query,
      mode: outcome.mode,
      results: snippets.map(toVariant2Result),
      warnings: outcome.notice === undefined ? outcome.warnings : [...outcome.warnings, outcome.notice],
    };
  }

  const searchDocumentation = {
    success: jsonSuccess('The best results, best first, and warnings.', searchDocsResponseSchema),
    errors: ['invalid_namespace', 'forbidden', 'embeddings_unavailable', 'embedding_failed'],
  } as const;
  const searchDescription =
    'BM25 over every Markdown file of the namespace (including files placed in its folder by hand), title and headings weighted; ' +
    'excerpts are centred on the matching terms. `limit` defaults to 5, 20 at most. `mode` may ask for `embedding` or `hybrid` ranking; ' +
    'a fallback is explained in `warnings`, as is a file that cannot be read and a namespace that does not exist.';

  app.post(
    '/api/tools/searchDocs',
    {
      schema: {
        tags: ['Search'],
        summary: 'Search a namespace lexically (Variant 2)',
        description: searchDescription,
        body: searchDocsBodySchema,
        documentation: searchDocumentation,
      },
      config: { access: 'read', cost: 'free' },
    },
    async (request, reply) => searchDocs(request, reply, request.body),
  );

  // Mastra's client runs a tool at /api/tools/<id>/execute (client.getTool) or through its agent (agent.executeTool).
  for (const [url, summary] of [
    ['/api/tools/searchDocs/execute', "Search a namespace lexically, as Mastra's tool execution (Variant 2)"],
    ['/api/agents/knowledge/tools/searchDocs/execute', "Search a namespace lexically, as the Mastra agent's tool execution (Variant 2)"],
  ] as const) {
    app.post(
      url,
      {
        schema: {
          tags: ['Search'],
          summary,
          description: `Mastra's client SDK form of \`/api/tools/searchDocs\`: the same fields under \`data\`; without \`data.namespace\`, the \`namespace\` of \`runtimeContext\` (or \`requestContext\`). ${searchDescription}`,
          body: toolExecuteBodySchema(searchDocsBodySchema),
          querystring: toolExecuteQuerySchema,
          documentation: searchDocumentation,
        },
        config: { access: 'read', cost: 'free' },
      },
      async (request, reply) => searchDocs(request, reply, toolExecutionData(request.body)),
    );
  }
};
