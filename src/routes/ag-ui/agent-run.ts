// AG-UI's answer on POST /agent (Variant 2's streaming agent): a RunAgentInput in, AG-UI events out, in Variant 2's
// answer format (the contract's file names as citation labels).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { streamAgentRun, type AgentRouteOptions } from '../agent/index.js';
import { authorizeNamespace, parseBody } from '../plumbing/index.js';
import { variant2AnswerFormat } from '../variant2/answer-format.js';
import { AgUiStream } from './ag-ui-stream.js';
import { agUiNamespace, agUiRunInputSchema } from './agent-schemas.js';

export async function streamAgUi(
  request: FastifyRequest,
  reply: FastifyReply,
  options: AgentRouteOptions,
  rawBody: unknown,
): Promise<void> {
  const input = parseBody(agUiRunInputSchema, rawBody);
  const namespace = authorizeNamespace(request, agUiNamespace(input) ?? options.defaultNamespace);
  await streamAgentRun(request, reply, await AgUiStream.open(input.threadId, input.runId), (signal) =>
    options.agent.answer(
      { runId: input.runId, channel: 'ag-ui', namespace, messages: input.messages, platformTools: input.tools ?? [], signal },
      variant2AnswerFormat,
    ),
  );
}
