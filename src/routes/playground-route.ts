// GET /: the web playground, static files that `npm run build` writes to dist/web (scripts/build-web.mjs).
// Public like /health (no `access` in the route config): the page holds no data; every API call it makes sends the
// user's token. One route per built file (no catch-all), so it cannot shadow any other route or the 404 answer.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { errorBody } from '../errors.js';
import { packageRoot } from '../package-root.js';
import { declareRoutesFree } from './plumbing/index.js';

export interface PlaygroundRouteOptions {
  /** The built playground; by default the package's dist/web. */
  readonly root?: URL;
}

const builtPlayground = pathToFileURL(join(packageRoot, 'dist', 'web', '/'));

/** The page loads only its own files and talks only to this service. */
const securityHeaders = {
  'content-security-policy': "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

export const playgroundRoute: FastifyPluginAsync<PlaygroundRouteOptions> = async (app, options) => {
  const root = options.root ?? builtPlayground;
  app.addHook('onSend', async (_request, reply) => {
    reply.headers(securityHeaders);
  });

  declareRoutesFree(app);
  if (!existsSync(new URL('index.html', root))) {
    app.get('/', async (_request, reply) =>
      reply
        .code(503)
        .header('cache-control', 'no-store')
        .send(errorBody('playground_not_built', 'the web playground is not built: run `npm run build`, then restart the service')),
    );
    return;
  }

  await app.register(fastifyStatic, {
    root: fileURLToPath(root),
    prefix: '/',
    wildcard: false,
    decorateReply: false,
    index: 'index.html',
    // Revalidated on every load (ETag), so a rebuilt playground is picked up at once.
    cacheControl: true,
    maxAge: 0,
  });
};
