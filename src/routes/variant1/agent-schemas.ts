// The Variant 1 body of POST /agent (the request type derives from it).
import { z } from 'zod';
import { chatMessageSchema, platformToolSchema } from '../agent/index.js';
import { closedBody, namespaceHolderSchema } from '../shared/index.js';

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
