// The per-client request budget (KNOWLEDGE_AGENT_RATE_LIMIT a minute): one budget per client (its address; IPv6 by
// /64) shared by every route and MCP tool call that ingests or answers. Each route declares its `cost` in its options,
// and a route that declares none stops the service at start-up, so a new route cannot forget its limit.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { KnowledgeError } from '../../errors.js';

/**
 * What a request spends from its client's budget: `request`, one per request (ingestion, agent runs); `tool-calls`,
 * one per call of a tool that ingests or answers (the MCP endpoint: each call of a JSON-RPC batch counts);
 * `free`, nothing (searches, listings, health, documentation).
 */
export type RouteCost = 'request' | 'tool-calls' | 'free';

declare module 'fastify' {
  interface FastifyContextConfig {
    cost?: RouteCost;
  }
}

/** Why a request was refused, and when its client may try again. */
export interface BudgetRefusal {
  readonly retryAfterSeconds: number;
  readonly error: KnowledgeError;
}

/** Spends one from the budget of the request's client; a refusal when the budget is spent. */
export type SpendBudget = (request: FastifyRequest) => Promise<BudgetRefusal | undefined>;

const windowMs = 60_000;

/**
 * Marks every route registered in `context` as free: for third-party plugins' routes (static files, the API
 * reference's pages), which take no route options of ours.
 */
export function declareRoutesFree(context: FastifyInstance): void {
  context.addHook('onRoute', (route) => {
    route.config = { ...route.config, cost: 'free' };
  });
}

/** Routes registered without a `cost`, checked once every plugin has had its say (see declareRoutesFree). */
function requireDeclaredCosts(app: FastifyInstance): void {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  app.addHook('onReady', async () => {
    const undeclared = routes.filter((route) => route.config?.cost === undefined).map((route) => `${String(route.method)} ${route.url}`);
    if (undeclared.length > 0) {
      throw new Error(
        `routes without a rate-limit class: ${undeclared.join(', ')}; declare config.cost ('request', 'tool-calls' or 'free') on each`,
      );
    }
  });
}

/**
 * Registers the budget and the check that every route declares its cost; returns the budget's spending function,
 * for the MCP endpoint's tool calls (with 0 requests a minute nothing is counted and nothing refused).
 */
export async function installRateLimit(app: FastifyInstance, requestsPerMinute: number): Promise<SpendBudget> {
  requireDeclaredCosts(app);
  // The plugin's store and client keys, without its own hooks (global: false): routes opt in by their cost.
  await app.register(rateLimit, { global: false, max: requestsPerMinute, timeWindow: windowMs });
  if (requestsPerMinute === 0) return async () => undefined;
  const limiter = app.createRateLimit();

  async function charge(request: FastifyRequest) {
    const outcome = await limiter(request);
    if (outcome.isAllowed) return undefined;
    const refusal = outcome.isExceeded
      ? {
          retryAfterSeconds: outcome.ttlInSeconds,
          error: new KnowledgeError(
            'rate_limited',
            `too many requests from this client: at most ${outcome.max} a minute to the ingest and agent routes and MCP tool calls together; retry in ${outcome.ttlInSeconds} s`,
          ),
        }
      : undefined;
    return { outcome, refusal };
  }

  async function chargeRequest(request: FastifyRequest, reply: FastifyReply) {
    const charged = await charge(request);
    if (charged === undefined) return;
    const { outcome, refusal } = charged;
    reply.header('x-ratelimit-limit', outcome.max);
    reply.header('x-ratelimit-remaining', outcome.remaining);
    reply.header('x-ratelimit-reset', outcome.ttlInSeconds);
    if (refusal === undefined) return;
    reply.header('retry-after', refusal.retryAfterSeconds);
    throw refusal.error;
  }

  app.addHook('onRoute', (route) => {
    if (route.config?.cost !== 'request') return;
    route.onRequest = [...[route.onRequest ?? []].flat(), chargeRequest];
  });
  return async (request) => (await charge(request))?.refusal;
}
