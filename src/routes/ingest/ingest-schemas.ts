// Request and response schemas of the ingest routes: the parts both variants share first, then each variant's
// (request types derive from them; responses are for the API reference only, see RouteDocumentation).
import { z } from 'zod';
import { crawlRequestSchema, maxSourcesPerRequest, sourceTitleSchema } from '../../ingest/requested-sources.js';
import { errorBodySchema, type RouteDocumentation } from '../plumbing/index.js';
import { namespaceFieldSchema } from '../shared/index.js';

/** `crawl` on a URL source follows the site's links (CrawlRequest). */
const crawlSchema = crawlRequestSchema.meta({
  id: 'Crawl',
  description: 'Crawl the site from this URL: same-origin links under its folder (or a sitemap), honouring robots.txt.',
});

const storedStatusSchema = z
  .enum(['saved', 'updated', 'skipped'])
  .describe('`skipped`: the same content is already stored; `updated`: the source was stored before with other content.');

const perSourceErrorFields = {
  source: z.string().describe('The URL, path, file name or `sources[i]` label of the source.'),
  error: z.string().describe('Why it failed, for people.'),
  code: z.string().describe('A per-source code of the error table (docs/api.md, Errors), such as `fetch_failed`.'),
};

/** The version an `updated` document replaced: same source, so same file, other content. */
const replacedDocumentSchema = z
  .object({
    file: z.string(),
    title: z.string(),
    source: z.string(),
    ingested_at: z.string().describe('When the replaced version was stored (ISO 8601).'),
  })
  .meta({ id: 'ReplacedDocument', description: 'With status `updated`: the stored version this document replaced.' });

/** A document stored, but not as asked: without embeddings while the embedding provider fails. */
const storedWarningSchema = z
  .string()
  .optional()
  .describe(
    'Set when the document was stored without embeddings because the embedding provider failed: it is searchable lexically now and embedded once the provider answers again.',
  );

/** One line of the progress stream (IngestProgress), then the result line or an error line. */
function progressLineSchema(result: z.ZodType) {
  const event = { index: z.number().int().min(0).describe('Index of the source in the request.'), source: z.string() };
  return z
    .discriminatedUnion('type', [
      z.object({
        type: z.literal('document'),
        ...event,
        status: storedStatusSchema,
        file: z.string(),
        chunks: z.number().int().min(0),
        replaced: replacedDocumentSchema.optional(),
        warning: storedWarningSchema,
      }),
      z.object({ type: z.literal('failed'), ...event, code: z.string(), error: z.string() }),
      z.object({ type: z.literal('skipped'), ...event, reason: z.string() }),
      z.object({ type: z.literal('removed'), ...event, file: z.string() }),
      z
        .object({ type: z.literal('working'), seconds: z.number().int().min(0).describe('Seconds since the ingest started.') })
        .describe('Sent when nothing else was for 15 s, so that a long document does not leave the connection idle.'),
      z.object({ type: z.literal('result'), result }),
      z.object({ type: z.literal('error'), error: errorBodySchema.shape.error }),
    ])
    .describe(
      'Each line is one JSON object: `document`, `failed`, `skipped` and `removed` events as they happen (and `working` while a long one runs), then `result` (the usual response) or `error`.',
    );
}

/** An ingest route's 200: the JSON response, or the NDJSON progress stream when asked for. */
export function ingestSuccess(description: string, result: z.ZodType): RouteDocumentation['success'] {
  return {
    description: `${description} With \`?progress=ndjson\` or \`Accept: application/x-ndjson\`: application/x-ndjson, one event per line as it happens, the result last.`,
    content: { 'application/json': result, 'application/x-ndjson': progressLineSchema(result) },
  };
}

// Variant 1: POST /tools/ingest.

export const variant1SourceSchema = z
  .object({
    type: z.enum(['url', 'file', 'text']),
    value: z.string().optional().describe('The URL (url), the text (text), or the path (file, when `path` is not given).'),
    path: z.string().optional().describe('Absolute path of a .pdf, .md, .markdown, .txt or .html file inside KNOWLEDGE_AGENT_FILE_ROOTS.'),
    title: sourceTitleSchema.optional().describe('Title of the document; by default taken from the document.'),
    crawl: crawlSchema.optional(),
  })
  .meta({
    id: 'Variant1Source',
    description: 'One source; each is checked and ingested on its own, so a bad one is reported in `errors` without failing the others.',
  });

export const variant1IngestBodySchema = z.object({
  namespace: namespaceFieldSchema,
  // Each source is checked on its own, so one bad source is reported without failing the others.
  sources: z.array(z.unknown()).min(1, 'must list at least one source').max(maxSourcesPerRequest),
});

/** For the API reference: the body with each source as `variant1SourceSchema` checks it (one source at a time). */
export const variant1IngestBodyDocumentation = variant1IngestBodySchema.extend({
  sources: z.array(variant1SourceSchema).min(1).max(maxSourcesPerRequest),
});

export const variant1IngestResponseSchema = z.object({
  namespace: z.string(),
  documents: z.array(
    z.object({
      title: z.string(),
      source: z
        .string()
        .describe(
          'The URL, the file path, the upload path with its folders (`tutorial/middleware.md`), or `text`: the identity that upserts match on.',
        ),
      path: z.string().describe('The stored Markdown file.'),
      chunks: z.number().int().min(0),
      status: storedStatusSchema,
      replaced: replacedDocumentSchema.optional(),
      warning: storedWarningSchema,
    }),
  ),
  chunks_added: z.number().int().min(0).describe('Chunks of the saved and updated documents.'),
  errors: z.array(z.object({ index: z.number().int().min(0).describe('Index of the source in `sources`.'), ...perSourceErrorFields })),
  removed: z
    .array(z.object({ title: z.string(), source: z.string(), path: z.string() }))
    .optional()
    .describe('Documents a pruning crawl removed.'),
});

// Variant 2: POST /api/tools/ingest (JSON or multipart) and its Mastra form.

export const variant2SourceObjectSchema = z
  .object({
    type: z.enum(['url', 'markdown', 'text']),
    value: z.string().describe('The URL, or the Markdown or text itself.'),
    title: sourceTitleSchema.optional(),
    crawl: crawlSchema.optional(),
  })
  .meta({ id: 'Variant2Source' });

export const variant2IngestBodySchema = z.object({
  namespace: namespaceFieldSchema,
  // Each source is checked on its own, so one bad source is reported without failing the others.
  sources: z.array(z.unknown()).max(maxSourcesPerRequest),
});
export type Variant2IngestBody = z.infer<typeof variant2IngestBodySchema>;

/** Uploads per request, and form fields (namespace, sources, and room for a client's extras). */
export const maxFilesPerRequest = 50;
export const maxFormFields = 20;
/** Bytes of one form field: room for a `sources` list of several 200 kB snippets, escaped as JSON. */
export const maxFormFieldBytes = 2_000_000;

// For the API reference: the bodies as the handler checks them (each source on its own, by variant2Source).
export const variant2IngestBodyDocumentation = variant2IngestBodySchema.extend({
  sources: z
    .array(z.union([z.string().describe('An http(s) URL is fetched; any other string is stored as text.'), variant2SourceObjectSchema]))
    .min(1)
    .max(maxSourcesPerRequest)
    .describe('At least one source.'),
});
export const documentedFormBody = z.object({
  namespace: namespaceFieldSchema,
  sources: z
    .string()
    .optional()
    .describe('A JSON array of sources, as `sources` of the JSON body; at least one source or one file is needed.'),
  base_url: z
    .url()
    .optional()
    .describe(
      'The site the uploaded files are published on (`https://docs.example.com/`): each file is then known and cited by its page there (`guide/x.md` is `https://docs.example.com/guide/x`, `guide/index.md` is `.../guide/`; HTML, PDF and text keep their names).',
    ),
  file: z
    .array(z.file())
    .max(maxFilesPerRequest)
    .optional()
    .describe(
      "Files to ingest (PDF, Markdown, text, HTML), 6 MB each, under any field name. A file name may carry its folders (`tutorial/middleware.md`): that path, relative to what is ingested, is the document's identity; absolute paths and `..` are refused per file.",
    ),
});

export const variant2IngestResponseSchema = z.object({
  namespace: z.string(),
  saved: z.number().int().min(0),
  updated: z.number().int().min(0),
  skipped: z.number().int().min(0),
  errors: z.array(z.object(perSourceErrorFields)),
  files: z.array(
    z.object({
      file: z.string().describe('File name in the namespace: the citation label.'),
      status: storedStatusSchema,
      source: z
        .string()
        .describe('The URL, the upload path with its folders (`tutorial/middleware.md`), or `text`: the identity that upserts match on.'),
      replaced: replacedDocumentSchema.optional(),
      warning: storedWarningSchema,
    }),
  ),
  removed: z.number().int().min(0).optional().describe('Documents a pruning crawl removed.'),
});
