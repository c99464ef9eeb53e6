// Request schemas of the Variant 2 routes (search, generate, the AG-UI agent input); types derive from them.
import { z } from 'zod';
import { chatMessageSchema, platformToolSchema, searchModeSchema } from './variant1-schemas.js';

export const searchDocsBodySchema = z.object({
  namespace: z.string().max(200).optional(),
  query: z.string().trim().min(1, 'must not be empty').max(2_000),
  limit: z.number().int().min(0).optional(),
  mode: searchModeSchema.default('lexical'),
});
export type SearchDocsBody = z.infer<typeof searchDocsBodySchema>;

/** Mastra's client SDK sends `{data, runtimeContext}` to `/api/tools/<id>/execute`. */
export const toolExecuteBodySchema = <Schema extends z.ZodType>(data: Schema) =>
  z.object({ data, runtimeContext: z.record(z.string(), z.unknown()).optional() });

export const toolExecuteQuerySchema = z.object({ runId: z.string().optional() });

const namespaceHolder = z.object({ namespace: z.string().max(200).optional() }).loose();

export const generateBodySchema = z
  .object({
    messages: z.array(chatMessageSchema).min(1, 'must hold at least one message').max(500),
    toolParams: namespaceHolder.optional(),
    // Sent by Mastra's client SDK; accepted, not needed.
    threadId: z.string().optional(),
    resourceId: z.string().optional(),
    runtimeContext: z.unknown().optional(),
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

/** The first of toolParams.namespace, forwardedProps.namespace, state.namespace (CONTRACT section 4). */
export function agUiNamespace(input: AgUiRunInput): string | undefined {
  const fromObject = (value: unknown) => {
    const namespace = (value as { namespace?: unknown } | null | undefined)?.namespace;
    return typeof namespace === 'string' && namespace !== '' ? namespace : undefined;
  };
  return fromObject(input.toolParams) ?? fromObject(input.forwardedProps) ?? fromObject(input.state);
}
