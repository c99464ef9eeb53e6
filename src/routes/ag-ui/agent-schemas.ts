// AG-UI's RunAgentInput as POST /agent takes it, and where its namespace comes from.
import { z } from 'zod';
import { chatMessageSchema, platformToolSchema } from '../agent/index.js';
import { firstNamespace, namespaceHolderSchema } from '../shared/index.js';

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
