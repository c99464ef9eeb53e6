// GET /health: liveness, version and whether the agent can answer.
import type { FastifyPluginAsync } from 'fastify';
import type { KnowledgeStore } from '../store/knowledge-store.js';

export interface HealthRouteOptions {
  readonly version: string;
  readonly store: KnowledgeStore;
  readonly agentAvailable: boolean;
}

export const healthRoute: FastifyPluginAsync<HealthRouteOptions> = async (app, options) => {
  app.get('/health', async () => ({
    status: 'healthy',
    version: options.version,
    agent: options.agentAvailable ? 'ready' : 'not initialized (no LLM_API_KEY)',
    namespaces: await options.store.namespaceNames(),
  }));
};
