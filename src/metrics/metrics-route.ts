// GET /metrics: Prometheus text format. Its index gauges name namespaces, so a scrape shows only the namespaces its
// token may read: with KNOWLEDGE_AGENT_METRICS_TOKEN (every namespace) or a read or write token (its namespaces).
// Without read tokens or a metrics token it is open and shows every namespace, like the search routes.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceMetrics } from './service-metrics.js';

export interface MetricsRouteOptions {
  readonly metrics: ServiceMetrics;
  /** Whether the request's token may read the namespace. */
  readonly mayRead: (request: FastifyRequest, namespace: string) => boolean;
}

export const metricsRoute: FastifyPluginAsync<MetricsRouteOptions> = async (app, options) => {
  app.get('/metrics', { config: { access: 'metrics' } }, async (request, reply) => {
    const text = await options.metrics.scrape((namespace) => options.mayRead(request, namespace));
    return reply.type(options.metrics.contentType).send(text);
  });
};
