// Streams one agent run to the client in a wire format as Server-Sent Events: the encoder's opening frames, a frame
// group per event (an error event is the last), a thrown failure as the format's error, then its closing frames.
// A client that leaves aborts the run.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AgentEvent } from '../../agent/agent-event.js';
import type { AgentStreamEncoder } from './agent-stream-encoder.js';
import { knownFailure, openSseStream } from '../plumbing/index.js';

/** `run` returns undefined for a run that stays silent (Variant 1 without the mention): only the closing frames are sent. */
export async function streamAgentRun(
  request: FastifyRequest,
  reply: FastifyReply,
  encoder: AgentStreamEncoder,
  run: (signal: AbortSignal) => AsyncIterable<AgentEvent> | undefined,
): Promise<void> {
  const stream = openSseStream(reply, encoder.contentType === undefined ? {} : { 'content-type': encoder.contentType });
  await stream.write(encoder.started());
  try {
    for await (const event of run(stream.signal) ?? []) {
      await stream.write(encoder.frames(event));
      if (stream.signal.aborted || event.type === 'error') break;
    }
  } catch (error) {
    const failure = knownFailure(request, error);
    await stream.write(encoder.failed(failure.code, failure.message));
  }
  await stream.write(encoder.finished());
  stream.end();
}
