// Variant 2's answer, not streamed: POST /api/agents/knowledge/generate.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { abortedWhenClientLeaves, authorizeNamespace, jsonSuccess } from '../plumbing/index.js';
import { mastraNamespace } from '../shared/index.js';
import { requireAgent, type AgentRouteOptions } from '../agent/index.js';
import { generateBodySchema, generateResponseSchema } from './agent-schemas.js';
import { variant2AnswerFormat } from './answer-format.js';
import { variant2RetrievalResult } from './result.js';

export const generateRoute: FastifyPluginAsyncZod<AgentRouteOptions> = async (app, options) => {
  app.post(
    '/api/agents/knowledge/generate',
    {
      preValidation: requireAgent(options.agent),
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
      config: { access: 'read', cost: 'request' },
    },
    async (request, reply) => {
      const answer = await options.agent.generate(
        {
          runId: `run_${randomUUID()}`,
          channel: 'generate',
          namespace: authorizeNamespace(request, mastraNamespace(request.body) ?? options.defaultNamespace),
          messages: request.body.messages,
          platformTools: [],
          signal: abortedWhenClientLeaves(reply),
        },
        variant2AnswerFormat,
      );
      return {
        runId: answer.runId,
        text: answer.text,
        sources: answer.sources,
        covered: answer.covered,
        toolCalls:
          answer.retrieval === undefined
            ? []
            : [
                {
                  toolCallId: answer.retrieval.toolCallId,
                  toolName: answer.retrieval.toolName,
                  args: answer.retrieval.args,
                  result: variant2RetrievalResult(answer.retrieval.snippets, answer.retrieval.notice),
                },
              ],
      };
    },
  );
};
