// What Mastra's client SDK wraps around a request: `{data, runtimeContext}` for a tool execution, and a context whose
// `namespace` stands in for one the request leaves out. Used by the search, ingest and agent routes' Mastra forms.
import { z } from 'zod';

const contextSchema = z.record(z.string(), z.unknown()).optional();

/** Mastra's client SDK sends `{data, runtimeContext}` (0.x; `requestContext` in 1.x) to `/api/tools/<id>/execute`. */
export const toolExecuteBodySchema = <Schema extends z.ZodType>(data: Schema) =>
  z.object({
    data,
    runtimeContext: contextSchema.describe("Mastra's runtime context: its `namespace` is used when `data` names none."),
    requestContext: contextSchema.describe('The same under the name Mastra 1.x uses.'),
  });

export const toolExecuteQuerySchema = z.object({ runId: z.string().optional().describe("Mastra's run id; accepted, not used.") });

/** The first non-empty `namespace` field of these objects, in order. */
export function firstNamespace(...holders: unknown[]): string | undefined {
  for (const holder of holders) {
    const namespace = (holder as { namespace?: unknown } | null | undefined)?.namespace;
    if (typeof namespace === 'string' && namespace !== '') return namespace;
  }
  return undefined;
}

/** Mastra bodies: `toolParams.namespace`, then the client's runtime context (0.x) or request context (1.x). */
export function mastraNamespace(input: { toolParams?: unknown; runtimeContext?: unknown; requestContext?: unknown }): string | undefined {
  return firstNamespace(input.toolParams, input.runtimeContext, input.requestContext);
}

/** A tool execution's fields, with the namespace of Mastra's context when `data` names none. */
export function toolExecutionData<Data extends { namespace?: string | undefined }>(body: {
  data: Data;
  runtimeContext?: unknown;
  requestContext?: unknown;
}): Data {
  return { ...body.data, namespace: firstNamespace(body.data, body.runtimeContext, body.requestContext) };
}
