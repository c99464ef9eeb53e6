// Variant 1 ingest: POST /tools/ingest, and its response shape (CONTRACT section 3).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { describeReplaced, type IngestReport } from '../../ingest/ingest-service.js';
import { authorizeNamespace, progressQuerySchema, respondWithProgress } from '../plumbing/index.js';
import { ingestSuccess, type IngestRouteOptions } from '../shared/index.js';
import { variant1IngestBodyDocumentation, variant1IngestBodySchema, variant1IngestResponseSchema } from './ingest-schemas.js';
import { storedFilePath } from './match.js';
import { variant1Source } from './request-source.js';

/** The Variant 1 ingest response (CONTRACT section 3); `removed` appears when a pruning crawl removed documents. */
function toVariant1IngestResponse(report: IngestReport, storagePath: string) {
  const documents = report.outcomes.flatMap((outcome) =>
    outcome.status === 'failed'
      ? []
      : [
          {
            title: outcome.document.title,
            source: outcome.document.origin,
            path: storedFilePath(storagePath, report.namespace, outcome.document.file),
            chunks: outcome.document.chunks.length,
            status: outcome.status,
            ...(outcome.status === 'updated' ? { replaced: describeReplaced(outcome.replaced) } : {}),
            ...(outcome.warning === undefined ? {} : { warning: outcome.warning }),
          },
        ],
  );
  return {
    namespace: report.namespace,
    documents,
    chunks_added: documents.filter((document) => document.status !== 'skipped').reduce((sum, document) => sum + document.chunks, 0),
    errors: report.outcomes.flatMap((outcome) =>
      outcome.status === 'failed'
        ? [{ index: outcome.index, source: outcome.source, error: outcome.error.message, code: outcome.error.code }]
        : [],
    ),
    ...(report.removed.length === 0
      ? {}
      : {
          removed: report.removed.map((document) => ({
            title: document.title,
            source: document.origin,
            path: storedFilePath(storagePath, report.namespace, document.file),
          })),
        }),
  };
}

export interface Variant1IngestRouteOptions extends IngestRouteOptions {
  /** The storage root as configured, for the stored files the response names. */
  readonly storagePath: string;
}

export const variant1IngestRoute: FastifyPluginAsyncZod<Variant1IngestRouteOptions> = async (app, options) => {
  app.post(
    '/tools/ingest',
    {
      schema: {
        tags: ['Ingest'],
        summary: 'Ingest URLs, files and text (Variant 1)',
        description:
          'Fetches, converts to Markdown, chunks, embeds and stores each source in the namespace. Each source succeeds or fails on its own: ' +
          'failures are listed in `errors` of a 200 (a full disk that let nothing be stored is a 507 `storage_full`). Content already stored (same SHA-256) is `skipped`; a changed source is `updated`. ' +
          'A URL source may crawl its site (`crawl`). Needs a write token when KNOWLEDGE_AGENT_WRITE_TOKENS is set.',
        body: variant1IngestBodySchema,
        documentation: {
          body: { 'application/json': variant1IngestBodyDocumentation },
          querystring: progressQuerySchema,
          success: ingestSuccess('What was stored, skipped or updated, and what failed.', variant1IngestResponseSchema),
          errors: ['invalid_namespace', 'forbidden', 'storage_full'],
        },
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request, reply) => {
      const namespace = authorizeNamespace(request, request.body.namespace ?? options.defaultNamespace);
      const sources = request.body.sources.map(variant1Source);
      return respondWithProgress(request, reply, async (onProgress, signal) =>
        toVariant1IngestResponse(await options.ingest.ingest(namespace, sources, { onProgress, signal }), options.storagePath),
      );
    },
  );
};
