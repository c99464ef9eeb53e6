// Chooses the chat and embedding models from the configuration: the provider when a key is set,
// the bundled local embedding model when there is none (or when asked for), the extractive answerer when asked for.
import type { ChatModel } from './chat-model.js';
import type { EmbeddingModel } from './embedding-model.js';
import { createExtractiveChatModel, extractiveModelId } from './extractive-chat-model.js';
import { createLocalEmbeddingModel } from './local-embedding-model.js';
import { rememberingEmbeddings } from './remembered-embeddings.js';

export const localEmbeddingModelName = 'local';
/** The provider's small embedding model, used when the provider is the default public endpoint and no model is named. */
export const defaultProviderEmbeddingModel = 'text-embedding-3-small';

export interface SelectedModels {
  /** Undefined: the agent endpoints answer 503. */
  readonly chat: ChatModel | undefined;
  /** Undefined: embedding search is unavailable and ranking falls back to lexical. */
  readonly embeddings: EmbeddingModel | undefined;
  /**
   * The same model for what is embedded while answering (questions, and the extractive answerer's passages), with the
   * vectors of recent texts remembered: a question is embedded once for its search and its answer, and a question or
   * passage that comes back is not embedded again. Undefined exactly when `embeddings` is.
   */
  readonly questionEmbeddings: EmbeddingModel | undefined;
}

/** Texts whose vectors the question embeddings remember: about 6 MB at 384 dimensions, 12 MB at 1,536. */
const rememberedTexts = 2048;

/** The provider settings of the configuration (see config.ts). */
export interface ProviderSettings {
  /** Absent: the agent endpoints answer 503 and embeddings are unavailable. */
  readonly apiKey: string | undefined;
  /** Absent: the official client's default endpoint. */
  readonly baseUrl: string | undefined;
  /** `extractive` answers by quoting the snippets, with no provider. */
  readonly chatModel: string;
  /**
   * `local` embeds with the bundled all-MiniLM-L6-v2 model, with no provider; another name is the provider's model.
   * Undefined: the provider's default with the provider's public endpoint, the local model otherwise (see selectModels).
   */
  readonly embeddingModel: string | undefined;
  /** Sampling temperature, 0..2. */
  readonly temperature: number;
}

/**
 * The embedding model to use: the one named; else, with the provider's public endpoint and a key, its small model;
 * else (no key, or LLM_BASE_URL pointing at Ollama, vLLM, llama.cpp's server...) the local model, because a local
 * server need not serve any embedding model, let alone one of that name.
 */
export function embeddingModelName(config: ProviderSettings): string {
  if (config.embeddingModel !== undefined) return config.embeddingModel;
  return config.apiKey !== undefined && config.baseUrl === undefined ? defaultProviderEmbeddingModel : localEmbeddingModelName;
}

/**
 * The models the configuration asks for. `wrapEmbeddings` (counting and timing its calls, say) is applied to the
 * embedding model before the extractive answerer is given it, so that the answerer's calls go through it too.
 */
export async function selectModels(
  config: ProviderSettings,
  log: { warn(message: string): void },
  wrapEmbeddings: (model: EmbeddingModel) => EmbeddingModel = (model) => model,
): Promise<SelectedModels> {
  const embeddingModel = embeddingModelName(config);
  // The official client is loaded only when a provider is configured: a tenth of a second of start-up otherwise.
  const provider =
    config.apiKey === undefined
      ? undefined
      : (await import('./openai-compatible.js')).createOpenAiCompatible({
          apiKey: config.apiKey,
          baseUrl: config.baseUrl,
          chatModel: config.chatModel,
          embeddingModel,
          temperature: config.temperature,
        });

  let embeddings: EmbeddingModel | undefined = provider?.embeddings;
  if (embeddingModel === localEmbeddingModelName || provider === undefined) {
    try {
      embeddings = await createLocalEmbeddingModel();
    } catch (error) {
      log.warn(`the local embedding model could not be loaded (${(error as Error).message}); embedding search is unavailable`);
      embeddings = undefined;
    }
  }

  if (embeddings !== undefined) embeddings = wrapEmbeddings(embeddings);
  const questionEmbeddings = embeddings === undefined ? undefined : rememberingEmbeddings(embeddings, rememberedTexts);
  const chat = config.chatModel === extractiveModelId ? createExtractiveChatModel(questionEmbeddings) : provider?.chat;
  if (chat === undefined)
    log.warn('LLM_API_KEY is not set: the agent endpoints answer 503 (set KNOWLEDGE_AGENT_MODEL=extractive to answer without a provider)');
  return { chat, embeddings, questionEmbeddings };
}
