// In-memory models implementing the provider interfaces (src/providers/), for unit tests of the services without HTTP:
// a chat model that streams scripted turns and records its requests, and an embedding model of hashed words.
import type { ChatModel, ChatRequest, ChatStreamPart, ToolCall } from '../../src/providers/chat-model.js';
import type { EmbeddingModel } from '../../src/providers/embedding-model.js';
import { embedText } from './provider-double.js';

/** One scripted completion: its text deltas, then its tool calls, then how it ends. */
export interface ChatTurn {
  readonly deltas?: readonly string[];
  readonly toolCalls?: readonly ToolCall[];
  /** Thrown after the deltas, as a provider that fails or breaks off its stream. */
  readonly error?: Error;
  /** After the deltas, waits until the request's signal aborts and throws its reason (a slow stream the caller stops). */
  readonly untilAborted?: boolean;
}

export interface FakeChatModel extends ChatModel {
  /** Every request streamed, in order. */
  readonly requests: ChatRequest[];
  /** Turns answering the next requests, in order; once they are used up, every request is answered with `fallback`. */
  queue(...turns: ChatTurn[]): void;
}

export function createFakeChatModel(options: { id?: string; fallback?: ChatTurn } = {}): FakeChatModel {
  const requests: ChatRequest[] = [];
  const queued: ChatTurn[] = [];
  const fallback = options.fallback ?? { deltas: ['The documentation says so [1].'] };
  return {
    id: options.id ?? 'fake-chat',
    requests,
    queue(...turns) {
      queued.push(...turns);
    },
    async *stream(request): AsyncGenerator<ChatStreamPart> {
      requests.push(request);
      const turn = queued.shift() ?? fallback;
      // As a provider's client does, a call with an aborted signal fails at once with its reason.
      if (request.signal?.aborted === true) throw request.signal.reason;
      for (const delta of turn.deltas ?? []) yield { type: 'text-delta', delta };
      if (turn.error !== undefined) throw turn.error;
      if (turn.untilAborted === true) {
        if (request.signal === undefined) throw new Error('a turn that waits for an abort needs a request with a signal');
        throw await whenAborted(request.signal);
      }
      for (const toolCall of turn.toolCalls ?? []) yield { type: 'tool-call', toolCall };
      yield { type: 'finish', reason: (turn.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop' };
    },
  };
}

/** Resolves with the signal's reason once it aborts; never without a signal. */
function whenAborted(signal: AbortSignal | undefined): Promise<unknown> {
  if (signal?.aborted === true) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal?.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

export interface FakeEmbeddingModel extends EmbeddingModel {
  /** The texts of every call, one array per call, in order. */
  readonly calls: (readonly string[])[];
  /** Every call throws `error` until called with undefined (a provider that is down). */
  failWith(error: Error | undefined): void;
  /** Calls made from now on wait until `resume`, or until their signal aborts (then they throw its reason, as a call with an aborted signal does at once). */
  pause(): void;
  resume(): void;
}

/** Vectors from the provider double's word hashing, so texts sharing words are close, as with a real model. */
export function createFakeEmbeddingModel(options: { id?: string; dimensions?: number } = {}): FakeEmbeddingModel {
  const dimensions = options.dimensions ?? 64;
  const calls: (readonly string[])[] = [];
  let failure: Error | undefined;
  let paused: { promise: Promise<void>; resolve: () => void } | undefined;
  return {
    id: options.id ?? 'fake-embedding',
    calls,
    failWith(error) {
      failure = error;
    },
    pause() {
      let resolve = () => {};
      const promise = new Promise<void>((done) => (resolve = done));
      paused ??= { promise, resolve };
    },
    resume() {
      paused?.resolve();
      paused = undefined;
    },
    async embed(texts, signal) {
      calls.push([...texts]);
      if (signal?.aborted === true) throw signal.reason;
      if (paused !== undefined) await Promise.race([paused.promise, whenAborted(signal).then((reason) => Promise.reject(reason))]);
      if (failure !== undefined) throw failure;
      return texts.map((text) => embedText(text, dimensions));
    },
  };
}
