// The events of one agent run, independent of wire format; each stream encoder turns them into its own protocol.
import type { ErrorCode } from '../errors.js';
import type { Snippet } from '../search/snippet.js';

export type AgentEvent =
  | {
      readonly type: 'retrieval-start';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly args: { readonly namespace: string; readonly query: string };
    }
  /** `notice`: what the search said beside its results (the namespace does not exist, a ranking fallback). */
  | { readonly type: 'retrieval-result'; readonly toolCallId: string; readonly snippets: readonly Snippet[]; readonly notice?: string }
  | { readonly type: 'text-start'; readonly messageId: string }
  | { readonly type: 'text-delta'; readonly messageId: string; readonly delta: string }
  | { readonly type: 'text-end'; readonly messageId: string }
  /** The model called a tool the platform supplied; the platform runs it and calls the agent again. */
  | { readonly type: 'frontend-tool-call'; readonly toolCallId: string; readonly toolName: string; readonly argumentsText: string }
  | { readonly type: 'error'; readonly code: ErrorCode; readonly message: string }
  /** `covered`: false when the answer says the docs do not cover the question (then `sources` is empty). */
  | { readonly type: 'finish'; readonly text: string; readonly sources: readonly string[]; readonly covered: boolean };
