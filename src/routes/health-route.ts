// GET /health: liveness, version, the models in use and the namespaces.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import { jsonSuccess } from './plumbing/index.js';

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

/** For the API reference only (see RouteDocumentation in openapi.ts). */
const healthResponseSchema = z.object({
  status: z
    .enum(['healthy', 'starting'])
    .describe(
      '`starting` (with a 503) while a cluster replica is still loading the namespaces from the database: a load balancer sends it no traffic until it is caught up.',
    ),
  version: z.string(),
  agent: z.string().describe('`ready`, or why the agent endpoints answer 503.'),
  chat_model: z.string().nullable(),
  embedding_model: z.string().nullable().describe('Null when embedding search is unavailable.'),
  namespaces: z.array(z.string()).optional().describe('Only when reading is open.'),
});

/**
 * How long /health waits for the namespace listing before answering with the last one read. Reading the storage
 * root's folder takes well under a millisecond, but it queues behind the file writes and fsyncs of ingests in the
 * I/O thread pool, and under heavy disk writeback that took over 100 ms: a health check must not wait on the disk.
 */
const namespaceListingBudgetMs = 20;

export const healthRoute: FastifyPluginAsync<HealthRouteOptions> = async (app, options) => {
  let lastListing: string[] | undefined;
  const namespaceListing = async (): Promise<string[]> => {
    const reading = options.store.namespaceNames().then((names) => (lastListing = names));
    const known = lastListing;
    if (known === undefined) return reading;
    // A listing that arrives late still updates the next answer; its failure then has no request left to fail.
    reading.catch((error: unknown) => app.log.warn({ err: error }, 'listing the namespaces for /health failed'));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string[]>((resolve) => {
      timer = setTimeout(() => resolve(known), namespaceListingBudgetMs);
    });
    try {
      return await Promise.race([reading, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  app.get(
    '/health',
    {
      schema: {
        tags: ['Service'],
        summary: 'Health, version and models',
        description:
          'Liveness, the version, whether the agent can answer, the models in use, and the namespaces when reading is open (no KNOWLEDGE_AGENT_READ_TOKENS). Public.',
        documentation: { success: jsonSuccess('The service is up.', healthResponseSchema) },
      },
      config: { cost: 'free' },
    },
    async (_request, reply) => {
      // 503 while starting, so a load balancer's health check keeps traffic away until the replica is caught up.
      if (!options.store.ready) reply.code(503);
      return {
        status: options.store.ready ? 'healthy' : 'starting',
        version: options.version,
        agent: options.chatModel === undefined ? 'not initialized (no LLM_API_KEY)' : 'ready',
        chat_model: options.chatModel ?? null,
        embedding_model: options.embeddingModel ?? null,
        ...(options.listNamespaces ? { namespaces: await namespaceListing() } : {}),
      };
    },
  );
};
