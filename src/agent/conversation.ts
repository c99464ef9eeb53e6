// Sanitizes the chat history a client sends: known roles only, empty turns dropped, tool results paired with their calls, sizes capped.
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

/**
 * A message as the HTTP layer validated it from either variant's field names (see the routes' chat message schema):
 * its content flattened to text, the tool calls an assistant message carries, the call id a tool result answers.
 */
export interface IncomingMessage {
  readonly role: string;
  readonly content: string;
  /** The tool's name, on a tool result. */
  readonly name?: string;
  /** Arguments as sent (JSON text). */
  readonly toolCalls: readonly ToolCall[];
  readonly toolCallId?: string;
}

function capText(text: string): string {
  return text.length > conversationLimits.maxMessageChars ? `${text.slice(0, conversationLimits.maxMessageChars)}…` : text;
}

/** Huge tool-call arguments are replaced, not cut (cut JSON would not parse). */
function capArguments(call: ToolCall): ToolCall {
  return call.arguments.length <= conversationLimits.maxMessageChars ? call : { ...call, arguments: '{}' };
}

/**
 * Client system/developer messages are dropped: the service's own instructions keep answers grounded.
 * A tool result without the assistant call it answers gets one synthesized, so providers accept the history.
 */
export function sanitizeConversation(messages: readonly IncomingMessage[]): ChatMessage[] {
  const sanitized: ChatMessage[] = [];
  const knownCallIds = new Set<string>();
  for (const message of messages) {
    const content = capText(message.content);
    if (message.role === 'user') {
      if (content.trim() !== '') sanitized.push({ role: 'user', content });
    } else if (message.role === 'assistant') {
      const toolCalls = message.toolCalls.map(capArguments);
      for (const call of toolCalls) knownCallIds.add(call.id);
      if (content.trim() !== '' || toolCalls.length > 0)
        sanitized.push(toolCalls.length > 0 ? { role: 'assistant', content, toolCalls } : { role: 'assistant', content });
    } else if (message.role === 'tool') {
      const id = message.toolCallId;
      if (id === undefined) continue;
      if (!knownCallIds.has(id)) {
        const name = message.name === undefined || message.name === '' ? 'platform_tool' : message.name;
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
