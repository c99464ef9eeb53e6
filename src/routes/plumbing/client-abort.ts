// For answers that are not streamed: a client that leaves before the answer is sent aborts the work behind it.
import type { FastifyReply } from 'fastify';

export function abortedWhenClientLeaves(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
