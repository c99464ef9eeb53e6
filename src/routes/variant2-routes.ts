// Variant 2 routes: lexical search (and its Mastra tool-execution form) and the non-streaming generate endpoint.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AgentService } from '../agent/agent-service.js';
import { toSnippets } from '../agent/snippet.js';
import { KnowledgeError } from '../errors.js';
import type { SearchService } from '../search/search-service.js';
import { toVariant2Result } from '../stream/ag-ui-stream.js';
import { authorizeNamespace } from './access-control.js';
import { jsonSuccess } from './openapi.js';
import {
  generateBodySchema,
  generateResponseSchema,
  searchDocsBodySchema,
  searchDocsResponseSchema,
  toolExecuteBodySchema,
  toolExecuteQuerySchema,
  firstNamespace,
  mastraNamespace,
  type SearchDocsBody,
} from './variant2-schemas.js';

export interface Variant2RouteOptions {
  readonly search: SearchService;
  readonly agent: AgentService;
  readonly defaultNamespace: string;
  readonly storagePath: string;
}

/** searchDocs answers 5 results unless asked for more; the service caps every search at 20. */
const defaultSearchLimit = 5;

export const variant2Routes: FastifyPluginAsyncZod<Variant2RouteOptions> = async (app, options) => {
  async function searchDocs(request: FastifyRequest, body: SearchDocsBody) {
    const namespace = authorizeNamespace(request, body.namespace ?? options.defaultNamespace);
    const outcome = await options.search.search(namespace, body.query, { mode: body.mode, limit: body.limit ?? defaultSearchLimit });
    return {
      namespace: outcome.namespace,
      query: body.query,
      mode: outcome.mode,
      results: toSnippets(outcome, options.storagePath).map(toVariant2Result),
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

  app.post('/api/tools/searchDocs', {
    schema: {
      tags: ['Search'],
      summary: 'Search a namespace lexically (Variant 2)',
      description: searchDescription,
      body: searchDocsBodySchema,
      documentation: searchDocumentation,
    },
    config: { access: 'read' },
  }, async (request) => searchDocs(request, request.body));

  // Mastra's client runs a tool at /api/tools/<id>/execute (client.getTool) or through its agent (agent.executeTool).
  for (const [url, summary] of [
    ['/api/tools/searchDocs/execute', "Search a namespace lexically, as Mastra's tool execution (Variant 2)"],
    ['/api/agents/knowledge/tools/searchDocs/execute', "Search a namespace lexically, as the Mastra agent's tool execution (Variant 2)"],
  ] as const) {
    app.post(url, {
      schema: {
        tags: ['Search'],
        summary,
        description: `Mastra's client SDK form of \`/api/tools/searchDocs\`: the same fields under \`data\`; without \`data.namespace\`, the \`namespace\` of \`runtimeContext\` (or \`requestContext\`). ${searchDescription}`,
        body: toolExecuteBodySchema(searchDocsBodySchema),
        querystring: toolExecuteQuerySchema,
        documentation: searchDocumentation,
      },
      config: { access: 'read' },
    }, async (request) => {
      const { data, runtimeContext, requestContext } = request.body;
      return searchDocs(request, { ...data, namespace: firstNamespace(data, runtimeContext, requestContext) });
    });
  }

  app.post('/api/agents/knowledge/generate', {
    preValidation: async () => {
      if (!options.agent.available) throw new KnowledgeError('agent_not_initialized', 'Agent not initialized');
    },
    schema: {
      tags: ['Agent'],
      summary: 'Answer from the docs, not streamed (Variant 2)',
      description:
        'Searches the namespace (`toolParams.namespace`) for the newest user message, then answers from the snippets, citing them as [n]; ' +
        'the text ends with `Sources: <file names>`. Messages are sanitized (unknown roles dropped, content parts flattened, each message and the history capped). ' +
        "Mastra's `threadId` and `resourceId` are accepted and ignored; without `toolParams.namespace`, the `namespace` of `runtimeContext` (or `requestContext`) is used. 503 `Agent not initialized` without a provider key.",
      body: generateBodySchema,
      documentation: {
        success: jsonSuccess('The answer, its sources and the retrieval call.', generateResponseSchema),
        errors: ['agent_not_initialized', 'invalid_namespace', 'forbidden', 'provider_error', 'embedding_failed'],
      },
    },
    config: { access: 'read' },
  }, async (request, reply) => {
    // A client that leaves before the answer is sent aborts the provider call.
    const controller = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    const answer = await options.agent.generate({
      namespace: authorizeNamespace(request, mastraNamespace(request.body) ?? options.defaultNamespace),
      messages: request.body.messages,
      platformTools: [],
      signal: controller.signal,
    });
    return {
      text: answer.text,
      sources: answer.sources,
      toolCalls: answer.retrieval === undefined
        ? []
        : [{
            toolCallId: answer.retrieval.toolCallId,
            toolName: answer.retrieval.toolName,
            args: answer.retrieval.args,
            result: { results: answer.retrieval.snippets.map(toVariant2Result), ...(answer.retrieval.notice === undefined ? {} : { warnings: [answer.retrieval.notice] }) },
          }],
    };
  });
};
