// What the ingest schemas of both variants share: crawl requests, a stored document's status, warning and replaced
// version, per-source errors, and the 200 of an ingest route (JSON or the NDJSON progress stream).
import { z } from 'zod';
import { crawlRequestSchema } from '../../ingest/requested-sources.js';
import { errorBodySchema, type RouteDocumentation } from '../plumbing/index.js';

/** `crawl` on a URL source follows the site's links (CrawlRequest). */
export const crawlSchema = crawlRequestSchema.meta({
  id: 'Crawl',
  description: 'Crawl the site from this URL: same-origin links under its folder (or a sitemap), honouring robots.txt.',
});

export const storedStatusSchema = z
  .enum(['saved', 'updated', 'skipped'])
  .describe('`skipped`: the same content is already stored; `updated`: the source was stored before with other content.');

export const perSourceErrorFields = {
  source: z.string().describe('The URL, path, file name or `sources[i]` label of the source.'),
  error: z.string().describe('Why it failed, for people.'),
  code: z.string().describe('A per-source code of the error table (docs/api.md, Errors), such as `fetch_failed`.'),
};

/** The version an `updated` document replaced: same source, so same file, other content. */
export const replacedDocumentSchema = z
  .object({
    file: z.string(),
    title: z.string(),
    source: z.string(),
    ingested_at: z.string().describe('When the replaced version was stored (ISO 8601).'),
  })
  .meta({ id: 'ReplacedDocument', description: 'With status `updated`: the stored version this document replaced.' });

/** A document stored, but not as asked: without embeddings while the embedding provider fails. */
export const storedWarningSchema = z
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
