// Mastra's agent stream wire format (what @mastra/client-js 0.17's `agent.stream` parses): `data: <chunk>` frames,
// each chunk `{type, runId, from: "AGENT", payload}`: start, step-start, tool-call / tool-result for the retrieval,
// text-start / text-delta / text-end, step-finish and finish (or error), then `data: [DONE]`.
import type { AgentEvent } from '../../agent/agent-event.js';
import type { ErrorCode } from '../../errors.js';
import { doneFrame, jsonFrame, parseToolArguments, type AgentStreamEncoder } from '../agent/index.js';
import { toVariant2Result } from '../variant2/result.js';

export class MastraStream implements AgentStreamEncoder {
  private readonly toolNames = new Map<string, string>();
  private readonly toolArguments = new Map<string, unknown>();
  private finishReason: 'stop' | 'tool-calls' = 'stop';

  constructor(
    private readonly runId: string,
    private readonly messageId: string,
  ) {}

  private frame(type: string, payload: Record<string, unknown>): string {
    return jsonFrame({ type, runId: this.runId, from: 'AGENT', payload });
  }

  started(): string[] {
    return [this.frame('start', {}), this.frame('step-start', { messageId: this.messageId, request: {}, warnings: [] })];
  }

  frames(event: AgentEvent): string[] {
    switch (event.type) {
      case 'retrieval-start':
        this.toolNames.set(event.toolCallId, event.toolName);
        this.toolArguments.set(event.toolCallId, event.args);
        return [this.frame('tool-call', { toolCallId: event.toolCallId, toolName: event.toolName, args: event.args })];
      case 'retrieval-result':
        return [
          this.frame('tool-result', {
            toolCallId: event.toolCallId,
            toolName: this.toolNames.get(event.toolCallId) ?? 'searchDocs',
            args: this.toolArguments.get(event.toolCallId),
            result: { results: event.snippets.map(toVariant2Result) },
          }),
        ];
      case 'text-start':
        return [this.frame('text-start', { id: event.messageId })];
      case 'text-delta':
        return event.delta === '' ? [] : [this.frame('text-delta', { id: event.messageId, text: event.delta })];
      case 'text-end':
        return [this.frame('text-end', { id: event.messageId })];
      case 'frontend-tool-call':
        this.finishReason = 'tool-calls';
        return [
          this.frame('tool-call', {
            toolCallId: event.toolCallId,
            toolName: event.toolName,
            args: parseToolArguments(event.argumentsText),
          }),
        ];
      case 'error':
        return [this.frame('error', { error: { name: 'KnowledgeError', message: event.message, code: event.code } })];
      case 'finish': {
        const stepResult = { reason: this.finishReason, isContinued: false, warnings: [] };
        // Token counts are not known here (providers report them differently); the cited file names are.
        const metadata = { sources: event.sources, covered: event.covered };
        return [
          this.frame('step-finish', { messageId: this.messageId, stepResult, output: { usage: {} }, metadata }),
          this.frame('finish', { stepResult, output: { usage: {} }, metadata, messages: { all: [], user: [], nonUser: [] } }),
        ];
      }
    }
  }

  failed(code: ErrorCode, message: string): string[] {
    return this.frames({ type: 'error', code, message });
  }

  finished(): string[] {
    return [doneFrame];
  }
}
