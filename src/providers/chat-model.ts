// What the agent needs from a chat provider: a streamed completion with optional tool calls.

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** JSON text of the arguments, as the model wrote it. */
  readonly arguments: string;
}

export type ChatMessage =
  | { readonly role: 'system' | 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls?: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string };

export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments. */
  readonly parameters: Record<string, unknown>;
}

/** Text of a snippet's document next to it (a neighbouring chunk), with the headings it sits under. */
export interface NeighbouringText {
  readonly text: string;
  readonly headingPath: readonly string[];
  /**
   * The whitespace that separates it from the snippet in the document, when the chunks were cut inside a block (a
   * paragraph or a list): the two sides then go on with one block ("The **proxy** intercepts" | "the original client
   * request..."). Absent when they were cut between blocks.
   */
  readonly splitBlock?: string;
}

/** A numbered snippet as the prompt quotes it; title and heading path tell which section it comes from. */
export interface GroundingSnippet {
  readonly number: number;
  readonly text: string;
  readonly title?: string;
  readonly headingPath?: readonly string[];
  /**
   * The text of its document right before and after it, which completes a passage the snippet's edges cut (the
   * sentence that introduces its code, the code its last sentence introduces); quoted under the snippet's number.
   */
  readonly before?: NeighbouringText;
  readonly after?: NeighbouringText;
}

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolDefinition[];
  /** The question and the numbered snippets the prompt quotes, for models that work on them directly. */
  readonly grounding?: { readonly query: string; readonly snippets: readonly GroundingSnippet[] };
  readonly signal?: AbortSignal;
}

export type ChatStreamPart =
  | { readonly type: 'text-delta'; readonly delta: string }
  | { readonly type: 'tool-call'; readonly toolCall: ToolCall }
  | { readonly type: 'finish'; readonly reason: string };

export interface ChatModel {
  readonly id: string;
  /** Streams the completion; throws a KnowledgeError `provider_error` when the provider fails or breaks off. */
  stream(request: ChatRequest): AsyncIterable<ChatStreamPart>;
}
