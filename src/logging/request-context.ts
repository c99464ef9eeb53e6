// The request a piece of code is running for, carried through async calls (AsyncLocalStorage), so a log line written
// anywhere while a request is handled (services log through `app.log`) names its request id.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';

interface RequestContext {
  readonly requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The id of the request being handled here, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/**
 * Installs the hook; it must come before any other, so everything after it (later hooks, body parsing, the handler and
 * whatever it awaits) runs inside the request's context. Also echoes the id as `x-request-id`.
 */
export function installRequestContext(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    // On the raw response, so streamed (hijacked) responses carry it too.
    reply.raw.setHeader('x-request-id', request.id);
    storage.run({ requestId: request.id }, done);
  });
}
