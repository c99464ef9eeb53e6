// GET /metrics: Prometheus text format. Its index gauges name namespaces, so a scrape shows only the namespaces its
// token may read: with KNOWLEDGE_AGENT_METRICS_TOKEN (every namespace) or a read or write token (its namespaces).
// Without read tokens or a metrics token it is open and shows every namespace, like the search routes.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ServiceMetrics } from './service-metrics.js';

export interface MetricsRouteOptions {
  readonly metrics: ServiceMetrics;
  /** Whether the request's token may read the namespace. */
  readonly mayRead: (request: FastifyRequest, namespace: string) => boolean;
}

export const metricsRoute: FastifyPluginAsync<MetricsRouteOptions> = async (app, options) => {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['Service'],
        summary: 'Prometheus metrics',
        description:
          'Request, ingest and provider metrics, and the index sizes of the namespaces the token may read (all of them for KNOWLEDGE_AGENT_METRICS_TOKEN). ' +
          'Needs a token once KNOWLEDGE_AGENT_READ_TOKENS or KNOWLEDGE_AGENT_METRICS_TOKEN is set.',
        documentation: {
          success: { description: "Prometheus' text format, version 0.0.4.", content: { 'text/plain': z.string() } },
        },
      },
      config: { access: 'metrics', cost: 'free' },
    },
    async (request, reply) => {
      const text = await options.metrics.scrape((namespace) => options.mayRead(request, namespace));
      return reply.type(options.metrics.contentType).send(text);
    },
  );
};
