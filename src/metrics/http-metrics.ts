// Counts and times every HTTP request by its route pattern (never the raw URL, so the label set stays bounded).
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from './service-metrics.js';

/** The route label of requests no route matched (404s, malformed URLs). */
export const unmatchedRoute = 'unmatched';

/** Installs the hook; it must come before hooks that can refuse a request, so refusals are counted too. */
export function installHttpMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onRequest', (request, reply, done) => {
    const started = performance.now();
    // 'close' comes for every response, finished or cut off by the client (onResponse misses the latter).
    reply.raw.once('close', () => {
      const seconds = (performance.now() - started) / 1000;
      metrics.observeRequest(request.method, request.routeOptions.url ?? unmatchedRoute, reply.raw.statusCode, seconds);
    });
    done();
  });
}
