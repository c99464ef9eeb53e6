// Per-client rate limit on the routes that cost the most (ingestion and agent runs): 429 with Retry-After.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { KnowledgeError } from '../../errors.js';

/** The routes the limit applies to (also listed in the API reference). */
export const rateLimitedRoutes: ReadonlySet<string> = new Set([
  '/tools/ingest',
  '/api/tools/ingest',
  '/api/tools/ingest/execute',
  '/agent',
  '/api/agents/knowledge/generate',
  '/v1/chat/completions',
  '/api/agents/knowledge/stream',
]);

export async function installRateLimit(app: FastifyInstance, requestsPerMinute: number): Promise<void> {
  if (requestsPerMinute === 0) return;
  await app.register(rateLimit, {
    max: requestsPerMinute,
    timeWindow: 60_000,
    allowList: (request) => !rateLimitedRoutes.has(request.routeOptions.url ?? ''),
    errorResponseBuilder: (_request, context) =>
      new KnowledgeError(
        'rate_limited',
        `too many requests: at most ${context.max} per minute on this route; retry in ${Math.ceil(context.ttl / 1000)} s`,
      ),
  });
}
