// Request and response schemas of Variant 2's answer, POST /api/agents/knowledge/generate (and Mastra's stream of the
// same answer); the request type derives from them, the response is for the API reference only (see RouteDocumentation).
import { z } from 'zod';
import { chatMessageSchema } from '../agent/index.js';
import { namespaceHolderSchema } from '../shared/index.js';
import { searchDocsResultSchema } from './search-schemas.js';

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
  // Open to the fields Mastra's clients add, but not to a `namespace` beside the messages: ignored, it left the answer
  // speaking of the default namespace (issue 24).
  .loose()
  .refine((body) => !('namespace' in body), {
    message: 'unknown field "namespace": the namespace goes in toolParams.namespace (or a Mastra runtimeContext\'s namespace)',
  });

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
