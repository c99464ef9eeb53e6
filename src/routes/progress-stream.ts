// Long ingests (crawls, many sources) can report progress as NDJSON: one event per line as it happens, then
// `{"type":"result","result":<the usual response>}` or `{"type":"error","error":{code,message}}` as the last line.
// Asked for with `?progress=ndjson` or `Accept: application/x-ndjson`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../errors.js';
import { knownFailure } from './error-handler.js';
import type { IngestProgress } from '../ingest/ingest-service.js';

function wantsProgress(request: FastifyRequest): boolean {
  const query = request.query as { progress?: unknown } | undefined;
  return query?.progress === 'ndjson' || (request.headers.accept ?? '').includes('application/x-ndjson');
}

export async function respondWithProgress<Result>(
  request: FastifyRequest,
  reply: FastifyReply,
  run: (onProgress: (event: IngestProgress) => void) => Promise<Result>,
): Promise<Result | undefined> {
  if (!wantsProgress(request)) return run(() => {});
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  const line = (value: unknown) => {
    if (!response.writableEnded) response.write(`${JSON.stringify(value)}\n`);
  };
  try {
    line({ type: 'result', result: await run(line) });
  } catch (error) {
    const failure = knownFailure(request, error);
    line({ type: 'error', ...errorBody(failure.code, failure.message) });
  }
  response.end();
  return undefined;
}
