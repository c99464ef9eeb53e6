// Variant 2 routes: lexical search (and its Mastra tool-execution form) and the non-streaming generate endpoint.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AgentService } from '../agent/agent-service.js';
import { toSnippets } from '../agent/snippet.js';
import { KnowledgeError } from '../errors.js';
import type { SearchService } from '../search/search-service.js';
import { toVariant2Result } from '../stream/ag-ui-stream.js';
import { authorizeNamespace } from './access-control.js';
import { generateBodySchema, searchDocsBodySchema, toolExecuteBodySchema, toolExecuteQuerySchema, type SearchDocsBody } from './variant2-schemas.js';

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

  app.post('/api/tools/searchDocs', { schema: { body: searchDocsBodySchema }, config: { access: 'read' } }, async (request) => searchDocs(request, request.body));

  app.post(
    '/api/tools/searchDocs/execute',
    { schema: { body: toolExecuteBodySchema(searchDocsBodySchema), querystring: toolExecuteQuerySchema }, config: { access: 'read' } },
    async (request) => searchDocs(request, request.body.data),
  );

  app.post('/api/agents/knowledge/generate', {
    preValidation: async () => {
      if (!options.agent.available) throw new KnowledgeError('agent_not_initialized', 'Agent not initialized');
    },
    schema: { body: generateBodySchema },
    config: { access: 'read' },
  }, async (request, reply) => {
    // A client that leaves before the answer is sent aborts the provider call.
    const controller = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    const answer = await options.agent.generate({
      namespace: authorizeNamespace(request, request.body.toolParams?.namespace ?? options.defaultNamespace),
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
            result: { results: answer.retrieval.snippets.map(toVariant2Result) },
          }],
    };
  });
};
