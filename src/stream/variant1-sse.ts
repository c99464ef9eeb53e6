// Variant 1 wire format: `data: <json>` frames (tool_call_start, tool_call_result, text_message, error), then `data: [DONE]`.
import type { AgentEvent } from '../agent/agent-event.js';
import type { Snippet } from '../agent/snippet.js';

export const variant1DoneFrame = 'data: [DONE]\n\n';

/** The seed's Match: exactly these fields. */
export function toMatch(snippet: Snippet): { chunk_id: string; score: number; source: string; title: string; preview: string } {
  return { chunk_id: snippet.chunkId, score: snippet.score, source: snippet.storagePath, title: snippet.title, preview: snippet.preview };
}

function frame(payload: Record<string, unknown>): string {
  // JSON.stringify escapes CR and LF, so a frame is always one line.
  return `data: ${JSON.stringify(payload)}\n\n`;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text === '' ? '{}' : text);
  } catch {
    return { _raw: text };
  }
}

export function variant1Frames(event: AgentEvent): string[] {
  switch (event.type) {
    case 'retrieval-start':
      return [frame({ type: 'tool_call_start', tool_call_id: event.toolCallId, tool_name: event.toolName, args: event.args })];
    case 'retrieval-result':
      return [
        frame({
          type: 'tool_call_result',
          tool_call_id: event.toolCallId,
          // `notice` as /tools/search answers it.
          result: { matches: event.snippets.map(toMatch), ...(event.notice === undefined ? {} : { notice: event.notice }) },
          is_frontend_tool: false,
        }),
      ];
    case 'text-delta':
      return [frame({ type: 'text_message', delta: event.delta })];
    case 'frontend-tool-call':
      return [
        frame({ type: 'tool_call_start', tool_call_id: event.toolCallId, tool_name: event.toolName, args: parseArguments(event.argumentsText) }),
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
