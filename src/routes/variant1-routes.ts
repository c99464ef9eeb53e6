// Variant 1 routes: POST /tools/ingest and POST /tools/search.
import { join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { toSnippets } from '../agent/snippet.js';
import { KnowledgeError } from '../errors.js';
import { describeReplaced, type IngestReport, type IngestService } from '../ingest/ingest-service.js';
import type { IngestSource, InvalidSource } from '../ingest/ingest-source.js';
import type { SearchService } from '../search/search-service.js';
import { toMatch } from '../stream/variant1-sse.js';
import { authorizeNamespace } from './access-control.js';
import { jsonSuccess } from './openapi.js';
import { ingestSuccess, progressQuerySchema, respondWithProgress } from './progress-stream.js';
import {
  variant1IngestBodyDocumentation,
  variant1IngestBodySchema,
  variant1IngestResponseSchema,
  variant1SearchBodySchema,
  variant1SearchResponseSchema,
  variant1SourceSchema,
} from './variant1-schemas.js';

export interface Variant1RouteOptions {
  readonly ingest: IngestService;
  readonly search: SearchService;
  readonly defaultNamespace: string;
  readonly topK: number;
  readonly storagePath: string;
}

/** Checks one source of the request on its own; a bad one becomes an error at its index. */
export function toIngestSource(raw: unknown, index: number): IngestSource | InvalidSource {
  const parsed = variant1SourceSchema.safeParse(raw);
  const invalid = (message: string): InvalidSource => ({ kind: 'invalid', label: `sources[${index}]`, error: new KnowledgeError('source_invalid', message) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalid(`sources[${index}]${issue?.path.length ? `.${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid source'}`);
  }
  const { type, value, path, title, crawl } = parsed.data;
  const titled = title === undefined ? {} : { title };
  switch (type) {
    case 'url':
      return value === undefined || value.trim() === ''
        ? invalid(`sources[${index}].value: a url source needs the URL in value`)
        : { kind: 'url', url: value.trim(), ...titled, ...(crawl === undefined ? {} : { crawl }) };
    case 'file': {
      const filePath = path ?? value;
      return filePath === undefined || filePath.trim() === '' ? invalid(`sources[${index}].path: a file source needs an absolute path`) : { kind: 'file', path: filePath, ...titled };
    }
    case 'text':
      return value === undefined ? invalid(`sources[${index}].value: a text source needs the text in value`) : { kind: 'text', text: value, ...titled };
  }
}

/** The Variant 1 ingest response (CONTRACT section 3); `removed` appears when a pruning crawl removed documents. */
export function toVariant1IngestResponse(report: IngestReport, storagePath: string) {
  const documents = report.outcomes.flatMap((outcome) =>
    outcome.status === 'failed'
      ? []
      : [{
          title: outcome.document.title,
          source: outcome.document.origin,
          path: join(storagePath, report.namespace, outcome.document.file),
          chunks: outcome.document.chunks.length,
          status: outcome.status,
          ...(outcome.status === 'updated' ? { replaced: describeReplaced(outcome.replaced) } : {}),
          ...(outcome.warning === undefined ? {} : { warning: outcome.warning }),
        }],
  );
  return {
    namespace: report.namespace,
    documents,
    chunks_added: documents.filter((document) => document.status !== 'skipped').reduce((sum, document) => sum + document.chunks, 0),
    errors: report.outcomes.flatMap((outcome) =>
      outcome.status === 'failed' ? [{ index: outcome.index, source: outcome.source, error: outcome.error.message, code: outcome.error.code }] : [],
    ),
    ...(report.removed.length === 0
      ? {}
      : { removed: report.removed.map((document) => ({ title: document.title, source: document.origin, path: join(storagePath, report.namespace, document.file) })) }),
  };
}

export const variant1Routes: FastifyPluginAsyncZod<Variant1RouteOptions> = async (app, options) => {
  app.post('/tools/ingest', {
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
    config: { access: 'write' },
  }, async (request, reply) => {
    const namespace = authorizeNamespace(request, request.body.namespace ?? options.defaultNamespace);
    const sources = request.body.sources.map(toIngestSource);
    return respondWithProgress(request, reply, async (onProgress) => toVariant1IngestResponse(await options.ingest.ingest(namespace, sources, onProgress), options.storagePath));
  });

  app.post('/tools/search', {
    schema: {
      tags: ['Search'],
      summary: 'Search a namespace by embedding similarity (Variant 1)',
      description:
        'Ranks the chunks of the namespace by cosine similarity to the query (`mode` `embedding`, the default), by BM25 (`lexical`) or both fused (`hybrid`). ' +
        'At most `top_k` matches (KNOWLEDGE_AGENT_TOP_K by default, 20 at most). ' +
        '`notice` explains a fallback to lexical ranking, or says that the namespace does not exist (no matches, and nothing is created).',
      body: variant1SearchBodySchema,
      documentation: {
        success: jsonSuccess('The best matches, best first.', variant1SearchResponseSchema),
        errors: ['invalid_namespace', 'forbidden', 'embeddings_unavailable', 'embedding_failed'],
      },
    },
    config: { access: 'read' },
  }, async (request) => {
    const { query } = request.body;
    const namespace = authorizeNamespace(request, request.body.namespace ?? options.defaultNamespace);
    const outcome = await options.search.search(namespace, query, { mode: request.body.mode, limit: request.body.top_k ?? options.topK });
    return {
      namespace: outcome.namespace,
      query,
      mode: outcome.mode,
      matches: toSnippets(outcome, options.storagePath).map(toMatch),
      ...(outcome.notice === undefined ? {} : { notice: outcome.notice }),
    };
  });
};
