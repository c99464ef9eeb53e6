// Request schemas of the Variant 1 routes (types derive from them), and the response schemas of the API reference.
import { z } from 'zod';
import { searchModes } from '../search/search-service.js';
import { maxNamespaceLength, namespaceNamePattern } from '../store/namespace-name.js';

/** `crawl` on a URL source follows the site's links (CrawlRequest). */
export const crawlSchema = z
  .object({
    maxPages: z.number().int().min(1).max(1_000).default(50).describe('Pages fetched at most.'),
    maxDepth: z.number().int().min(0).max(10).default(2).describe('Links followed from the start URL, at most.'),
    prune: z.boolean().default(false).describe('After a complete crawl, remove the documents of pages under the crawled folder it no longer reached.'),
  })
  .meta({ id: 'Crawl', description: 'Crawl the site from this URL: same-origin links under its folder (or a sitemap), honouring robots.txt.' });

export const variant1SourceSchema = z
  .object({
    type: z.enum(['url', 'file', 'text']),
    value: z.string().optional().describe('The URL (url), the text (text), or the path (file, when `path` is not given).'),
    path: z.string().optional().describe('Absolute path of a .pdf, .md, .markdown, .txt or .html file inside KNOWLEDGE_AGENT_FILE_ROOTS.'),
    title: z.string().max(500).optional().describe('Title of the document; by default taken from the document.'),
    crawl: crawlSchema.optional(),
  })
  .meta({ id: 'Variant1Source', description: 'One source; each is checked and ingested on its own, so a bad one is reported in `errors` without failing the others.' });
export type Variant1Source = z.infer<typeof variant1SourceSchema>;

export const maxSourcesPerRequest = 100;

/**
 * A namespace as a request names it. Only the length of the text is checked here; `sanitizeNamespace` (through
 * `authorizeNamespace`) removes the other characters and answers 400 `invalid_namespace` when 0 or more than 64
 * letters, digits, - and _ remain. The pattern states that rule in the API reference.
 */
export const namespaceNameSchema = z
  .string()
  .max(200)
  .meta({
    pattern: namespaceNamePattern,
    description:
      `Namespace: letters, digits, - and _ are kept, other characters removed; 1 to ${maxNamespaceLength} must remain (never cut short), ` +
      'otherwise 400 `invalid_namespace`.',
  });

/** The namespace field of every request body or query: the default namespace when left out. */
export const namespaceFieldSchema = namespaceNameSchema.optional().describe(
  `Namespace: letters, digits, - and _ are kept, other characters removed; 1 to ${maxNamespaceLength} must remain (never cut short), ` +
    'otherwise 400 `invalid_namespace`. KNOWLEDGE_AGENT_DEFAULT_NAMESPACE when left out.',
);

export const variant1IngestBodySchema = z.object({
  namespace: namespaceFieldSchema,
  // Each source is checked on its own, so one bad source is reported without failing the others.
  sources: z.array(z.unknown()).min(1, 'must list at least one source').max(maxSourcesPerRequest),
});

/** For the API reference: the body with each source as `variant1SourceSchema` checks it (one source at a time). */
export const variant1IngestBodyDocumentation = variant1IngestBodySchema.extend({
  sources: z.array(variant1SourceSchema).min(1).max(maxSourcesPerRequest),
});

export const searchModeSchema = z.enum(searchModes);

/** A search query: something other than whitespace (checked before trimming, so the API reference can state it as a pattern). */
export const searchQuerySchema = z.string().max(2_000).regex(/\S/, 'must not be empty').trim();

export const variant1SearchBodySchema = z.object({
  namespace: namespaceFieldSchema,
  query: searchQuerySchema,
  top_k: z.number().int().min(0).optional().describe('Matches at most; KNOWLEDGE_AGENT_TOP_K when left out; 0 gives none; above 20 gives 20.'),
  mode: searchModeSchema.default('embedding').describe('Ranking: cosine similarity of embeddings, BM25, or both fused.'),
});

export const platformToolSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -'),
    description: z.string().max(2_000).default(''),
    parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }).describe('JSON Schema of the arguments.'),
  })
  .meta({ id: 'PlatformTool', description: 'A tool the platform runs: a call to it ends the stream, and the platform calls again with the result.' });

export const chatMessageSchema = z
  .looseObject({ role: z.string(), content: z.unknown().optional() })
  .meta({ id: 'ChatMessage', description: 'A chat message: `user`, `assistant` (with its tool calls) and `tool` are kept; other roles are dropped; content parts are flattened to text.' });

export const variant1AgentBodySchema = z.object({
  thread_id: z.string().optional(),
  run_id: z.string().optional(),
  messages: z.array(chatMessageSchema).max(500).describe('The conversation; the newest user message must contain the mention (@knowledge by default).'),
  tool_params: z.object({ namespace: namespaceFieldSchema }).loose().optional(),
  tools: z.array(platformToolSchema).max(64).optional(),
});
export type Variant1AgentBody = z.infer<typeof variant1AgentBodySchema>;

// Responses, for the API reference only (see RouteDocumentation in openapi.ts).

export const storedStatusSchema = z.enum(['saved', 'updated', 'skipped']).describe('`skipped`: the same content is already stored; `updated`: the source was stored before with other content.');

export const perSourceErrorFields = {
  source: z.string().describe('The URL, path, file name or `sources[i]` label of the source.'),
  error: z.string().describe('Why it failed, for people.'),
  code: z.string().describe('A per-source code of the error table (README, Errors), such as `fetch_failed`.'),
};

/** The version an `updated` document replaced: same source, so same file, other content. */
export const replacedDocumentSchema = z
  .object({ file: z.string(), title: z.string(), source: z.string(), ingested_at: z.string().describe('When the replaced version was stored (ISO 8601).') })
  .meta({ id: 'ReplacedDocument', description: 'With status `updated`: the stored version this document replaced.' });

/** A document stored, but not as asked: without embeddings while the embedding provider fails. */
export const storedWarningSchema = z
  .string()
  .optional()
  .describe('Set when the document was stored without embeddings because the embedding provider failed: it is searchable lexically now and embedded once the provider answers again.');

export const variant1IngestResponseSchema = z.object({
  namespace: z.string(),
  documents: z.array(
    z.object({
      title: z.string(),
      source: z.string().describe('The URL, the file path, the upload path with its folders (`tutorial/middleware.md`), or `text`: the identity that upserts match on.'),
      path: z.string().describe('The stored Markdown file.'),
      chunks: z.number().int().min(0),
      status: storedStatusSchema,
      replaced: replacedDocumentSchema.optional(),
      warning: storedWarningSchema,
    }),
  ),
  chunks_added: z.number().int().min(0).describe('Chunks of the saved and updated documents.'),
  errors: z.array(z.object({ index: z.number().int().min(0).describe('Index of the source in `sources`.'), ...perSourceErrorFields })),
  removed: z.array(z.object({ title: z.string(), source: z.string(), path: z.string() })).optional().describe('Documents a pruning crawl removed.'),
});

export const matchSchema = z
  .object({ chunk_id: z.string(), score: z.number(), source: z.string(), title: z.string(), preview: z.string() })
  .meta({ id: 'Match', description: '`score` is the cosine similarity (embedding), the BM25 score (lexical) or the fused score (hybrid).' });

export const variant1SearchResponseSchema = z.object({
  namespace: z.string(),
  query: z.string(),
  mode: searchModeSchema.describe('The ranking actually used.'),
  matches: z.array(matchSchema),
  notice: z.string().optional().describe('Why the ranking differs from the one asked for (for example lexical while a namespace is being embedded), or that the namespace does not exist.'),
});
