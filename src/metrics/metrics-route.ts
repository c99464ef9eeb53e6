// GET /metrics: Prometheus text format. It names every namespace, so when read tokens are configured it needs a
// token (any read or write token); otherwise it is open, like the search routes.
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceMetrics } from './service-metrics.js';

export interface MetricsRouteOptions {
  readonly metrics: ServiceMetrics;
}

export const metricsRoute: FastifyPluginAsync<MetricsRouteOptions> = async (app, options) => {
  app.get('/metrics', { config: { access: 'read' } }, async (_request, reply) => {
    const text = await options.metrics.scrape();
    return reply.type(options.metrics.contentType).send(text);
  });
};
