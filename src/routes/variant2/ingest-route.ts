// Variant 2 ingest: POST /api/tools/ingest (JSON, or multipart/form-data with file uploads) and its Mastra
// tool-execution form POST /api/tools/ingest/execute (JSON only), and their response shape.
import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { KnowledgeError } from '../../errors.js';
import { describeReplaced, type IngestReport } from '../../ingest/ingest-service.js';
import {
  authorizeNamespace,
  multipartOptions,
  parseBody,
  progressQuerySchema,
  respondWithProgress,
  type MultipartLimits,
  type RouteDocumentation,
} from '../plumbing/index.js';
import {
  ingestSuccess,
  toolExecuteBodySchema,
  toolExecuteQuerySchema,
  toolExecutionData,
  type IngestRouteOptions,
} from '../shared/index.js';
import { readIngestForm } from './ingest-form.js';
import {
  documentedFormBody,
  maxFilesPerRequest,
  maxFormFieldBytes,
  maxFormFields,
  variant2IngestBodyDocumentation,
  variant2IngestBodySchema,
  variant2IngestResponseSchema,
  type Variant2IngestBody,
} from './ingest-schemas.js';
import type { SourceEntry } from '../../ingest/requested-sources.js';
import { variant2Source } from './request-source.js';

const documentation = (body: RouteDocumentation['body'], querystring?: z.ZodType): RouteDocumentation => ({
  body,
  ...(querystring === undefined ? {} : { querystring }),
  success: ingestSuccess(
    'How many documents were saved, updated and skipped, their file names, and what failed.',
    variant2IngestResponseSchema,
  ),
  errors: ['invalid_namespace', 'forbidden', 'storage_full'],
});
const ingestDescription =
  'Converts each source to Markdown, chunks and stores it in the namespace; the file names (slugs of the titles) are the citation labels. ' +
  'Each source succeeds or fails on its own: failures are listed in `errors` of a 200 (a full disk that let nothing be stored is a 507 `storage_full`). Content already stored (same SHA-256) is skipped. ' +
  'Needs a write token when KNOWLEDGE_AGENT_WRITE_TOKENS is set.';

function toVariant2IngestResponse(report: IngestReport) {
  const stored = report.outcomes.flatMap((outcome) =>
    outcome.status === 'failed'
      ? []
      : [
          {
            file: outcome.document.file,
            status: outcome.status,
            source: outcome.document.origin,
            ...(outcome.status === 'updated' ? { replaced: describeReplaced(outcome.replaced) } : {}),
            ...(outcome.warning === undefined ? {} : { warning: outcome.warning }),
          },
        ],
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

export const variant2IngestRoute: FastifyPluginAsyncZod<IngestRouteOptions> = async (app, options) => {
  // JSON and multipart only: Fastify's default text/plain parser would otherwise let plain text through (415 instead).
  app.removeContentTypeParser('text/plain');

  /** JSON sources first, in array order, then uploads in upload order. */
  async function ingest(request: FastifyRequest, reply: FastifyReply, body: Variant2IngestBody, uploads: readonly SourceEntry[] = []) {
    const namespace = authorizeNamespace(request, body.namespace ?? options.defaultNamespace);
    const sources = [...body.sources.map(variant2Source), ...uploads];
    if (sources.length === 0) throw new KnowledgeError('invalid_request', 'sources: must list at least one source or upload a file');
    return respondWithProgress(request, reply, async (onProgress, signal) => {
      const report = await options.ingest.ingest(namespace, sources, { onProgress, signal });
      // An upload of nothing but unsupported files is a 415; with anything else in it, errors are per source.
      if (
        uploads.length > 0 &&
        report.outcomes.every((outcome) => outcome.status === 'failed' && outcome.error.code === 'unsupported_file_type')
      ) {
        throw new KnowledgeError(
          'unsupported_media_type',
          report.outcomes.map((outcome) => (outcome.status === 'failed' ? outcome.error.message : '')).join('; '),
        );
      }
      return toVariant2IngestResponse(report);
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
      config: { access: 'write', cost: 'request' },
    },
    async (request, reply) => ingest(request, reply, toolExecutionData(request.body)),
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
    uploads.post(
      '/api/tools/ingest',
      {
        schema: {
          tags: ['Ingest'],
          summary: 'Ingest sources and uploaded files (Variant 2)',
          description: `A JSON body, or multipart/form-data with a \`namespace\` field, an optional \`sources\` field and any number of files (50 at most). ${ingestDescription} An upload of nothing but unsupported files is a 415.`,
          documentation: documentation(
            { 'application/json': variant2IngestBodyDocumentation, 'multipart/form-data': documentedFormBody },
            progressQuerySchema,
          ),
        },
        config: { access: 'write', cost: 'request' },
      },
      async (request, reply) => {
        if (!request.isMultipart()) return ingest(request, reply, parseBody(variant2IngestBodySchema, request.body));
        const form = await readIngestForm(request, limits);
        return ingest(request, reply, form.body, form.uploads);
      },
    );
  });
};
