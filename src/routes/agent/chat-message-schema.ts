// A chat message as every agent route takes it (OpenAI-style or AG-UI field names), validated once here and read into
// the agent's IncomingMessage: content flattened to text, tool calls and the tool result's call id picked out.
// Lenient by design: a field of the wrong shape carries nothing (no text, no call) instead of refusing the request;
// the agent then keeps what it can use (see sanitizeConversation).
import { z } from 'zod';
import type { IncomingMessage } from '../../agent/conversation.js';

/** A content part that carries text: a string, or an object with a `text` string (`{type: 'text', text}`). */
const textPartSchema = z.union([z.string(), z.looseObject({ text: z.string() }).transform((part) => part.text)]);

/** Content parts are flattened to their text, one part a line; anything without text is no text. */
const contentSchema = z
  .union([
    z.string(),
    z.array(z.unknown()).transform((parts) =>
      parts
        .map((part) => textPartSchema.safeParse(part).data ?? '')
        .filter((text) => text !== '')
        .join('\n'),
    ),
    textPartSchema,
  ])
  .catch('');

/** Arguments are JSON text on the wire; anything else is replaced by an empty object, never serialized. */
const toolCallSchema = z
  .looseObject({ id: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string().catch('{}') }) })
  .transform((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));

/** The calls that have an id and a function name; others are left out. */
const toolCallsSchema = z
  .array(z.unknown())
  .transform((calls) => calls.flatMap((call) => toolCallSchema.safeParse(call).data ?? []))
  .optional()
  .catch(undefined);

const optionalTextSchema = z.string().optional().catch(undefined);

const incomingMessageSchema = z
  .looseObject({
    role: z.string(),
    content: contentSchema,
    name: optionalTextSchema,
    toolCalls: toolCallsSchema,
    tool_calls: toolCallsSchema,
    toolCallId: optionalTextSchema,
    tool_call_id: optionalTextSchema,
  })
  .transform(
    (message): IncomingMessage => ({
      role: message.role,
      content: message.content,
      ...(message.name === undefined ? {} : { name: message.name }),
      // AG-UI's names first, as either variant's clients may send them.
      toolCalls: message.toolCalls ?? message.tool_calls ?? [],
      ...((message.toolCallId ?? message.tool_call_id) === undefined ? {} : { toolCallId: message.toolCallId ?? message.tool_call_id }),
    }),
  );

/** The API reference shows the message as clients write it: a role, any content, any other fields. */
export const chatMessageSchema = z.looseObject({ role: z.string(), content: z.unknown().optional() }).pipe(incomingMessageSchema).meta({
  id: 'ChatMessage',
  description:
    'A chat message: `user`, `assistant` (with its tool calls) and `tool` are kept; other roles are dropped; content parts are flattened to text.',
});
