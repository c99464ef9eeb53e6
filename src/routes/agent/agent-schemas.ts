// Request and response schemas of the agent routes: the platform tool every wire format shares (the chat message has
// a module of its own), then the bodies of Variant 1, AG-UI and Variant 2 (request types derive from them; responses
// are for the API reference only, see RouteDocumentation).
import { z } from 'zod';
import { searchDocsResultSchema } from '../variant2/search-schemas.js';
import { closedBody, firstNamespace, namespaceHolderSchema } from '../shared/index.js';
import { chatMessageSchema } from './chat-message-schema.js';

const platformToolSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -'),
    description: z.string().max(2_000).default(''),
    parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }).describe('JSON Schema of the arguments.'),
  })
  .meta({
    id: 'PlatformTool',
    description: 'A tool the platform runs: a call to it ends the stream, and the platform calls again with the result.',
  });

// Variant 1: POST /agent with a Variant 1 body.

export const variant1AgentBodySchema = closedBody(
  {
    thread_id: z.string().optional(),
    run_id: z.string().optional(),
    messages: z
      .array(chatMessageSchema)
      .max(500)
      .describe('The conversation; the newest user message must contain the mention (@knowledge by default).'),
    tool_params: namespaceHolderSchema.optional(),
    tools: z.array(platformToolSchema).max(64).optional(),
  },
  {
    namespace: 'the namespace goes in tool_params.namespace',
    toolParams: 'Variant 1 names it tool_params',
  },
);

// AG-UI: POST /agent with a RunAgentInput.

/** AG-UI RunAgentInput, plus the Variant 2 `toolParams`. */
export const agUiRunInputSchema = z
  .object({
    threadId: z.string().min(1),
    runId: z.string().min(1),
    messages: z.array(chatMessageSchema).max(500),
    tools: z.array(platformToolSchema).max(64).optional(),
    context: z.array(z.unknown()).optional(),
    state: z.unknown().optional(),
    forwardedProps: z.unknown().optional(),
    toolParams: namespaceHolderSchema.optional(),
  })
  .loose();
type AgUiRunInput = z.infer<typeof agUiRunInputSchema>;

/** The first of toolParams.namespace, forwardedProps.namespace, state.namespace (CONTRACT section 4). */
export function agUiNamespace(input: AgUiRunInput): string | undefined {
  return firstNamespace(input.toolParams, input.forwardedProps, input.state);
}

// Variant 2: POST /api/agents/knowledge/generate (and Mastra's stream of the same answer).

export const generateBodySchema = z
  .object({
    messages: z.array(chatMessageSchema).min(1, 'must hold at least one message').max(500),
    toolParams: namespaceHolderSchema.optional(),
    // Sent by Mastra's client SDK: threadId and resourceId are accepted, not needed; a context's `namespace` is used.
    threadId: z.string().optional(),
    resourceId: z.string().optional(),
    runtimeContext: z.unknown().optional().describe("Mastra's runtime context: its `namespace` is used when `toolParams` names none."),
    requestContext: z.unknown().optional().describe('The same under the name Mastra 1.x uses.'),
  })
  .loose();

export const generateResponseSchema = z.object({
  runId: z.string().describe("The run's id: give feedback on the answer with it."),
  text: z.string().describe('The answer, citing snippets as [n]; its last line is `Sources: <file names>` or `Sources: none`.'),
  sources: z.array(z.string()).describe('File names of the cited snippets.'),
  covered: z
    .boolean()
    .describe(
      'True when the answer answers from the docs; false when it says the docs do not cover the question (then `sources` is empty and the closest pages are only suggested in the text).',
    ),
  toolCalls: z
    .array(
      z.object({
        toolCallId: z.string(),
        toolName: z.string(),
        args: z.object({ namespace: z.string(), query: z.string() }),
        result: z.object({
          results: z.array(searchDocsResultSchema),
          warnings: z
            .array(z.string())
            .optional()
            .describe('What the search said beside its results: the namespace does not exist, or a ranking fallback.'),
        }),
      }),
    )
    .describe('The retrieval made before the answer.'),
});
