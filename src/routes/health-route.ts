// GET /health: liveness, version, the models in use and the namespaces.
import type { FastifyPluginAsync } from 'fastify';
import type { KnowledgeStore } from '../store/knowledge-store.js';

export interface HealthRouteOptions {
  readonly version: string;
  readonly store: KnowledgeStore;
  /** Undefined when the agent cannot answer (no provider key and no extractive model). */
  readonly chatModel: string | undefined;
  /** Undefined when embedding search is unavailable. */
  readonly embeddingModel: string | undefined;
  /** /health is open, so it names the namespaces only when reading them is open too. */
  readonly listNamespaces: boolean;
}

export const healthRoute: FastifyPluginAsync<HealthRouteOptions> = async (app, options) => {
  app.get('/health', async () => ({
    status: 'healthy',
    version: options.version,
    agent: options.chatModel === undefined ? 'not initialized (no LLM_API_KEY)' : 'ready',
    chat_model: options.chatModel ?? null,
    embedding_model: options.embeddingModel ?? null,
    ...(options.listNamespaces ? { namespaces: await options.store.namespaceNames() } : {}),
  }));
};
