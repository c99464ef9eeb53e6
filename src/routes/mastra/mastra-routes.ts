// The rest of Mastra's server API that its client SDK calls: the streamed answer (`agent.stream`), the agent's details
// and the agent and tool listings. The tools are the Variant 2 routes `searchDocs` and `ingest`.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { instructions } from '../../agent/prompt.js';
import { KnowledgeError } from '../../errors.js';
import { MastraStream } from './mastra-stream.js';
import { requireAgent, streamAgentRun, type AgentRouteOptions } from '../agent/index.js';
import { generateBodySchema } from '../variant2/agent-schemas.js';
import { variant2AnswerFormat } from '../variant2/answer-format.js';
import { variant2IngestBodyDocumentation } from '../variant2/ingest-schemas.js';
import { authorizeNamespace, jsonSuccess } from '../plumbing/index.js';
import { searchDocsBodySchema } from '../variant2/search-schemas.js';
import { mastraNamespace } from '../shared/index.js';

export interface MastraRouteOptions extends AgentRouteOptions {
  /** The chat model's id, shown in the agent's details. */
  readonly modelId: string | undefined;
}

const mastraAgentId = 'knowledge';

/**
 * A tool as Mastra's server lists it: the schemas are JSON Schema serialized as superjson writes it (`{"json": ...}`),
 * which is what Mastra's playground and client parse.
 */
function describeTool(id: string, description: string, input: z.ZodType) {
  return {
    id,
    description,
    inputSchema: JSON.stringify({ json: z.toJSONSchema(input, { io: 'input' }) }),
    outputSchema: JSON.stringify({ json: {} }),
  };
}

const tools = {
  searchDocs: describeTool(
    'searchDocs',
    'Searches a namespace of the documentation (BM25 by default; `mode` embedding or hybrid) and returns the best files with excerpts. Run it with POST /api/tools/searchDocs/execute.',
    searchDocsBodySchema,
  ),
  ingest: describeTool(
    'ingest',
    'Adds URLs, Markdown or text to a namespace (write tokens only). Run it with POST /api/tools/ingest/execute.',
    variant2IngestBodyDocumentation,
  ),
};
type ToolId = keyof typeof tools;

const toolSchema = z.object({
  id: z.string(),
  description: z.string(),
  inputSchema: z.string().describe('superjson of the JSON Schema: `{"json": <schema>}`.'),
  outputSchema: z.string(),
});
const agentDetailsSchema = z.looseObject({
  name: z.string(),
  description: z.string(),
  instructions: z.string(),
  tools: z.record(z.string(), toolSchema),
  workflows: z.record(z.string(), z.unknown()),
  agents: z.record(z.string(), z.unknown()),
  provider: z.string(),
  modelId: z.string(),
});

export const mastraRoutes: FastifyPluginAsyncZod<MastraRouteOptions> = async (app, options) => {
  const details = () => ({
    name: mastraAgentId,
    description: 'The documentation expert: answers from the ingested docs of a namespace, citing them, with a closing Sources line.',
    instructions,
    // The agent's own tool is the retrieval it runs before every answer.
    tools: { searchDocs: tools.searchDocs },
    workflows: {},
    agents: {},
    provider: 'openai-compatible',
    modelId: options.modelId ?? 'none',
    modelVersion: 'v2',
    defaultGenerateOptions: {},
    defaultStreamOptions: {},
  });

  app.get(
    '/api/agents',
    {
      schema: {
        tags: ['Agent'],
        summary: "List the agents (Mastra's client SDK: getAgents)",
        description: 'One agent, `knowledge`, with its details.',
        documentation: { success: jsonSuccess('The agents by id.', z.record(z.string(), agentDetailsSchema)) },
      },
      config: { access: 'read', cost: 'free' },
    },
    async () => ({ [mastraAgentId]: details() }),
  );

  app.get(
    `/api/agents/${mastraAgentId}`,
    {
      schema: {
        tags: ['Agent'],
        summary: "The agent's details (Mastra's client SDK: agent.details)",
        description: 'Name, instructions, tools and model of the `knowledge` agent.',
        documentation: { success: jsonSuccess('The details.', agentDetailsSchema) },
      },
      config: { access: 'read', cost: 'free' },
    },
    async () => details(),
  );

  app.get(
    '/api/tools',
    {
      schema: {
        tags: ['Agent'],
        summary: "List the tools (Mastra's client SDK: getTools)",
        description: '`searchDocs` and `ingest`, with their input schemas (JSON Schema, serialized as Mastra serializes it).',
        documentation: { success: jsonSuccess('The tools by id.', z.record(z.string(), toolSchema)) },
      },
      config: { access: 'read', cost: 'free' },
    },
    async () => tools,
  );

  const toolParams = z.object({ toolId: z.string().describe('`searchDocs` or `ingest`.') });
  const toolById = (toolId: string, available: readonly ToolId[]) => {
    const found = available.find((id) => id === toolId);
    if (found === undefined) throw new KnowledgeError('not_found', `there is no tool ${JSON.stringify(toolId)}`);
    return tools[found];
  };
  app.get(
    '/api/tools/:toolId',
    {
      schema: {
        tags: ['Agent'],
        summary: "One tool (Mastra's client SDK: getTool(id).details)",
        description: 'The tool and its input schema; 404 for another id.',
        params: toolParams,
        documentation: { success: jsonSuccess('The tool.', toolSchema), errors: ['not_found'] },
      },
      config: { access: 'read', cost: 'free' },
    },
    async (request) => toolById(request.params.toolId, ['searchDocs', 'ingest']),
  );
  app.get(
    `/api/agents/${mastraAgentId}/tools/:toolId`,
    {
      schema: {
        tags: ['Agent'],
        summary: "One tool of the agent (Mastra's client SDK: agent.getTool)",
        description: 'The agent has one tool, `searchDocs`; 404 for another id.',
        params: toolParams,
        documentation: { success: jsonSuccess('The tool.', toolSchema), errors: ['not_found'] },
      },
      config: { access: 'read', cost: 'free' },
    },
    async (request) => toolById(request.params.toolId, ['searchDocs']),
  );

  app.post(
    `/api/agents/${mastraAgentId}/stream`,
    {
      preValidation: requireAgent(options.agent),
      schema: {
        tags: ['Agent'],
        summary: "Answer from the docs as Mastra's agent stream (Mastra's client SDK: agent.stream)",
        description:
          'The same answer as `/api/agents/knowledge/generate`, streamed in the chunk format of Mastra\'s `agent.stream`: `data: {"type","runId","from":"AGENT","payload"}` frames ' +
          '`start`, `step-start`, `tool-call` and `tool-result` for the `searchDocs` retrieval, `text-start`, `text-delta`, `text-end`, `step-finish`, `finish` (its metadata lists the cited `sources`), ' +
          'or `error`; then `data: [DONE]`. The namespace is `toolParams.namespace`, else the `namespace` of `runtimeContext` (or `requestContext`), else the default.',
        body: generateBodySchema,
        documentation: {
          success: {
            description: 'Server-Sent Events of Mastra stream chunks, then `data: [DONE]`.',
            content: { 'text/event-stream': z.string() },
          },
          errors: ['agent_not_initialized', 'invalid_namespace', 'forbidden'],
        },
      },
      config: { access: 'read', cost: 'request' },
    },
    async (request, reply) => {
      const namespace = authorizeNamespace(request, mastraNamespace(request.body) ?? options.defaultNamespace);
      const runId = typeof request.body.runId === 'string' && request.body.runId !== '' ? request.body.runId : randomUUID();
      await streamAgentRun(request, reply, new MastraStream(runId, randomUUID()), (signal) =>
        options.agent.answer(
          { runId, channel: 'mastra', namespace, messages: request.body.messages, platformTools: [], signal },
          variant2AnswerFormat,
        ),
      );
    },
  );
};
