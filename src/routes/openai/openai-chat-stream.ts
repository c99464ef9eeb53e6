// OpenAI chat-completions wire format: agent events become `chat.completion.chunk` frames ending `data: [DONE]`,
// or one `chat.completion` object for a request that does not stream. The retrieval step has no place in this
// format and is not sent; the answer's text (with its citations and Sources line) is.
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../../agent/agent-event.js';
import { errorCatalogue, type ErrorCode } from '../../errors.js';
import { doneFrame, jsonFrame as frame, type AgentStreamEncoder } from '../agent/index.js';

export interface OpenAiToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** OpenAI's error `type` for a status: what its clients branch on beside the status. */
function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** `{"error":{"message","type","param","code"}}`: OpenAI's error body, which still holds the contract's code and message. */
export function openAiErrorBody(
  code: ErrorCode,
  message: string,
): { error: { message: string; type: string; param: null; code: ErrorCode } } {
  return { error: { message, type: errorType(errorCatalogue[code].status), param: null, code } };
}

export class OpenAiChatStream implements AgentStreamEncoder {
  readonly id = `chatcmpl-${randomUUID()}`;
  private readonly created = Math.floor(Date.now() / 1000);
  private toolCallIndex = 0;
  private finishReason: 'stop' | 'tool_calls' = 'stop';

  constructor(private readonly model: string) {}

  private chunk(delta: Record<string, unknown>, finish?: { reason: string; covered: boolean }): string {
    return frame({
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish?.reason ?? null }],
      // Not an OpenAI field: whether the docs cover the question, on the last chunk.
      ...(finish === undefined ? {} : { covered: finish.covered }),
    });
  }

  /** The first chunk: the assistant's role, sent before anything is known about the answer. */
  started(): string[] {
    return [this.chunk({ role: 'assistant', content: '' })];
  }

  frames(event: AgentEvent): string[] {
    switch (event.type) {
      case 'text-delta':
        return event.delta === '' ? [] : [this.chunk({ content: event.delta })];
      case 'frontend-tool-call': {
        this.finishReason = 'tool_calls';
        const index = this.toolCallIndex++;
        return [
          this.chunk({
            tool_calls: [
              { index, id: event.toolCallId, type: 'function', function: { name: event.toolName, arguments: event.argumentsText } },
            ],
          }),
        ];
      }
      case 'finish':
        return [this.chunk({}, { reason: this.finishReason, covered: event.covered })];
      case 'error':
        return this.failed(event.code, event.message);
      default:
        return [];
    }
  }

  /** A failure after the stream started: a frame holding `error`, for which the official client throws an APIError. */
  failed(code: ErrorCode, message: string): string[] {
    return [frame(openAiErrorBody(code, message))];
  }

  finished(): string[] {
    return [doneFrame];
  }

  /** The whole answer as one `chat.completion` (a request with `stream: false`). */
  completion(text: string, toolCalls: readonly OpenAiToolCall[], covered: boolean) {
    const calls = toolCalls.length > 0;
    return {
      id: this.id,
      object: 'chat.completion' as const,
      created: this.created,
      model: this.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant' as const,
            content: calls && text === '' ? null : text,
            refusal: null,
            ...(calls ? { tool_calls: toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: calls ? ('tool_calls' as const) : ('stop' as const),
        },
      ],
      covered,
    };
  }
}
