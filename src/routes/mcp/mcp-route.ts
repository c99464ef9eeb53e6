// /mcp: the Model Context Protocol over its Streamable HTTP transport (the official SDK), stateless: every POST gets
// a server and transport of its own, bound to the caller's token. GET and DELETE (sessions, server-sent streams) are 405.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { McpServices } from './knowledge-mcp-server.js';
import { meterToolCalls, rateLimitedErrorCode } from './metered-tool-calls.js';
import { authorizeNamespace, authorizeNamespaceForWriting, mayAccess, type SpendBudget } from '../plumbing/index.js';

export interface McpRouteOptions extends McpServices {
  /** The request budget the ingest and agent routes spend from: each metered tool call spends one. */
  readonly spendBudget: SpendBudget;
}

const jsonRpcMessage = z.looseObject({ jsonrpc: z.literal('2.0') }).describe('A JSON-RPC 2.0 message of the Model Context Protocol.');
const jsonRpcError = z
  .object({
    jsonrpc: z.literal('2.0'),
    error: z.looseObject({ code: z.number().int(), message: z.string() }),
    id: z.union([z.string(), z.number(), z.null()]),
  })
  .meta({ id: 'JsonRpcError', description: "The MCP transport's refusal, as a JSON-RPC error (not the service's error body)." });

const description =
  'The Model Context Protocol (Streamable HTTP transport, stateless: no session id). Tools: `search_docs` (namespace, query, mode, top_k), ' +
  '`read_document` (namespace, file), `list_namespaces`, `list_documents` (namespace), `feedback` (run_id, rating, comment: on an answer), `list_sources` (namespace), ' +
  'and, with a write token when KNOWLEDGE_AGENT_WRITE_TOKENS is set, `ingest` (namespace, sources), `add_source` (namespace, url, kind, crawl, git, every), ' +
  '`refresh_sources` (namespace, url) and `remove_source` (namespace, url, remove_documents). Read tokens as on the other read routes. ' +
  'Send `Accept: application/json, text/event-stream`. ' +
  "Each call of a tool other than `search_docs`, `read_document`, `list_namespaces` and `list_documents`, each call of a JSON-RPC batch on its own, spends one from the client's request budget (KNOWLEDGE_AGENT_RATE_LIMIT), shared with the ingest and agent routes; " +
  `a call over it is answered with the JSON-RPC error ${rateLimitedErrorCode} \`rate_limited: … retry in N s\` (data: \`{code, retryAfterSeconds}\`) and the batch's other calls go on.`;

/** The MCP SDK is loaded by the first /mcp request, not at start-up: a fifth of a second a service without MCP clients does not spend. */
async function loadMcp() {
  const [{ StreamableHTTPServerTransport }, { createKnowledgeMcpServer, toolCallIsMetered }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./knowledge-mcp-server.js'),
  ]);
  return { StreamableHTTPServerTransport, createKnowledgeMcpServer, toolCallIsMetered };
}

export const mcpRoute: FastifyPluginAsyncZod<McpRouteOptions> = async (app, options) => {
  app.post(
    '/mcp',
    {
      schema: {
        tags: ['MCP'],
        summary: 'Model Context Protocol endpoint (Streamable HTTP)',
        description,
        body: z.union([jsonRpcMessage, z.array(jsonRpcMessage)]),
        documentation: {
          success: {
            description: "The JSON-RPC response, as JSON or as Server-Sent Events (the client's Accept header chooses).",
            content: { 'application/json': z.looseObject({ jsonrpc: z.literal('2.0') }), 'text/event-stream': z.string() },
          },
          otherResponses: {
            202: { description: 'The body held only notifications or responses: accepted, with nothing to answer (an empty body).' },
            406: {
              description: 'The Accept header does not accept both `application/json` and `text/event-stream`.',
              content: { 'application/json': jsonRpcError },
            },
          },
        },
      },
      config: { access: 'read', cost: 'tool-calls' },
    },
    async (request, reply) => {
      const { StreamableHTTPServerTransport, createKnowledgeMcpServer, toolCallIsMetered } = await loadMcp();
      const logError = (error: unknown) => request.log.error({ err: error }, 'unexpected error in an MCP tool');
      const server = createKnowledgeMcpServer(options, {
        readNamespace: (namespace) => authorizeNamespace(request, namespace),
        writeNamespace: (namespace) => authorizeNamespaceForWriting(request, namespace),
        mayRead: (namespace) => mayAccess(request, namespace),
        logError,
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      reply.hijack();
      await server.connect(transport);
      meterToolCalls(transport, {
        isMetered: toolCallIsMetered,
        spend: async () => {
          const refusal = await options.spendBudget(request);
          return refusal && { retryAfterSeconds: refusal.retryAfterSeconds, message: `${refusal.error.code}: ${refusal.error.message}` };
        },
        logError,
      });
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );
  // GET and DELETE (server-sent streams, sessions) are not offered: the generic 405 with `Allow: POST` answers them,
  // as the Streamable HTTP transport prescribes for a stateless server.
};
