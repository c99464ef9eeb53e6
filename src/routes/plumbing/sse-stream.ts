// Streams frames to an HTTP response as Server-Sent Events, with backpressure, and aborts the run when the client leaves.
import type { FastifyReply } from 'fastify';

export interface SseStream {
  /** Aborted when the client disconnects before the stream ends. */
  readonly signal: AbortSignal;
  /** Writes one or more complete frames; resolves when the socket can take more. */
  write(frames: readonly string[]): Promise<void>;
  end(): void;
}

export function openSseStream(reply: FastifyReply, extraHeaders: Record<string, string> = {}): SseStream {
  const response = reply.raw;
  const controller = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) controller.abort(new Error('client disconnected'));
  });
  reply.hijack();
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...extraHeaders,
  });
  response.flushHeaders();
  return {
    signal: controller.signal,
    async write(frames) {
      if (controller.signal.aborted || frames.length === 0) return;
      if (!response.write(frames.join(''))) {
        await new Promise<void>((resolve) => {
          const done = () => {
            response.off('drain', done);
            response.off('close', done);
            resolve();
          };
          response.on('drain', done);
          response.on('close', done);
        });
      }
    },
    end() {
      if (!response.writableEnded) response.end();
    },
  };
}
