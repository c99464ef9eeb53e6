// Request schemas of the Variant 2 routes (search, generate, the AG-UI agent input; types derive from them), and the response schemas of the API reference.
import { z } from 'zod';
import {
  chatMessageSchema, namespaceFieldSchema, perSourceErrorFields, platformToolSchema, replacedDocumentSchema, searchModeSchema, searchQuerySchema,
  storedStatusSchema, storedWarningSchema,
} from './variant1-schemas.js';

export const searchDocsBodySchema = z.object({
  namespace: namespaceFieldSchema,
  query: searchQuerySchema,
  limit: z.number().int().min(0).optional().describe('Results at most; 5 when left out; above 20 gives 20.'),
  mode: searchModeSchema.default('lexical').describe('Ranking: BM25 over title, headings and body, cosine similarity of embeddings, or both fused.'),
});
export type SearchDocsBody = z.infer<typeof searchDocsBodySchema>;

const contextSchema = z.record(z.string(), z.unknown()).optional();

/** Mastra's client SDK sends `{data, runtimeContext}` (0.x; `requestContext` in 1.x) to `/api/tools/<id>/execute`. */
export const toolExecuteBodySchema = <Schema extends z.ZodType>(data: Schema) =>
  z.object({
    data,
    runtimeContext: contextSchema.describe("Mastra's runtime context: its `namespace` is used when `data` names none."),
    requestContext: contextSchema.describe('The same under the name Mastra 1.x uses.'),
  });

export const toolExecuteQuerySchema = z.object({ runId: z.string().optional().describe("Mastra's run id; accepted, not used.") });

const namespaceHolder = z.object({ namespace: namespaceFieldSchema }).loose();

export const generateBodySchema = z
  .object({
    messages: z.array(chatMessageSchema).min(1, 'must hold at least one message').max(500),
    toolParams: namespaceHolder.optional(),
    // Sent by Mastra's client SDK: threadId and resourceId are accepted, not needed; a context's `namespace` is used.
    threadId: z.string().optional(),
    resourceId: z.string().optional(),
    runtimeContext: z.unknown().optional().describe("Mastra's runtime context: its `namespace` is used when `toolParams` names none."),
    requestContext: z.unknown().optional().describe('The same under the name Mastra 1.x uses.'),
  })
  .loose();
export type GenerateBody = z.infer<typeof generateBodySchema>;

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
    toolParams: namespaceHolder.optional(),
  })
  .loose();
export type AgUiRunInput = z.infer<typeof agUiRunInputSchema>;

// Responses, for the API reference only (see RouteDocumentation in openapi.ts).

export const variant2IngestResponseSchema = z.object({
  namespace: z.string(),
  saved: z.number().int().min(0),
  updated: z.number().int().min(0),
  skipped: z.number().int().min(0),
  errors: z.array(z.object(perSourceErrorFields)),
  files: z.array(
    z.object({
      file: z.string().describe('File name in the namespace: the citation label.'),
      status: storedStatusSchema,
      source: z.string().describe('The URL, the upload path with its folders (`tutorial/middleware.md`), or `text`: the identity that upserts match on.'),
      replaced: replacedDocumentSchema.optional(),
      warning: storedWarningSchema,
    }),
  ),
  removed: z.number().int().min(0).optional().describe('Documents a pruning crawl removed.'),
});

export const searchDocsResultSchema = z
  .object({ file: z.string().describe('The citation label.'), title: z.string(), score: z.number(), excerpt: z.string().describe('Centred on the matching terms.') })
  .meta({ id: 'SearchDocsResult' });

export const searchDocsResponseSchema = z.object({
  namespace: z.string(),
  query: z.string(),
  mode: searchModeSchema.describe('The ranking actually used.'),
  results: z.array(searchDocsResultSchema),
  warnings: z.array(z.string()).describe('Files that could not be read, why the ranking differs from the one asked for, and that the namespace does not exist.'),
});

export const generateResponseSchema = z.object({
  text: z.string().describe('The answer, citing snippets as [n]; its last line is `Sources: <file names>` or `Sources: none`.'),
  sources: z.array(z.string()).describe('File names of the cited snippets.'),
  toolCalls: z.array(
    z.object({
      toolCallId: z.string(),
      toolName: z.string(),
      args: z.object({ namespace: z.string(), query: z.string() }),
      result: z.object({
        results: z.array(searchDocsResultSchema),
        warnings: z.array(z.string()).optional().describe('What the search said beside its results: the namespace does not exist, or a ranking fallback.'),
      }),
    }),
  ).describe('The retrieval made before the answer.'),
});

/** The first non-empty `namespace` field of these objects, in order. */
export function firstNamespace(...holders: unknown[]): string | undefined {
  for (const holder of holders) {
    const namespace = (holder as { namespace?: unknown } | null | undefined)?.namespace;
    if (typeof namespace === 'string' && namespace !== '') return namespace;
  }
  return undefined;
}

/** The first of toolParams.namespace, forwardedProps.namespace, state.namespace (CONTRACT section 4). */
export function agUiNamespace(input: AgUiRunInput): string | undefined {
  return firstNamespace(input.toolParams, input.forwardedProps, input.state);
}

/** Mastra bodies: `toolParams.namespace`, then the client's runtime context (0.x) or request context (1.x). */
export function mastraNamespace(input: { toolParams?: unknown; runtimeContext?: unknown; requestContext?: unknown }): string | undefined {
  return firstNamespace(input.toolParams, input.runtimeContext, input.requestContext);
}
