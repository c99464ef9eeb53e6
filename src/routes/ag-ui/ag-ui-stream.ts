// AG-UI wire format: agent events become AG-UI protocol events (RUN_STARTED … RUN_FINISHED | RUN_ERROR),
// encoded as SSE by the official encoder. The encoder (with its protobuf runtime, 30 modules) is loaded by the first
// AG-UI run, not at start-up.
import { randomUUID } from 'node:crypto';
import { EventType, type BaseEvent } from '@ag-ui/core';
import type { EventEncoder } from '@ag-ui/encoder';
import type { AgentEvent } from '../../agent/agent-event.js';
import type { AgentStreamEncoder } from '../agent/index.js';
import { variant2RetrievalResult } from '../variant2/result.js';

export class AgUiStream implements AgentStreamEncoder {
  /** The stream of one run. */
  static async open(threadId: string, runId: string): Promise<AgUiStream> {
    const { EventEncoder } = await import('@ag-ui/encoder');
    return new AgUiStream(new EventEncoder(), threadId, runId);
  }

  private constructor(
    private readonly encoder: EventEncoder,
    private readonly threadId: string,
    private readonly runId: string,
  ) {}

  get contentType(): string {
    return this.encoder.getContentType();
  }

  started(): string[] {
    return this.encode([{ type: EventType.RUN_STARTED, threadId: this.threadId, runId: this.runId }]);
  }

  frames(event: AgentEvent): string[] {
    return this.encode(this.toProtocol(event));
  }

  failed(code: string, message: string): string[] {
    return this.encode([{ type: EventType.RUN_ERROR, code, message }]);
  }

  /** Nothing follows RUN_FINISHED or RUN_ERROR. */
  finished(): string[] {
    return [];
  }

  private encode(events: BaseEvent[]): string[] {
    return events.map((event) => this.encoder.encodeSSE({ ...event, timestamp: Date.now() }));
  }

  private toolCall(toolCallId: string, toolCallName: string, argumentsText: string): BaseEvent[] {
    return [
      { type: EventType.TOOL_CALL_START, toolCallId, toolCallName },
      ...(argumentsText === '' ? [] : [{ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: argumentsText }]),
      { type: EventType.TOOL_CALL_END, toolCallId },
    ] as BaseEvent[];
  }

  private toProtocol(event: AgentEvent): BaseEvent[] {
    switch (event.type) {
      case 'retrieval-start':
        return this.toolCall(event.toolCallId, event.toolName, JSON.stringify(event.args));
      case 'retrieval-result':
        return [
          {
            type: EventType.TOOL_CALL_RESULT,
            messageId: `msg_${randomUUID()}`,
            toolCallId: event.toolCallId,
            role: 'tool',
            content: JSON.stringify(variant2RetrievalResult(event.snippets, event.notice)),
          } as BaseEvent,
        ];
      case 'text-start':
        return [{ type: EventType.TEXT_MESSAGE_START, messageId: event.messageId, role: 'assistant' } as BaseEvent];
      case 'text-delta':
        // AG-UI forbids empty content deltas.
        return event.delta === ''
          ? []
          : [{ type: EventType.TEXT_MESSAGE_CONTENT, messageId: event.messageId, delta: event.delta } as BaseEvent];
      case 'text-end':
        return [{ type: EventType.TEXT_MESSAGE_END, messageId: event.messageId } as BaseEvent];
      case 'frontend-tool-call':
        return this.toolCall(event.toolCallId, event.toolName, event.argumentsText);
      case 'error':
        return [{ type: EventType.RUN_ERROR, code: event.code, message: event.message } as BaseEvent];
      case 'finish':
        // `result` carries what a client needs besides the text: whether the docs cover the question, and the cited sources.
        return [
          {
            type: EventType.RUN_FINISHED,
            threadId: this.threadId,
            runId: this.runId,
            result: { covered: event.covered, sources: event.sources },
          } as BaseEvent,
        ];
    }
  }
}
