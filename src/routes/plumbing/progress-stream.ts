// Long ingests (crawls, many sources) can report progress as NDJSON: one event per line as it happens, then
// `{"type":"result","result":<the usual response>}` or `{"type":"error","error":{code,message}}` as the last line.
// Asked for with `?progress=ndjson` or `Accept: application/x-ndjson`. While nothing else is written, a `working` line
// goes out every 15 s (a third of the idle time-out when that is shorter): one document can take longer than the idle
// time-out to embed (6 MB of Markdown makes about 10,000 chunks), and a silent connection would be closed under it.
// The ingest runs under a signal that stops it when the client leaves, or when shutdown's grace period is over: past
// it, the response (or the stream's last line) is a `shutting_down` error rather than a connection cut by the exiting
// process.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errorBody } from '../../errors.js';
import { knownFailure } from './error-handler.js';
import type { IngestProgress } from '../../ingest/ingest-service.js';
import { unlessStopped } from '../../lifecycle/graceful-shutdown.js';
import { requestWork } from './client-abort.js';

const unfinishedIngest =
  'the service is shutting down and this ingest did not finish in time; what it stored so far stays stored: send the request again for the rest (unchanged documents are skipped)';

/** How often a progress stream says it is still working when nothing else was written. */
function heartbeatInterval(request: FastifyRequest): number {
  const idleMs = request.server.initialConfig.connectionTimeout ?? 0;
  return idleMs > 0 ? Math.min(15_000, Math.floor(idleMs / 3)) : 15_000;
}

function wantsProgress(request: FastifyRequest): boolean {
  const query = request.query as { progress?: unknown } | undefined;
  return query?.progress === 'ndjson' || (request.headers.accept ?? '').includes('application/x-ndjson');
}

export async function respondWithProgress<Result>(
  request: FastifyRequest,
  reply: FastifyReply,
  run: (onProgress: (event: IngestProgress) => void, signal: AbortSignal) => Promise<Result>,
): Promise<Result | undefined> {
  const work = requestWork(request, reply, unfinishedIngest);
  // The answer does not wait for the stopped work to wind down (a write under way completes on its own).
  const finishing = (onProgress: (event: IngestProgress) => void) =>
    unlessStopped(run(onProgress, work.signal), work.signal).finally(work.release);
  if (!wantsProgress(request)) return finishing(() => {});
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
  const started = performance.now();
  const heartbeat = setInterval(
    () => line({ type: 'working', seconds: Math.round((performance.now() - started) / 1000) }),
    heartbeatInterval(request),
  );
  const line = (value: unknown) => {
    if (response.writableEnded) return;
    response.write(`${JSON.stringify(value)}\n`);
    heartbeat.refresh();
  };
  try {
    line({ type: 'result', result: await finishing(line) });
  } catch (error) {
    const failure = knownFailure(request, error);
    line({ type: 'error', ...errorBody(failure.code, failure.message) });
  } finally {
    clearInterval(heartbeat);
  }
  response.end();
  return undefined;
}

/** The query parameter that asks for progress, for the API reference (see RouteDocumentation in openapi.ts). */
export const progressQuerySchema = z.object({
  progress: z.literal('ndjson').optional().describe('Stream progress as NDJSON (so does `Accept: application/x-ndjson`).'),
});
