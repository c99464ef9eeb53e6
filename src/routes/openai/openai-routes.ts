// The OpenAI-compatible API under /v1: chat completions (streamed or not) and the model list. A model is the
// assistant over one namespace; the answer is the agent's usual grounded, cited one. Errors use OpenAI's shape.
import type { FastifyError } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CatalogService } from '../../catalog/catalog-service.js';
import type { AnswerFormat } from '../../agent/agent-service.js';
import { pageLabel } from '../../search/page-label.js';
import { OpenAiChatStream, openAiErrorBody } from './openai-chat-stream.js';
import { requireAgent, streamAgentRun, type AgentRouteOptions } from '../agent/index.js';
import { abortedWhenClientLeaves, authorizeNamespace, jsonSuccess, mayAccess, toKnowledgeError } from '../plumbing/index.js';
import {
  chatCompletionBodySchema,
  chatCompletionSchema,
  modelListSchema,
  modelOfNamespace,
  openAiErrorSchema,
  modelSchema,
  namespaceOfModel,
  type ChatCompletionBody,
} from './openai-schemas.js';

export interface OpenAiRouteOptions extends AgentRouteOptions {
  readonly catalog: CatalogService;
}

/** When this process started: the `created` time of every model (namespaces record no creation time). */
const startedAt = Math.floor(Date.now() / 1000);

function toModel(namespace: string) {
  return { id: modelOfNamespace(namespace), object: 'model' as const, created: startedAt, owned_by: 'knowledge-agent' };
}

function platformTools(body: ChatCompletionBody) {
  return (body.tools ?? []).map((tool) => ({
    name: tool.function.name,
    description: tool.function.description,
    parameters: tool.function.parameters,
  }));
}

/** Every /v1 route documents OpenAI's error body. */
const errorBody = { schema: openAiErrorSchema, example: openAiErrorBody };

/**
 * A chat completion carries no retrieval call, so the tool's name is only the agent's; no mention gate (a chat client
 * addresses the model by name); sources named as every channel names them.
 */
const openAiAnswerFormat: AnswerFormat = { retrievalToolName: 'search_docs', sourceLabel: pageLabel, requiresMention: false };

export const openAiRoutes: FastifyPluginAsyncZod<OpenAiRouteOptions> = async (app, options) => {
  // OpenAI's clients read `error.message`, `error.type` and `error.code`; the body still holds the contract's code and message.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = toKnowledgeError(request, error);
    return reply.code(failure.status).send(openAiErrorBody(failure.code, failure.message));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(openAiErrorBody('not_found', `no route ${request.method} ${request.url.split('?')[0]}`));
  });

  app.get(
    '/models',
    {
      schema: {
        tags: ['OpenAI-compatible'],
        summary: 'List the models (OpenAI-compatible)',
        description: 'One model per namespace that exists and that the token may read, `knowledge/<namespace>`.',
        documentation: { success: jsonSuccess('The models.', modelListSchema), errorBody },
      },
      config: { access: 'read', cost: 'free' },
    },
    async (request) => {
      const names = new Set((await options.catalog.namespaces()).map((summary) => summary.name));
      return {
        object: 'list' as const,
        data: [...names]
          .filter((name) => mayAccess(request, name))
          .sort()
          .map(toModel),
      };
    },
  );

  app.get(
    '/models/*',
    {
      schema: {
        tags: ['OpenAI-compatible'],
        summary: 'Describe one model (OpenAI-compatible)',
        description: '`GET /v1/models/knowledge/docs`: the model of that namespace; 404 `model_not_found` for any other name.',
        params: z.object({ '*': z.string().describe('The model, e.g. `knowledge/docs`.') }),
        documentation: {
          success: jsonSuccess('The model.', modelSchema),
          errors: ['model_not_found', 'invalid_namespace', 'forbidden'],
          errorBody,
        },
      },
      config: { access: 'read', cost: 'free' },
    },
    async (request) => toModel(authorizeNamespace(request, namespaceOfModel(request.params['*'], options.defaultNamespace))),
  );

  app.post(
    '/chat/completions',
    {
      preValidation: requireAgent(options.agent),
      schema: {
        tags: ['OpenAI-compatible'],
        summary: 'Answer from the docs as a chat completion (OpenAI-compatible)',
        description:
          'The model `knowledge/<namespace>` searches that namespace for the newest user message and answers from the snippets, citing them as [n], ' +
          "with `Sources: <titles>` as the last line (each linked to its URL when it came from the web), as on Variant 1's `/agent`. With `stream: true` the answer arrives as " +
          '`chat.completion.chunk` events ending `data: [DONE]`; a failure after the stream started is a frame `{"error":{...}}` before `[DONE]`. ' +
          'System messages are dropped and sampling options ignored, so answers stay grounded. Errors: `{"error":{"message","type","param","code"}}`.',
        body: chatCompletionBodySchema,
        documentation: {
          success: {
            description: 'A `chat.completion`, or with `stream: true` Server-Sent Events of `chat.completion.chunk`, then `data: [DONE]`.',
            content: {
              'application/json': chatCompletionSchema,
              'text/event-stream': z.string().describe('`data: <chat.completion.chunk>` frames, then `data: [DONE]`.'),
            },
          },
          errors: ['agent_not_initialized', 'model_not_found', 'invalid_namespace', 'forbidden', 'provider_error', 'embedding_failed'],
          errorBody,
        },
      },
      config: { access: 'read', cost: 'request' },
    },
    async (request, reply) => {
      const body = request.body;
      const namespace = authorizeNamespace(request, namespaceOfModel(body.model, options.defaultNamespace));
      // The completion's `id` is the run id feedback names.
      const encoder = new OpenAiChatStream(body.model);
      if (body.stream === true) {
        return streamAgentRun(request, reply, encoder, (signal) =>
          options.agent.answer(
            { runId: encoder.id, channel: 'openai', namespace, messages: body.messages, platformTools: platformTools(body), signal },
            openAiAnswerFormat,
          ),
        );
      }
      const answer = await options.agent.generate(
        {
          runId: encoder.id,
          channel: 'openai',
          namespace,
          messages: body.messages,
          platformTools: platformTools(body),
          signal: abortedWhenClientLeaves(reply),
        },
        openAiAnswerFormat,
      );
      const toolCalls = answer.platformToolCalls.map((call) => ({
        id: call.toolCallId,
        type: 'function' as const,
        function: { name: call.toolName, arguments: call.argumentsText },
      }));
      return encoder.completion(answer.text, toolCalls, answer.covered);
    },
  );
};
