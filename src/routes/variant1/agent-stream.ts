// Variant 1 wire format: `data: <json>` frames (tool_call_start, tool_call_result, text_message, error), then `data: [DONE]`.
import type { AgentEvent } from '../../agent/agent-event.js';
import type { ErrorCode } from '../../errors.js';
import type { Snippet } from '../../search/snippet.js';
import { doneFrame, jsonFrame as frame, parseToolArguments, type AgentStreamEncoder } from '../agent/index.js';
import { toMatch, type Match } from './match.js';

/** `matchOf` shapes a retrieved snippet as the seed's Match. */
function variant1Frames(event: AgentEvent, matchOf: (snippet: Snippet) => Match): string[] {
  switch (event.type) {
    case 'retrieval-start':
      return [frame({ type: 'tool_call_start', tool_call_id: event.toolCallId, tool_name: event.toolName, args: event.args })];
    case 'retrieval-result':
      return [
        frame({
          type: 'tool_call_result',
          tool_call_id: event.toolCallId,
          // `notice` as /tools/search answers it.
          result: { matches: event.snippets.map(matchOf), ...(event.notice === undefined ? {} : { notice: event.notice }) },
          is_frontend_tool: false,
        }),
      ];
    case 'text-delta':
      return [frame({ type: 'text_message', delta: event.delta })];
    case 'frontend-tool-call':
      return [
        frame({
          type: 'tool_call_start',
          tool_call_id: event.toolCallId,
          tool_name: event.toolName,
          args: parseToolArguments(event.argumentsText),
        }),
        frame({ type: 'tool_call_result', tool_call_id: event.toolCallId, result: null, is_frontend_tool: true }),
      ];
    case 'error':
      return [frame({ type: 'error', message: event.message, code: event.code })];
    case 'text-start':
    case 'text-end':
    case 'finish':
      return [];
  }
}

export class Variant1Stream implements AgentStreamEncoder {
  private readonly matchOf: (snippet: Snippet) => Match;

  /** A run in `namespace`, whose matches name their stored files under `storagePath` (the storage root as configured). */
  constructor(storagePath: string, namespace: string) {
    this.matchOf = (snippet) => toMatch(snippet, storagePath, namespace);
  }

  started(): string[] {
    return [];
  }

  frames(event: AgentEvent): string[] {
    return variant1Frames(event, this.matchOf);
  }

  failed(code: ErrorCode, message: string): string[] {
    return variant1Frames({ type: 'error', code, message }, this.matchOf);
  }

  /** `data: [DONE]` ends every stream, also one that stays silent (no mention). */
  finished(): string[] {
    return [doneFrame];
  }
}
