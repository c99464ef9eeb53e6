// What the encoder of every wire format offers for one agent run, so that one writer streams them all.
import type { AgentEvent } from '../../agent/agent-event.js';
import type { ErrorCode } from '../../errors.js';

export interface AgentStreamEncoder {
  /** The response's content type, when the format names its own. */
  readonly contentType?: string;
  /** Frames sent before the run's first event. */
  started(): string[];
  /** Frames for one agent event; after an error event the writer sends only `finished()`. */
  frames(event: AgentEvent): string[];
  /** Frames for a failure the run threw instead of reporting it as an event. */
  failed(code: ErrorCode, message: string): string[];
  /** Frames after the last event. */
  finished(): string[];
}
