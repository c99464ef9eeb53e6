// POST /agent: one route, two wire formats. A body with AG-UI's threadId/runId streams AG-UI events;
// otherwise it is a Variant 1 body and streams Variant 1 SSE frames ending with [DONE].
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { streamAgUi } from './ag-ui/agent-run.js';
import { agUiRunInputSchema } from './ag-ui/agent-schemas.js';
import { requireAgent } from './agent/index.js';
import type { RouteDocumentation } from './plumbing/index.js';
import { streamVariant1, type Variant1AgentOptions } from './variant1/agent-run.js';
import { variant1AgentBodySchema } from './variant1/agent-schemas.js';

function isAgUiBody(body: Record<string, unknown>): boolean {
  return 'threadId' in body || 'runId' in body;
}

/** For the API reference: the two bodies the handler tells apart, and the two event streams. */
const documentation: RouteDocumentation = {
  body: {
    'application/json': z
      .union([
        variant1AgentBodySchema.meta({ title: 'Variant 1 body' }),
        agUiRunInputSchema.meta({ title: 'AG-UI RunAgentInput (Variant 2)' }),
      ])
      .describe('A body with `threadId` or `runId` is an AG-UI run; any other is a Variant 1 body.'),
  },
  success: {
    description:
      'Server-Sent Events. Variant 1: `data: <json>` frames `tool_call_start`, `tool_call_result`, `text_message` (deltas of the answer, ' +
      'whose last line is `Sources: <titles>` (each linked to its URL when it came from the web) or `Sources: none`), `error` on failure, and always `data: [DONE]` last; without the mention ' +
      'in the newest user message only `data: [DONE]`. AG-UI: events encoded by @ag-ui/encoder: `RUN_STARTED`, `TOOL_CALL_START/ARGS/END/RESULT`, ' +
      '`TEXT_MESSAGE_START/CONTENT/END` (the answer ends `Sources: <file names>`), then `RUN_FINISHED`, or `RUN_ERROR` and nothing after it.',
    content: {
      'text/event-stream': z.string().describe('An event stream; each event is one `data:` line of JSON followed by a blank line.'),
    },
  },
  errors: ['agent_not_initialized', 'invalid_namespace', 'forbidden'],
};

export const agentRoute: FastifyPluginAsyncZod<Variant1AgentOptions> = async (app, options) => {
  app.post(
    '/agent',
    {
      preValidation: requireAgent(options.agent),
      schema: {
        tags: ['Agent'],
        summary: 'Answer from the docs as an event stream (Variant 1 SSE or AG-UI)',
        description:
          'Searches the namespace for the newest user message and streams an answer that cites the snippets as [n]. ' +
          'The namespace is `tool_params.namespace` (Variant 1) or the first of `toolParams`, `forwardedProps`, `state` `.namespace` (AG-UI), else the default. ' +
          'Variant 1 needs the mention (@knowledge) in the newest user message. Platform `tools` may be called: the stream ends after the call and the platform calls again with the result. ' +
          'Errors before the stream starts are JSON (503 `Agent not initialized` without a provider key); later ones are events.',
        body: z.record(z.string(), z.unknown()),
        documentation,
      },
      config: { access: 'read', cost: 'request' },
    },
    async (request, reply) => {
      if (isAgUiBody(request.body)) await streamAgUi(request, reply, options, request.body);
      else await streamVariant1(request, reply, options, request.body);
    },
  );
};
