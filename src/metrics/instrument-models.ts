// Wraps the chat, embedding and rerank models chosen at start-up so every call is counted and timed; the models themselves
// know nothing of metrics.
import { performance } from 'node:perf_hooks';
import type { ChatModel, ChatRequest, ChatStreamPart } from '../providers/chat-model.js';
import type { EmbeddingModel } from '../providers/embedding-model.js';
import type { RerankModel } from '../providers/rerank-model.js';
import { selectModels, type ProviderSettings, type SelectedModels } from '../providers/select-models.js';
import type { ProviderCallOutcome, ServiceMetrics } from './service-metrics.js';

function failureOutcome(signal: AbortSignal | undefined): ProviderCallOutcome {
  return signal?.aborted === true ? 'aborted' : 'error';
}

function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}

function instrumentChat(model: ChatModel, metrics: ServiceMetrics): ChatModel {
  return {
    id: model.id,
    async *stream(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
      const started = performance.now();
      // A consumer that stops reading early (it returns the generator) leaves the call unfinished: aborted.
      let outcome: ProviderCallOutcome = 'aborted';
      try {
        yield* model.stream(request);
        outcome = 'success';
      } catch (error) {
        outcome = failureOutcome(request.signal);
        throw error;
      } finally {
        metrics.observeProviderCall('chat', model.id, outcome, secondsSince(started));
      }
    },
  };
}

function instrumentEmbeddings(model: EmbeddingModel, metrics: ServiceMetrics): EmbeddingModel {
  return {
    id: model.id,
    async embed(texts, signal) {
      const started = performance.now();
      try {
        const vectors = await model.embed(texts, signal);
        metrics.observeProviderCall('embeddings', model.id, 'success', secondsSince(started));
        return vectors;
      } catch (error) {
        metrics.observeProviderCall('embeddings', model.id, failureOutcome(signal), secondsSince(started));
        throw error;
      }
    },
    ...(model.close === undefined ? {} : { close: () => model.close?.() ?? Promise.resolve() }),
  };
}

/** The rerank model, counted and timed as kind `rerank`. */
export function instrumentReranker(model: RerankModel, metrics: ServiceMetrics): RerankModel {
  return {
    id: model.id,
    async score(query, documents, signal) {
      const started = performance.now();
      try {
        const scores = await model.score(query, documents, signal);
        metrics.observeProviderCall('rerank', model.id, 'success', secondsSince(started));
        return scores;
      } catch (error) {
        metrics.observeProviderCall('rerank', model.id, failureOutcome(signal), secondsSince(started));
        throw error;
      }
    },
  };
}

/**
 * The models counted and timed. The embedding model is instrumented as `selectModels` chooses it (`wrapEmbeddings`),
 * so that the extractive answerer, which is given it, is counted too; the chat model here.
 */
export async function selectInstrumentedModels(
  settings: ProviderSettings,
  log: { warn(message: string): void },
  metrics: ServiceMetrics,
): Promise<SelectedModels> {
  const models = await selectModels(settings, log, (model) => instrumentEmbeddings(model, metrics));
  return { ...models, chat: models.chat === undefined ? undefined : instrumentChat(models.chat, metrics) };
}
