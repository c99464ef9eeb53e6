// The Model Context Protocol face of the service: tools to ask a namespace for a cited answer, search it, read a stored
// document, list what the caller may read, ingest and keep registered sources (write tokens only). One server per
// request (stateless); each tool calls the same services as the HTTP routes, with the same per-request limits, and the
// caller's token decides what it may see and change; a call of a tool that is not free spends from the caller's
// request budget (metered-tool-calls.ts).
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AgentService, AnswerFormat } from '../../agent/agent-service.js';
import type { CatalogService } from '../../catalog/catalog-service.js';
import { KnowledgeError, isKnowledgeError } from '../../errors.js';
import type { IngestService } from '../../ingest/ingest-service.js';
import type { QuestionRecorder } from '../../insights/index.js';
import { maxSourcesPerRequest, sourceTitleSchema, toIngestSource } from '../../ingest/requested-sources.js';
import { searchModes, type SearchService } from '../../search/search-service.js';
import { pageLabel } from '../../search/page-label.js';
import { toSnippets } from '../../search/snippet.js';
import type { SourcesService } from '../../sources/index.js';
import { addSourceSchema, sourceDefinition, toSourceResponse } from '../sources/sources-schemas.js';
import type { NamespaceName } from '../../store/namespace-name.js';

export interface McpServices {
  readonly agent: AgentService;
  readonly search: SearchService;
  readonly catalog: CatalogService;
  readonly ingest: IngestService;
  readonly defaultNamespace: string;
  /** Matches per search when the caller names no top_k. */
  readonly topK: number;
  readonly version: string;
  /** The question log's recorder, which takes feedback on answers. */
  readonly questions: QuestionRecorder;
  readonly sources: SourcesService;
}

/** What the caller's token allows; each method throws the catalogue's 401/403 errors, and returns the sanitized name. */
export interface McpCaller {
  readNamespace(namespace: string): NamespaceName;
  writeNamespace(namespace: string): Promise<NamespaceName>;
  mayRead(namespace: string): boolean;
  /** Unexpected failures are logged here (with the request id) and reported to the client without details. */
  logError(error: unknown): void;
}

/**
 * Tools that neither ingest nor answer cost nothing, like the HTTP routes that search and list. A call of any other
 * tool, one added later included, spends one from the caller's request budget.
 */
const freeTools: ReadonlySet<string> = new Set(['search_docs', 'read_document', 'list_namespaces', 'list_documents']);

export function toolCallIsMetered(toolName: string): boolean {
  return !freeTools.has(toolName);
}

const namespaceField = z
  .string()
  .max(200)
  .optional()
  .describe('Namespace (letters, digits, - and _); the default namespace when left out.');

function json(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

/** Runs a tool; expected failures become a tool error naming the code, anything else a generic one (logged). */
async function guarded(caller: McpCaller, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (isKnowledgeError(error)) return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }] };
    caller.logError(error);
    return { isError: true, content: [{ type: 'text', text: 'internal_error: an unexpected error occurred' }] };
  }
}

/** An MCP client asks by calling the tool (no mention gate); sources named as every channel names them. */
const mcpAnswerFormat: AnswerFormat = { retrievalToolName: 'search_docs', sourceLabel: pageLabel, requiresMention: false };

export function createKnowledgeMcpServer(services: McpServices, caller: McpCaller): McpServer {
  const server = new McpServer({ name: 'knowledge-agent', version: services.version });
  const namespaceOf = (requested: string | undefined) => caller.readNamespace(requested ?? services.defaultNamespace);

  server.registerTool(
    'ask_docs',
    {
      title: 'Ask the docs',
      description:
        'Answers a question from one namespace of documentation, as the chat channels do: an answer that cites the passages it ' +
        'quotes ([1], [2]) and ends with a Sources line, or, when the docs do not answer it, one sentence that says so (`covered: false`) and the closest pages. ' +
        'Its run_id names the answer for the feedback tool. With KNOWLEDGE_AGENT_MODEL=extractive (no language model) the service answers by ' +
        'quoting the docs; with neither, the call fails with agent_not_initialized.',
      inputSchema: {
        question: z.string().trim().min(1).max(4_000).describe('The question, in the words a person would ask it.'),
        namespace: namespaceField,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ question, namespace }, { signal }) =>
      guarded(caller, async () => {
        const target = namespaceOf(namespace);
        const answer = await services.agent.generate(
          {
            runId: `run_${randomUUID()}`,
            channel: 'mcp',
            namespace: target,
            messages: [{ role: 'user', content: question, toolCalls: [] }],
            platformTools: [],
            signal,
          },
          mcpAnswerFormat,
        );
        return json({
          namespace: target,
          run_id: answer.runId,
          covered: answer.covered,
          answer: answer.text,
          sources: answer.sources,
        });
      }),
  );

  server.registerTool(
    'search_docs',
    {
      title: 'Search the docs',
      description:
        'Searches one namespace of ingested documentation and returns the best chunks, best first, with title, file (the citation label), ' +
        'original source and text. Modes: hybrid (default: embeddings and BM25 fused), embedding, lexical.',
      inputSchema: {
        query: z.string().trim().min(1).max(2_000).describe('What to look for.'),
        namespace: namespaceField,
        mode: z.enum(searchModes).default('hybrid').describe('Ranking: hybrid, embedding (cosine of embeddings) or lexical (BM25).'),
        top_k: z.number().int().min(0).max(20).optional().describe(`Results at most; ${services.topK} when left out; 20 at most.`),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ query, namespace, mode, top_k: topK }, { signal }) =>
      guarded(caller, async () => {
        const outcome = await services.search.search(namespaceOf(namespace), query, { mode, limit: topK ?? services.topK, signal });
        return json({
          namespace: outcome.namespace,
          query,
          mode: outcome.mode,
          ...(outcome.notice === undefined ? {} : { notice: outcome.notice }),
          results: toSnippets(outcome).map((snippet) => ({
            rank: snippet.number,
            score: snippet.score,
            title: snippet.title,
            file: snippet.file,
            source: snippet.origin,
            as_of: snippet.asOf,
            headings: snippet.headingPath,
            excerpt: snippet.preview,
            text: snippet.text,
          })),
        });
      }),
  );

  server.registerTool(
    'read_document',
    {
      title: 'Read a stored document',
      description: 'The whole Markdown of one stored document, by its file name (as search_docs and list_documents give it).',
      inputSchema: {
        file: z.string().min(1).max(300).describe('File name in the namespace, e.g. token-rotation.md.'),
        namespace: namespaceField,
      },
      annotations: { readOnlyHint: true },
    },
    async ({ file, namespace }) =>
      guarded(caller, async () => {
        const { document, markdown } = await services.catalog.document(namespaceOf(namespace), file);
        return { content: [{ type: 'text', text: `# ${document.title}\n\nSource: ${document.origin}\n\n---\n\n${markdown}` }] };
      }),
  );

  server.registerTool(
    'list_namespaces',
    {
      title: 'List namespaces',
      description: 'The namespaces this token may read, with their document and chunk counts.',
      annotations: { readOnlyHint: true },
    },
    async () =>
      guarded(caller, async () =>
        json({
          namespaces: (await services.catalog.namespaces())
            .filter((summary) => caller.mayRead(summary.name))
            .map((summary) => ({ name: summary.name, documents: summary.documents, chunks: summary.chunks })),
        }),
      ),
  );

  server.registerTool(
    'list_documents',
    {
      title: 'List documents',
      description: 'The documents of one namespace: title, file name, original source, chunk count and ingest time.',
      inputSchema: { namespace: namespaceField },
      annotations: { readOnlyHint: true },
    },
    async ({ namespace }) =>
      guarded(caller, async () => {
        const listing = await services.catalog.documents(namespaceOf(namespace));
        return json({
          namespace: listing.namespace,
          documents: listing.documents.map((document) => ({
            title: document.title,
            file: document.file,
            source: document.origin,
            chunks: document.chunks.length,
            ingested_at: document.ingestedAt,
          })),
        });
      }),
  );

  server.registerTool(
    'ingest',
    {
      title: 'Ingest documents',
      description:
        'Adds documents to a namespace: web pages (HTML, PDF, Markdown or text at a URL) or text/Markdown given inline. ' +
        'Needs a write token for the namespace when the service has write tokens. Content already stored is skipped; a changed source is updated.',
      inputSchema: {
        namespace: namespaceField,
        sources: z
          .array(
            z.object({
              type: z.enum(['url', 'text']).describe('url: fetch it; text: the value is the Markdown or text itself.'),
              value: z.string().min(1).describe('The URL, or the text.'),
              title: sourceTitleSchema.optional().describe('Title (and identity) of a text; by default its first heading.'),
            }),
          )
          .min(1)
          .max(maxSourcesPerRequest)
          .describe(`At most ${maxSourcesPerRequest}, as on the HTTP ingest routes.`),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    async ({ namespace, sources }, { signal }) =>
      guarded(caller, async () => {
        const target = await caller.writeNamespace(namespace ?? services.defaultNamespace);
        // The signal fires when the client leaves (the request's server closes): the ingest stops with it.
        const report = await services.ingest.ingest(target, sources.map(toIngestSource), { signal });
        return json({
          namespace: report.namespace,
          documents: report.outcomes.map((outcome) =>
            outcome.status === 'failed'
              ? { source: outcome.source, status: outcome.status, code: outcome.error.code, error: outcome.error.message }
              : {
                  source: outcome.source,
                  status: outcome.status,
                  file: outcome.document.file,
                  title: outcome.document.title,
                  chunks: outcome.document.chunks.length,
                },
          ),
        });
      }),
  );

  server.registerTool(
    'feedback',
    {
      title: 'Rate an answer',
      description:
        "Thumbs up or down on an answer of the service, named by its run id (generate's runId, the OpenAI-compatible completion's id, AG-UI's or Mastra's runId), " +
        "with an optional comment on what was wrong or missing. Kept for the docs owners' gaps report. A read token of the answer's namespace may give it.",
      inputSchema: {
        run_id: z.string().min(1).max(200).describe("The answer's run id."),
        rating: z.enum(['up', 'down']),
        comment: z.string().max(2_000).optional().describe('What was wrong or missing.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ run_id: runId, rating, comment }) =>
      guarded(caller, async () => {
        const namespace = await services.questions.feedback({ runId, rating, comment }, (found) => caller.readNamespace(found));
        return json({ run_id: runId, namespace, rating });
      }),
  );

  server.registerTool(
    'list_sources',
    {
      title: 'List registered sources',
      description:
        'The sources a namespace is kept current from (pages, crawl roots, sitemaps, git repositories): each with its kind, schedule, ' +
        'last refresh (what it checked, found unchanged, updated, added, removed, and the pages that failed) and next scheduled run.',
      inputSchema: { namespace: namespaceField },
      annotations: { readOnlyHint: true },
    },
    async ({ namespace }) =>
      guarded(caller, async () => {
        const name = namespaceOf(namespace);
        return json({ namespace: name, sources: (await services.sources.list(name)).map(toSourceResponse) });
      }),
  );

  const { url, kind, crawl, git, every } = addSourceSchema.shape;
  server.registerTool(
    'add_source',
    {
      title: 'Register a source',
      description:
        'Registers a source with a namespace, ingests it at once and keeps it current: refreshed on its schedule (`every`), fetching only what changed. ' +
        'Waits for the first refresh and returns the source with its `last_refresh` counts. One URL is one source per namespace: adding it again replaces its settings. Needs a write token.',
      inputSchema: { namespace: namespaceField, url, kind, crawl, git, every },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    async ({ namespace, ...body }, { signal }) =>
      guarded(caller, async () => {
        const target = await caller.writeNamespace(namespace ?? services.defaultNamespace);
        const { source } = await services.sources.add(target, sourceDefinition(body), signal);
        return json({ source: toSourceResponse(source) });
      }),
  );

  server.registerTool(
    'refresh_sources',
    {
      title: 'Refresh registered sources now',
      description:
        "Refreshes a namespace's sources now (only the one of `url` when given), one after the other, and waits for them: " +
        'each source is returned with its `last_refresh`, the summary of the refresh just run. Needs a write token.',
      inputSchema: {
        namespace: namespaceField,
        url: z
          .string()
          .max(4_000)
          .optional()
          .describe('The URL of the one source to refresh; every source of the namespace when left out.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    async ({ namespace, url: only }, { signal }) =>
      guarded(caller, async () => {
        const target = await caller.writeNamespace(namespace ?? services.defaultNamespace);
        const refreshed = await services.sources.refreshNow(target, { url: only, signal });
        return json({ namespace: target, refreshes: refreshed.map(toSourceResponse) });
      }),
  );

  server.registerTool(
    'remove_source',
    {
      title: 'Remove a registered source',
      description:
        'Stops keeping a source current. Its documents stay searchable (no longer refreshed) unless `remove_documents` is true. Needs a write token.',
      inputSchema: {
        namespace: namespaceField,
        url: z.string().min(1).max(4_000).describe("The source's URL, as list_sources gives it."),
        remove_documents: z.boolean().default(false).describe("Remove the source's documents from the namespace too."),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ namespace, url: registered, remove_documents: removeDocuments }) =>
      guarded(caller, async () => {
        const target = await caller.writeNamespace(namespace ?? services.defaultNamespace);
        const source = (await services.sources.list(target)).find((candidate) => candidate.url === registered);
        if (source === undefined) {
          throw new KnowledgeError('not_found', `namespace "${target}" has no source for ${registered}; list_sources lists them`);
        }
        const { removed } = await services.sources.remove(target, source.id, removeDocuments);
        return json({ source: toSourceResponse(source), removed_documents: removed });
      }),
  );

  return server;
}
