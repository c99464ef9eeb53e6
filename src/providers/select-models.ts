// Chooses the chat and embedding models from the configuration: the provider when a key is set,
// the bundled local embedding model when there is none (or when asked for), the extractive answerer when asked for.
import type { Config } from '../config.js';
import type { ChatModel } from './chat-model.js';
import type { EmbeddingModel } from './embedding-model.js';
import { createExtractiveChatModel, extractiveModelId } from './extractive-chat-model.js';
import { createLocalEmbeddingModel } from './local-embedding-model.js';
import { createOpenAiCompatible } from './openai-compatible.js';

export const localEmbeddingModelName = 'local';

export interface SelectedModels {
  /** Undefined: the agent endpoints answer 503. */
  readonly chat: ChatModel | undefined;
  /** Undefined: embedding search is unavailable and ranking falls back to lexical. */
  readonly embeddings: EmbeddingModel | undefined;
}

export async function selectModels(config: Config['provider'], log: { warn(message: string): void }): Promise<SelectedModels> {
  const provider = config.apiKey === undefined
    ? undefined
    : createOpenAiCompatible({
        apiKey: config.apiKey,
        baseUrl: config.baseUrl,
        chatModel: config.chatModel,
        embeddingModel: config.embeddingModel,
        temperature: config.temperature,
      });

  let embeddings: EmbeddingModel | undefined = provider?.embeddings;
  if (config.embeddingModel === localEmbeddingModelName || provider === undefined) {
    try {
      embeddings = await createLocalEmbeddingModel();
    } catch (error) {
      log.warn(`the local embedding model could not be loaded (${(error as Error).message}); embedding search is unavailable`);
      embeddings = undefined;
    }
  }

  const chat = config.chatModel === extractiveModelId ? createExtractiveChatModel() : provider?.chat;
  if (chat === undefined) log.warn('LLM_API_KEY is not set: the agent endpoints answer 503 (set KNOWLEDGE_AGENT_MODEL=extractive to answer without a provider)');
  return { chat, embeddings };
}
