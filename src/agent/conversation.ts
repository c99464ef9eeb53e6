// Sanitizes the chat history a client sends: known roles only, content flattened to text, sizes capped.
import type { ChatMessage, ToolCall } from '../providers/chat-model.js';

/** Caps, documented in the README: the newest messages are kept. */
export const conversationLimits = {
  /** Characters kept of one message (the rest is cut, marked with an ellipsis). */
  maxMessageChars: 8_000,
  /** Messages kept of the history. */
  maxMessages: 20,
  /** Characters kept of the whole history. */
  maxHistoryChars: 32_000,
} as const;

/** A message as either variant's clients send it (OpenAI-style or AG-UI field names). */
export interface IncomingMessage {
  readonly role?: unknown;
  readonly content?: unknown;
  readonly name?: unknown;
  readonly tool_calls?: unknown;
  readonly toolCalls?: unknown;
  readonly tool_call_id?: unknown;
  readonly toolCallId?: unknown;
}

function flattenContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : ''))
      .filter((text) => text !== '')
      .join('\n');
  }
  if (content !== null && typeof content === 'object' && typeof (content as { text?: unknown }).text === 'string') {
    return (content as { text: string }).text;
  }
  return '';
}

function capText(text: string): string {
  return text.length > conversationLimits.maxMessageChars ? `${text.slice(0, conversationLimits.maxMessageChars)}…` : text;
}

/** Tool-call arguments are JSON text on the wire; anything else (or anything huge) is replaced, never serialized. */
function argumentsText(value: unknown): string {
  return typeof value === 'string' && value.length <= conversationLimits.maxMessageChars ? value : '{}';
}

function toolCallsOf(message: IncomingMessage): ToolCall[] {
  const calls = Array.isArray(message.toolCalls) ? message.toolCalls : Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return calls.flatMap((call: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }) =>
    typeof call?.id === 'string' && typeof call.function?.name === 'string'
      ? [{ id: call.id, name: call.function.name, arguments: argumentsText(call.function.arguments) }]
      : [],
  );
}

/**
 * Client system/developer messages are dropped: the service's own instructions keep answers grounded.
 * A tool result without the assistant call it answers gets one synthesized, so providers accept the history.
 */
export function sanitizeConversation(messages: readonly IncomingMessage[]): ChatMessage[] {
  const sanitized: ChatMessage[] = [];
  const knownCallIds = new Set<string>();
  for (const message of messages) {
    const content = capText(flattenContent(message.content));
    if (message.role === 'user') {
      if (content.trim() !== '') sanitized.push({ role: 'user', content });
    } else if (message.role === 'assistant') {
      const toolCalls = toolCallsOf(message);
      for (const call of toolCalls) knownCallIds.add(call.id);
      if (content.trim() !== '' || toolCalls.length > 0) sanitized.push(toolCalls.length > 0 ? { role: 'assistant', content, toolCalls } : { role: 'assistant', content });
    } else if (message.role === 'tool') {
      const id = typeof message.toolCallId === 'string' ? message.toolCallId : typeof message.tool_call_id === 'string' ? message.tool_call_id : undefined;
      if (id === undefined) continue;
      if (!knownCallIds.has(id)) {
        const name = typeof message.name === 'string' && message.name !== '' ? message.name : 'platform_tool';
        sanitized.push({ role: 'assistant', content: '', toolCalls: [{ id, name, arguments: '{}' }] });
        knownCallIds.add(id);
      }
      sanitized.push({ role: 'tool', toolCallId: id, content });
    }
  }
  return capHistory(sanitized);
}

/** Keeps the newest messages within the caps, never starting on a tool result cut off from its call. */
function capHistory(messages: ChatMessage[]): ChatMessage[] {
  let start = Math.max(0, messages.length - conversationLimits.maxMessages);
  let characters = messages.slice(start).reduce((sum, message) => sum + message.content.length, 0);
  while (start < messages.length - 1 && characters > conversationLimits.maxHistoryChars) {
    characters -= (messages[start] as ChatMessage).content.length;
    start++;
  }
  while (start < messages.length - 1 && messages[start]?.role === 'tool') start++;
  return messages.slice(start);
}

/** The text of the newest user message, or undefined when there is none. */
export function latestUserText(messages: readonly ChatMessage[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as ChatMessage;
    if (message.role === 'user') return message.content;
  }
  return undefined;
}
