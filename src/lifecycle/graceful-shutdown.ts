// Graceful shutdown. When the app starts closing (SIGTERM): the app's shutdown signal aborts, so agent runs stop their
// provider call and end their streams with a final `shutting_down` event; requests that still arrive get 503
// `shutting_down`; responses in flight close their connections, so Fastify's close does not wait on keep-alive
// sockets; in-flight ingests get a grace period to finish, then their signal stops them (fetches, conversions and
// embedding calls are cancelled; what they stored stays), and their writes complete before the store closes.
import { setMaxListeners } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { KnowledgeError } from '../errors.js';

/** After SIGTERM the process exits within this time, with code 1 if closing has not finished (milliseconds). */
export const shutdownDeadlineMs = 10_000;
/** How long an in-flight ingest may still run once shutdown starts; leaves time to close the store before the deadline. */
export const ingestGraceMs = 6_000;

declare module 'fastify' {
  interface FastifyInstance {
    /** Aborted, with a `shutting_down` KnowledgeError as its reason, when the app starts closing. */
    readonly shutdownSignal: AbortSignal;
  }
}

export function shuttingDown(message = 'the service is shutting down; send the request again'): KnowledgeError {
  return new KnowledgeError('shutting_down', message);
}

/** Installs the hooks and returns the app's shutdown signal (also `app.shutdownSignal`, for code reached through a request). */
export function installGracefulShutdown(app: FastifyInstance): AbortSignal {
  const controller = new AbortController();
  // Every in-flight ingest and agent run listens to it, and stops listening when it ends: many at once are not a leak
  // (Node warns past 10 listeners otherwise, which 30 concurrent ingests in a test reach).
  setMaxListeners(0, controller.signal);
  const inFlight = new Set<ServerResponse>();
  app.decorate('shutdownSignal', controller.signal);

  app.addHook('onRequest', async (_request, reply) => {
    const response = reply.raw;
    if (controller.signal.aborted) {
      response.setHeader('connection', 'close');
      throw shuttingDown();
    }
    inFlight.add(response);
    response.once('close', () => inFlight.delete(response));
  });

  app.addHook('preClose', async () => {
    app.log.info({ inFlightRequests: inFlight.size }, 'shutting down: refusing new requests, ending open streams, finishing ingests');
    controller.abort(shuttingDown());
    for (const response of inFlight) {
      if (!response.headersSent) response.setHeader('connection', 'close');
      // A stream's headers said keep-alive: once it has ended, its idle connection is closed so the server can stop.
      else response.once('finish', () => setImmediate(() => app.server.closeIdleConnections()));
    }
  });
  return controller.signal;
}

/**
 * Aborts `controller` with `shutting_down` (saying `message`) once shutdown has been under way for `graceMs`: the work it
 * stops gets that long to finish. Returns what stops listening to shutdown, to call when the work has ended.
 */
export function abortAfterShutdownGrace(
  controller: AbortController,
  shutdown: AbortSignal,
  message?: string,
  graceMs = ingestGraceMs,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  const startGrace = () => {
    timer = setTimeout(() => controller.abort(shuttingDown(message)), graceMs);
  };
  if (shutdown.aborted) startGrace();
  else shutdown.addEventListener('abort', startGrace, { once: true });
  return () => {
    clearTimeout(timer);
    shutdown.removeEventListener('abort', startGrace);
  };
}

/**
 * Resolves or rejects as `work` does, unless `signal` aborts first: then rejects with the signal's reason at once. The
 * work, told to stop by the same signal, may still be finishing a write; what it committed stays.
 */
export function unlessStopped<Result>(work: Promise<Result>, signal: AbortSignal): Promise<Result> {
  return new Promise<Result>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
