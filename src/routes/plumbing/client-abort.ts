// Work behind a request stops when nobody waits for it: a client that leaves before the answer is sent aborts it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { KnowledgeError } from '../../errors.js';
import { abortAfterShutdownGrace } from '../../lifecycle/graceful-shutdown.js';

/** Aborted (with the default AbortError) when the client leaves before the answer is sent: for answers that are not streamed. */
export function abortedWhenClientLeaves(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  abortWhenClientLeaves(reply, controller, undefined);
  return controller.signal;
}

function abortWhenClientLeaves(reply: FastifyReply, controller: AbortController, reason: unknown): void {
  // 'close' comes once per response, when it has been sent or when the connection closed first; a streamed answer
  // (hijacked) ends the same way.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(reason);
  });
}

export interface RequestWork {
  /** Aborted with `request_aborted` when the client leaves, or with `shutting_down` when shutdown's grace period is over. */
  readonly signal: AbortSignal;
  /** Stops listening to shutdown: call it once the work has ended. */
  release(): void;
}

/**
 * The signal of long work a client waits for (an ingest, a crawl): the work stops when the client leaves before the
 * answer is sent, and when shutdown started `ingestGraceMs` ago (the answer then says `shutdownMessage`).
 */
export function requestWork(request: FastifyRequest, reply: FastifyReply, shutdownMessage: string): RequestWork {
  const controller = new AbortController();
  abortWhenClientLeaves(
    reply,
    controller,
    new KnowledgeError('request_aborted', `the client closed the connection of request ${request.id} before the answer was sent`),
  );
  const release = abortAfterShutdownGrace(controller, request.server.shutdownSignal, shutdownMessage);
  return { signal: controller.signal, release };
}
