// The adapter for any OpenAI-compatible API (OpenAI, Ollama, vLLM, llama.cpp's server, a test double) via the official
// client. The client is loaded by the first request, not at start-up: its 150 modules were a tenth of every start's CPU.
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage, ChatModel, ChatRequest, ChatStreamPart, ToolCall } from './chat-model.js';
import type { EmbeddingModel } from './embedding-model.js';
import { forEachConcurrently } from '../concurrency.js';
import { isAbort, toProviderError, type ClientErrors } from './provider-error.js';

export interface OpenAiCompatibleOptions {
  readonly apiKey: string;
  readonly baseUrl: string | undefined;
  readonly chatModel: string;
  readonly embeddingModel: string;
  readonly temperature: number;
  /** Retries of one failed request (429, 5xx, connection errors), with the client's exponential backoff. */
  readonly maxRetries?: number;
  /** Inputs per embeddings request, and how many requests run at once. */
  readonly embeddingBatchSize?: number;
  readonly embeddingConcurrency?: number;
}

function toWireMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant':
      return message.toolCalls !== undefined && message.toolCalls.length > 0
        ? {
            role: 'assistant',
            content: message.content === '' ? null : message.content,
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : { role: 'assistant', content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

export function createOpenAiCompatible(options: OpenAiCompatibleOptions): { chat: ChatModel; embeddings: EmbeddingModel } {
  let connection: Promise<{ client: OpenAI; errors: ClientErrors }> | undefined;
  const connect = () =>
    (connection ??= import('openai').then((sdk) => ({
      client: new sdk.OpenAI({
        apiKey: options.apiKey,
        baseURL: options.baseUrl ?? null,
        maxRetries: options.maxRetries ?? 3,
        timeout: 60_000,
      }),
      errors: sdk,
    })));
  const batchSize = options.embeddingBatchSize ?? 64;
  const concurrency = options.embeddingConcurrency ?? 2;

  const embeddings: EmbeddingModel = {
    id: options.embeddingModel,
    async embed(texts, signal) {
      const { client, errors } = await connect();
      const batches: string[][] = [];
      for (let start = 0; start < texts.length; start += batchSize) batches.push(texts.slice(start, start + batchSize));
      const results: Float32Array[][] = new Array(batches.length);
      // Each batch retries on its own (inside the client), so one failed batch does not resend the others.
      await forEachConcurrently(batches, concurrency, async (batch, batchIndex) => {
        // A stopped caller starts no further batch (those under way are cancelled by the client, their sockets closed).
        signal?.throwIfAborted();
        try {
          const response = await client.embeddings.create({ model: options.embeddingModel, input: batch }, { signal });
          const vectors = [...response.data]
            .sort((left, right) => left.index - right.index)
            .map((item) => Float32Array.from(item.embedding));
          if (vectors.length !== batch.length) throw new Error(`expected ${batch.length} embeddings, got ${vectors.length}`);
          results[batchIndex] = vectors;
        } catch (error) {
          if (isAbort(error, errors)) throw error;
          throw toProviderError(error, 'embedding_failed', options.apiKey, errors);
        }
      });
      return results.flat();
    },
  };

  const chat: ChatModel = {
    id: options.chatModel,
    async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
      const { client, errors } = await connect();
      const tools: ChatCompletionTool[] = request.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      const pendingCalls = new Map<number, { id: string; name: string; arguments: string }>();
      let finishReason: string | undefined;
      try {
        const stream = await client.chat.completions.create(
          {
            model: options.chatModel,
            temperature: options.temperature,
            stream: true,
            messages: request.messages.map(toWireMessage),
            ...(tools.length > 0 ? { tools } : {}),
          },
          { signal: request.signal },
        );
        for await (const chunk of stream) {
          const choice = chunk.choices[0];
          if (choice === undefined) continue;
          const content = choice.delta?.content;
          if (typeof content === 'string' && content !== '') yield { type: 'text-delta', delta: content };
          for (const fragment of choice.delta?.tool_calls ?? []) {
            const call = pendingCalls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
            if (fragment.id) call.id = fragment.id;
            if (fragment.function?.name) call.name += fragment.function.name;
            if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
            pendingCalls.set(fragment.index, call);
          }
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
      } catch (error) {
        if (isAbort(error, errors)) throw error;
        throw toProviderError(error, 'provider_error', options.apiKey, errors);
      }
      // The client ends the iteration quietly when aborted mid-stream.
      if (request.signal?.aborted) throw request.signal.reason ?? new DOMException('aborted', 'AbortError');
      if (finishReason === undefined) {
        throw toProviderError(new Error('the stream ended before the completion finished'), 'provider_error', options.apiKey, errors);
      }
      for (const [index, call] of [...pendingCalls.entries()].sort(([left], [right]) => left - right)) {
        const toolCall: ToolCall = { id: call.id || `call_${index}`, name: call.name, arguments: call.arguments || '{}' };
        yield { type: 'tool-call', toolCall };
      }
      yield { type: 'finish', reason: finishReason };
    },
  };

  return { chat, embeddings };
}
