// POST /agent: validates the body, applies the 503 rule, and streams the run in the Variant 1 SSE format.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AgentService } from '../agent/agent-service.js';
import { KnowledgeError } from '../errors.js';
import { openSseStream } from '../stream/sse-response.js';
import { variant1DoneFrame, variant1Frames } from '../stream/variant1-sse.js';
import { variant1AgentBodySchema } from './variant1-schemas.js';

export interface AgentRouteOptions {
  readonly agent: AgentService;
  readonly defaultNamespace: string;
}

export const agentRoute: FastifyPluginAsyncZod<AgentRouteOptions> = async (app, options) => {
  app.post('/agent', {
    // The 503 comes before validation: without a provider nothing the body says can be answered.
    preValidation: async () => {
      if (!options.agent.available) throw new KnowledgeError('agent_not_initialized', 'Agent not initialized');
    },
    schema: { body: variant1AgentBodySchema },
  }, async (request, reply) => {
    const body = request.body;
    const stream = openSseStream(reply);
    const events = options.agent.variant1Run({
      namespace: body.tool_params?.namespace ?? options.defaultNamespace,
      messages: body.messages,
      platformTools: body.tools ?? [],
      signal: stream.signal,
    });
    try {
      for await (const event of events ?? []) {
        await stream.write(variant1Frames(event));
        if (stream.signal.aborted) break;
      }
    } catch (error) {
      request.log.error({ err: error }, 'agent stream failed');
      const known = error instanceof KnowledgeError ? error : new KnowledgeError('internal_error', `the agent run failed (request ${request.id})`);
      await stream.write(variant1Frames({ type: 'error', code: known.code, message: known.message }));
    }
    await stream.write([variant1DoneFrame]);
    stream.end();
  });
};
