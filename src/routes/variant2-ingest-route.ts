// Variant 2 ingest: POST /api/tools/ingest (JSON, or multipart/form-data with file uploads) and its Mastra
// tool-execution form POST /api/tools/ingest/execute (JSON only).
import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { KnowledgeError, isKnowledgeError } from '../errors.js';
import { describeReplaced, type IngestReport, type IngestService } from '../ingest/ingest-service.js';
import type { IngestSource, InvalidSource } from '../ingest/ingest-source.js';
import { parseUploadPath, type UploadPath } from '../ingest/upload-path.js';
import { authorizeNamespace } from './access-control.js';
import { ingestSuccess, progressQuerySchema, respondWithProgress } from './progress-stream.js';
import { multipartOptions, readMultipartForm, type FormFile, type MultipartLimits } from './multipart.js';
import type { RouteDocumentation } from './openapi.js';
import { parseBody } from './parse-body.js';
import { crawlSchema, maxSourcesPerRequest, namespaceFieldSchema } from './variant1-schemas.js';
import { firstNamespace, toolExecuteBodySchema, toolExecuteQuerySchema, variant2IngestResponseSchema } from './variant2-schemas.js';

export interface Variant2IngestRouteOptions {
  readonly ingest: IngestService;
  readonly defaultNamespace: string;
  /** Bytes per uploaded file (larger ones are reported per source). */
  readonly maxSourceBytes: number;
  /** Bytes of a whole multipart request (larger ones are a 413). */
  readonly maxBodyBytes: number;
}

const variant2SourceObjectSchema = z
  .object({
    type: z.enum(['url', 'markdown', 'text']),
    value: z.string().describe('The URL, or the Markdown or text itself.'),
    title: z.string().max(500).optional(),
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
const maxFilesPerRequest = 50;
const maxFormFields = 20;
/** Bytes of one form field: room for a `sources` list of several 200 kB snippets, escaped as JSON. */
const maxFormFieldBytes = 2_000_000;

// For the API reference: the bodies as the handler checks them (each source on its own, by toVariant2Source).
export const variant2IngestBodyDocumentation = variant2IngestBodySchema.extend({
  sources: z
    .array(z.union([z.string().describe('An http(s) URL is fetched; any other string is stored as text.'), variant2SourceObjectSchema]))
    .min(1)
    .max(maxSourcesPerRequest)
    .describe('At least one source.'),
});
const documentedFormBody = z.object({
  namespace: namespaceFieldSchema,
  sources: z.string().optional().describe('A JSON array of sources, as `sources` of the JSON body; at least one source or one file is needed.'),
  file: z.array(z.file()).max(maxFilesPerRequest).optional().describe('Files to ingest (PDF, Markdown, text, HTML), 6 MB each, under any field name. A file name may carry its folders (`tutorial/middleware.md`): that path, relative to what is ingested, is the document\'s identity; absolute paths and `..` are refused per file.'),
});
const documentation = (body: RouteDocumentation['body'], querystring?: z.ZodType): RouteDocumentation => ({
  body,
  ...(querystring === undefined ? {} : { querystring }),
  success: ingestSuccess('How many documents were saved, updated and skipped, their file names, and what failed.', variant2IngestResponseSchema),
  errors: ['invalid_namespace', 'forbidden', 'storage_full'],
});
const ingestDescription =
  'Converts each source to Markdown, chunks and stores it in the namespace; the file names (slugs of the titles) are the citation labels. ' +
  'Each source succeeds or fails on its own: failures are listed in `errors` of a 200 (a full disk that let nothing be stored is a 507 `storage_full`). Content already stored (same SHA-256) is skipped. ' +
  'Needs a write token when KNOWLEDGE_AGENT_WRITE_TOKENS is set.';

type SourceEntry = IngestSource | InvalidSource;

/** An http(s) URL with no whitespace; any other string is text. */
function isWebAddress(text: string): boolean {
  if (/\s/.test(text)) return false;
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Checks one source of the request on its own; a bad one becomes an error labelled with its index. */
export function toVariant2Source(raw: unknown, index: number): SourceEntry {
  const invalid = (message: string): InvalidSource => ({ kind: 'invalid', label: `sources[${index}]`, error: new KnowledgeError('source_invalid', message) });
  if (typeof raw === 'string') {
    const trimmed = raw.trim();
    return isWebAddress(trimmed) ? { kind: 'url', url: trimmed } : { kind: 'text', text: raw };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return invalid(`sources[${index}]: must be a string (a URL or text) or an object with type and value`);
  }
  const parsed = variant2SourceObjectSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalid(`sources[${index}]${issue?.path.length ? `.${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid source'}`);
  }
  const { type, value, title, crawl } = parsed.data;
  const titled = title === undefined ? {} : { title };
  if (type !== 'url') return { kind: 'text', text: value, ...titled };
  return value.trim() === ''
    ? invalid(`sources[${index}].value: a url source needs the URL in value`)
    : { kind: 'url', url: value.trim(), ...titled, ...(crawl === undefined ? {} : { crawl }) };
}

/** An uploaded file, named by the path it came with (its folders are kept: they tell `a/index.md` from `b/index.md`). */
function toUploadSource(file: FormFile, limits: MultipartLimits): SourceEntry {
  let uploadPath: UploadPath;
  try {
    uploadPath = parseUploadPath(file.fileName);
  } catch (error) {
    if (!isKnowledgeError(error)) throw error;
    return { kind: 'invalid', label: file.fileName, error };
  }
  const { path, folder } = uploadPath;
  if (file.bytes === null) {
    return { kind: 'invalid', label: path, error: new KnowledgeError('source_too_large', `${path} is over the ${limits.maxFileBytes}-byte limit for a file`) };
  }
  return { kind: 'upload', fileName: path, ...(folder === undefined ? {} : { folder }), contentType: file.contentType, bytes: file.bytes };
}

/** The form's `namespace` and `sources` fields as a JSON body, and its files as upload sources. */
async function readIngestForm(request: FastifyRequest, limits: MultipartLimits): Promise<{ body: Variant2IngestBody; uploads: SourceEntry[] }> {
  const form = await readMultipartForm(request, limits);
  const single = (name: string): unknown => {
    const matches = form.fields.filter((field) => field.name === name);
    if (matches.length > 1) throw new KnowledgeError('invalid_request', `${name}: the form gives this field more than once`);
    return matches[0]?.value;
  };
  const namespace = single('namespace');
  let sources = single('sources') ?? [];
  // A browser sends a textarea left blank as an empty field: no JSON sources, not a malformed list.
  if (typeof sources === 'string' && sources.trim() === '') sources = [];
  if (typeof sources === 'string') {
    try {
      sources = JSON.parse(sources);
    } catch {
      throw new KnowledgeError('invalid_request', 'sources: the field is not valid JSON (send a JSON array of sources)');
    }
  }
  const body = parseBody(variant2IngestBodySchema, namespace === undefined ? { sources } : { namespace, sources });
  return { body, uploads: form.files.map((file) => toUploadSource(file, limits)) };
}

function toIngestResponse(report: IngestReport) {
  const stored = report.outcomes.flatMap((outcome) =>
    outcome.status === 'failed'
      ? []
      : [{
          file: outcome.document.file,
          status: outcome.status,
          source: outcome.document.origin,
          ...(outcome.status === 'updated' ? { replaced: describeReplaced(outcome.replaced) } : {}),
          ...(outcome.warning === undefined ? {} : { warning: outcome.warning }),
        }],
  );
  return {
    namespace: report.namespace,
    saved: stored.filter((file) => file.status === 'saved').length,
    updated: stored.filter((file) => file.status === 'updated').length,
    skipped: stored.filter((file) => file.status === 'skipped').length,
    errors: report.outcomes.flatMap((outcome) =>
      outcome.status === 'failed' ? [{ source: outcome.source, error: outcome.error.message, code: outcome.error.code }] : [],
    ),
    files: stored,
    ...(report.removed.length === 0 ? {} : { removed: report.removed.length }),
  };
}

export const variant2IngestRoutes: FastifyPluginAsyncZod<Variant2IngestRouteOptions> = async (app, options) => {
  // JSON and multipart only: Fastify's default text/plain parser would otherwise let plain text through (415 instead).
  app.removeContentTypeParser('text/plain');

  /** JSON sources first, in array order, then uploads in upload order. */
  async function ingest(request: FastifyRequest, reply: FastifyReply, body: Variant2IngestBody, uploads: readonly SourceEntry[] = []) {
    const namespace = authorizeNamespace(request, body.namespace ?? options.defaultNamespace);
    const sources = [...body.sources.map(toVariant2Source), ...uploads];
    if (sources.length === 0) throw new KnowledgeError('invalid_request', 'sources: must list at least one source or upload a file');
    return respondWithProgress(request, reply, async (onProgress) => {
      const report = await options.ingest.ingest(namespace, sources, onProgress);
      // An upload of nothing but unsupported files is a 415; with anything else in it, errors are per source.
      if (uploads.length > 0 && report.outcomes.every((outcome) => outcome.status === 'failed' && outcome.error.code === 'unsupported_file_type')) {
        throw new KnowledgeError('unsupported_media_type', report.outcomes.map((outcome) => (outcome.status === 'failed' ? outcome.error.message : '')).join('; '));
      }
      return toIngestResponse(report);
    });
  }

  app.post(
    '/api/tools/ingest/execute',
    {
      schema: {
        tags: ['Ingest'],
        summary: "Ingest sources, as Mastra's tool execution (Variant 2)",
        description: `Mastra's client SDK form of the JSON \`/api/tools/ingest\`: the same body under \`data\`; without \`data.namespace\`, the \`namespace\` of \`runtimeContext\` (or \`requestContext\`). ${ingestDescription} Progress: \`Accept: application/x-ndjson\`.`,
        body: toolExecuteBodySchema(variant2IngestBodySchema),
        querystring: toolExecuteQuerySchema,
        // Progress only by the Accept header here: the query schema keeps `runId` alone.
        documentation: documentation({ 'application/json': toolExecuteBodySchema(variant2IngestBodyDocumentation) }),
      },
      config: { access: 'write' },
    },
    async (request, reply) => {
      const { data, runtimeContext, requestContext } = request.body;
      return ingest(request, reply, { ...data, namespace: firstNamespace(data, runtimeContext, requestContext) });
    },
  );

  // Multipart parsing is registered for the upload route only, in its own context.
  const limits: MultipartLimits = {
    maxFileBytes: options.maxSourceBytes,
    maxFieldBytes: maxFormFieldBytes,
    maxFiles: maxFilesPerRequest,
    maxFields: maxFormFields,
    maxBodyBytes: options.maxBodyBytes,
  };
  await app.register(async (uploads) => {
    await uploads.register(multipart, multipartOptions(limits));
    // No body schema: the body is a JSON body or a form, and both are checked against the same schema here.
    // The token is checked before the form is read; its namespace once the form names it.
    uploads.post('/api/tools/ingest', {
      schema: {
        tags: ['Ingest'],
        summary: 'Ingest sources and uploaded files (Variant 2)',
        description: `A JSON body, or multipart/form-data with a \`namespace\` field, an optional \`sources\` field and any number of files (50 at most). ${ingestDescription} An upload of nothing but unsupported files is a 415.`,
        documentation: documentation({ 'application/json': variant2IngestBodyDocumentation, 'multipart/form-data': documentedFormBody }, progressQuerySchema),
      },
      config: { access: 'write' },
    }, async (request, reply) => {
      if (!request.isMultipart()) return ingest(request, reply, parseBody(variant2IngestBodySchema, request.body));
      const form = await readIngestForm(request, limits);
      return ingest(request, reply, form.body, form.uploads);
    });
  });
};
