// Variant 1's answer on POST /agent: its body, its answer format (the seed's `search_docs` tool, the mention gate,
// sources named as every channel names them) and its SSE frames.
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AnswerFormat } from '../../agent/agent-service.js';
import { pageLabel } from '../../search/page-label.js';
import { streamAgentRun, type AgentRouteOptions } from '../agent/index.js';
import { authorizeNamespace, parseBody } from '../plumbing/index.js';
import { Variant1Stream } from './agent-stream.js';
import { variant1AgentBodySchema } from './agent-schemas.js';

const variant1AnswerFormat: AnswerFormat = { retrievalToolName: 'search_docs', sourceLabel: pageLabel, requiresMention: true };

export interface Variant1AgentOptions extends AgentRouteOptions {
  /** The storage root as configured, for the stored files the matches name. */
  readonly storagePath: string;
}

export async function streamVariant1(
  request: FastifyRequest,
  reply: FastifyReply,
  options: Variant1AgentOptions,
  rawBody: unknown,
): Promise<void> {
  const body = parseBody(variant1AgentBodySchema, rawBody);
  const namespace = authorizeNamespace(request, body.tool_params?.namespace ?? options.defaultNamespace);
  // Variant 1's frames carry no run id: the request's `run_id` is the one feedback names.
  const runId = body.run_id !== undefined && body.run_id !== '' ? body.run_id : `run_${randomUUID()}`;
  await streamAgentRun(request, reply, new Variant1Stream(options.storagePath, namespace), (signal) =>
    options.agent.answer(
      { runId, channel: 'variant1', namespace, messages: body.messages, platformTools: body.tools ?? [], signal },
      variant1AnswerFormat,
    ),
  );
}
