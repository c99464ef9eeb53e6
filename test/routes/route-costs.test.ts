// Every route declares what it spends from its client's request budget (config.cost): a route that forgets stops the
// service at start-up, and each served route behaves as it declares (its class is published in /openapi.json).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { declareRoutesFree, installRateLimit } from '../../src/routes/plumbing/rate-limit.js';
import { servedRoutes } from '../support/served-routes.js';
import { startService, type TestService } from '../support/service.js';

type Operation = { 'x-rate-limit'?: string };
type OpenApiDocument = { paths: Record<string, Record<string, Operation>> };

/** The routes of the contract that ingest or answer, and the MCP endpoint, whose tool calls spend one each. */
const spendingRoutes = {
  'post /tools/ingest': 'request',
  'post /api/tools/ingest': 'request',
  'post /api/tools/ingest/execute': 'request',
  'post /agent': 'request',
  'post /api/agents/knowledge/generate': 'request',
  'post /api/agents/knowledge/stream': 'request',
  'post /v1/chat/completions': 'request',
  'post /mcp': 'tool-calls',
} as const;

describe('route costs', () => {
  it('stops start-up naming every route that declares no cost, and accepts routes a context declares free', async () => {
    const app = Fastify();
    await installRateLimit(app, 10);
    app.get('/forgotten', async () => 'x');
    app.post('/declared', { config: { cost: 'request' } }, async () => 'x');
    await app.register(async (assets) => {
      declareRoutesFree(assets);
      assets.get('/asset.css', async () => 'x');
    });
    await assert.rejects(
      async () => app.ready(),
      (error: Error) => {
        assert.match(error.message, /^routes without a rate-limit class: GET \/forgotten, HEAD \/forgotten; declare config\.cost/);
        assert.doesNotMatch(error.message, /declared|asset/);
        return true;
      },
    );
  });

  describe('every route the service serves', () => {
    let service: TestService;
    let document: OpenApiDocument;

    before(async () => {
      service = await startService({ apiKey: undefined, environment: { KNOWLEDGE_AGENT_RATE_LIMIT: '1000' } });
      document = (await service.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    });
    after(async () => {
      await service.dispose();
    });

    it('declares its class, and spends from the budget exactly when it declares `request`', async () => {
      const routes = servedRoutes(service.app.printRoutes({ commonPrefix: false }));
      assert.ok(routes.length > 30, 'the route tree was read');
      const classes = new Map<string, string>();
      for (const { method, path } of routes) {
        const key = `${method} ${path}`;
        const operation = document.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method];
        // Left out of the reference: the playground's files and the reference's own pages, declared free by their context.
        const declared = operation === undefined ? 'free' : operation['x-rate-limit'];
        assert.ok(declared === 'request' || declared === 'tool-calls' || declared === 'free', `${key} declares its class (${declared})`);
        classes.set(key, declared);
        const response = await service.app.inject({ method: method.toUpperCase() as 'GET', url: path.replace(/:\w+|\*/g, 'x') });
        assert.equal(
          response.headers['x-ratelimit-limit'],
          declared === 'request' ? '1000' : undefined,
          `${key} (${declared}, answered ${response.statusCode}) spends from the budget only when it declares request`,
        );
      }
      for (const [key, cost] of Object.entries(spendingRoutes)) assert.equal(classes.get(key), cost, key);
    });
  });
});
