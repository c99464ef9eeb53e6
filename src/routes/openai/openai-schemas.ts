// The OpenAI-compatible API's request schemas and model names: a model is the assistant over one namespace,
// `knowledge/<namespace>` (`knowledge` alone is the default namespace).
import { z } from 'zod';
import { KnowledgeError } from '../../errors.js';
import { chatMessageSchema } from '../agent/index.js';

export const assistantModelPrefix = 'knowledge';

export function modelOfNamespace(namespace: string): string {
  return `${assistantModelPrefix}/${namespace}`;
}

/** The namespace a model names, before sanitizing; 404 `model_not_found` for a model this service does not serve. */
export function namespaceOfModel(model: string, defaultNamespace: string): string {
  if (model === assistantModelPrefix) return defaultNamespace;
  if (model.startsWith(`${assistantModelPrefix}/`) && model.length > assistantModelPrefix.length + 1)
    return model.slice(assistantModelPrefix.length + 1);
  throw new KnowledgeError(
    'model_not_found',
    `The model ${JSON.stringify(model)} does not exist: models are "${assistantModelPrefix}/<namespace>" (GET /v1/models lists them)`,
  );
}

const openAiToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -'),
    description: z.string().max(2_000).default(''),
    parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }),
  }),
});

export const chatCompletionBodySchema = z
  .object({
    model: z
      .string()
      .min(1)
      .max(300)
      .describe('`knowledge/<namespace>`: the assistant over that namespace; `knowledge` alone is the default namespace.'),
    messages: z.array(chatMessageSchema).min(1, 'must hold at least one message').max(500),
    stream: z.boolean().optional().describe('true: `chat.completion.chunk` events, then `data: [DONE]`.'),
    tools: z
      .array(openAiToolSchema)
      .max(64)
      .optional()
      .describe('Functions the caller runs: a call to one ends the answer with `finish_reason: "tool_calls"`.'),
  })
  .loose()
  .describe('Sampling options (temperature, max_tokens, ...) are accepted and ignored: the service sets them.');
export type ChatCompletionBody = z.infer<typeof chatCompletionBodySchema>;

// Responses, for the API reference only.

export const modelSchema = z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() });
export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelSchema) });

export const chatCompletionSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({
        role: z.literal('assistant'),
        content: z
          .string()
          .nullable()
          .describe('The answer, citing snippets as [n]; its last line is `Sources: <titles>` (linked to their URLs) or `Sources: none`.'),
        refusal: z.null(),
        tool_calls: z
          .array(z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) }))
          .optional(),
      }),
      logprobs: z.null(),
      finish_reason: z.enum(['stop', 'tool_calls']),
    }),
  ),
  covered: z
    .boolean()
    .describe(
      'Not an OpenAI field: false when the answer says the docs do not cover the question (it then cites nothing and suggests the closest pages). The last streamed chunk carries it too.',
    ),
});

export const openAiErrorSchema = z
  .object({
    error: z.object({
      message: z.string().describe('What went wrong, for people; a 400 names the field.'),
      type: z
        .string()
        .describe(
          "OpenAI's error type: invalid_request_error, authentication_error, permission_error, not_found_error, rate_limit_error or server_error.",
        ),
      param: z.null(),
      code: z.string().describe('A code of the error table (docs/api.md, Errors).'),
    }),
  })
  .meta({
    id: 'OpenAiErrorBody',
    description: "The body of a failed request under /v1: OpenAI's error shape, holding the contract's code and message.",
  });
