// POST /agent: one route, two wire formats. A body with AG-UI's threadId/runId streams AG-UI events;
// otherwise it is a Variant 1 body and streams Variant 1 SSE frames ending with [DONE].
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AgentEvent } from '../agent/agent-event.js';
import type { AgentService } from '../agent/agent-service.js';
import { KnowledgeError } from '../errors.js';
import { AgUiStream } from '../stream/ag-ui-stream.js';
import { openSseStream } from '../stream/sse-response.js';
import { variant1DoneFrame, variant1Frames } from '../stream/variant1-sse.js';
import { authorizeNamespace } from './access-control.js';
import { knownFailure } from './error-handler.js';
import { parseBody } from './parse-body.js';
import { variant1AgentBodySchema } from './variant1-schemas.js';
import { agUiNamespace, agUiRunInputSchema } from './variant2-schemas.js';

export interface AgentRouteOptions {
  readonly agent: AgentService;
  readonly defaultNamespace: string;
}

function isAgUiBody(body: Record<string, unknown>): boolean {
  return 'threadId' in body || 'runId' in body;
}

async function streamVariant1(request: FastifyRequest, reply: FastifyReply, options: AgentRouteOptions, rawBody: unknown): Promise<void> {
  const body = parseBody(variant1AgentBodySchema, rawBody);
  const namespace = authorizeNamespace(request, body.tool_params?.namespace ?? options.defaultNamespace);
  const stream = openSseStream(reply);
  try {
    const events = options.agent.variant1Run({
      namespace,
      messages: body.messages,
      platformTools: body.tools ?? [],
      signal: stream.signal,
    });
    for await (const event of events ?? []) {
      await stream.write(variant1Frames(event));
      if (stream.signal.aborted) break;
    }
  } catch (error) {
    const failure = knownFailure(request, error);
    await stream.write(variant1Frames({ type: 'error', code: failure.code, message: failure.message }));
  }
  await stream.write([variant1DoneFrame]);
  stream.end();
}

async function streamAgUi(request: FastifyRequest, reply: FastifyReply, options: AgentRouteOptions, rawBody: unknown): Promise<void> {
  const input = parseBody(agUiRunInputSchema, rawBody);
  const namespace = authorizeNamespace(request, agUiNamespace(input) ?? options.defaultNamespace);
  const run = new AgUiStream(input.threadId, input.runId);
  const stream = openSseStream(reply, { 'content-type': run.contentType });
  await stream.write(run.started());
  try {
    const events: AsyncIterable<AgentEvent> = options.agent.variant2Run({
      namespace,
      messages: input.messages,
      platformTools: input.tools ?? [],
      signal: stream.signal,
    });
    for await (const event of events) {
      await stream.write(run.frames(event));
      // Nothing follows RUN_ERROR.
      if (stream.signal.aborted || event.type === 'error') break;
    }
  } catch (error) {
    const failure = knownFailure(request, error);
    await stream.write(run.failed(failure.code, failure.message));
  }
  stream.end();
}

export const agentRoute: FastifyPluginAsyncZod<AgentRouteOptions> = async (app, options) => {
  app.post('/agent', {
    // The 503 comes before validation: without a provider nothing the body says can be answered.
    preValidation: async () => {
      if (!options.agent.available) throw new KnowledgeError('agent_not_initialized', 'Agent not initialized');
    },
    schema: { body: z.record(z.string(), z.unknown()) },
    config: { access: 'read' },
  }, async (request, reply) => {
    if (isAgUiBody(request.body)) await streamAgUi(request, reply, options, request.body);
    else await streamVariant1(request, reply, options, request.body);
  });
};
