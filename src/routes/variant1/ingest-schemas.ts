// Request and response schemas of Variant 1's ingest, POST /tools/ingest (the request type derives from them;
// responses are for the API reference only, see RouteDocumentation).
import { z } from 'zod';
import { maxSourcesPerRequest, sourceTitleSchema } from '../../ingest/requested-sources.js';
import {
  crawlSchema,
  namespaceFieldSchema,
  perSourceErrorFields,
  replacedDocumentSchema,
  storedStatusSchema,
  storedWarningSchema,
} from '../shared/index.js';

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
