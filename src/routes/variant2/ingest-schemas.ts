// Request and response schemas of Variant 2's ingest, POST /api/tools/ingest (JSON or multipart) and its Mastra form
// (request types derive from them; responses are for the API reference only, see RouteDocumentation).
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
