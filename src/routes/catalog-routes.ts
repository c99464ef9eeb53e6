// Listing and deleting: namespaces with their counts, documents of a namespace, deletes by file or source.
// Mounted under /tools (Variant 1 clients) and /api (Variant 2 clients).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CatalogService } from '../catalog/catalog-service.js';
import { authorizeNamespace, mayAccess } from './access-control.js';
import { parseBody } from './parse-body.js';

export interface CatalogRouteOptions {
  readonly catalog: CatalogService;
  readonly defaultNamespace: string;
}

const namespaceQuerySchema = z.object({ namespace: z.string().max(200).optional() });

const deleteDocumentsSchema = z
  .object({
    namespace: z.string().max(200).optional(),
    file: z.string().min(1).max(300).optional(),
    source: z.string().min(1).max(4_000).optional(),
  })
  .refine((value) => (value.file === undefined) !== (value.source === undefined), { message: 'give exactly one of file and source', path: ['file'] });

export const catalogRoutes: FastifyPluginAsyncZod<CatalogRouteOptions> = async (app, options) => {
  app.get('/namespaces', { config: { access: 'read' } }, async (request) => ({
    namespaces: (await options.catalog.namespaces())
      .filter((summary) => mayAccess(request, summary.name))
      .map((summary) => ({ name: summary.name, documents: summary.documents, chunks: summary.chunks, embedding_model: summary.embeddingModel })),
  }));

  app.get('/documents', { schema: { querystring: namespaceQuerySchema }, config: { access: 'read' } }, async (request) => {
    const listing = await options.catalog.documents(authorizeNamespace(request, request.query.namespace ?? options.defaultNamespace));
    return {
      namespace: listing.namespace,
      documents: listing.documents.map((document) => ({
        title: document.title,
        source: document.source,
        file: document.file,
        chunks: document.chunks.length,
        hash: document.hash,
        ingested_at: document.ingestedAt,
      })),
    };
  });

  // The fields may come as a JSON body or as query parameters (some clients send no body with DELETE).
  app.delete('/documents', { config: { access: 'write' } }, async (request) => {
    const input = parseBody(deleteDocumentsSchema, { ...(request.query as object), ...((request.body as object | undefined) ?? {}) });
    const namespace = authorizeNamespace(request, input.namespace ?? options.defaultNamespace);
    const result = await options.catalog.deleteDocuments(namespace, input.file !== undefined ? { file: input.file } : { source: input.source as string });
    return { namespace: result.namespace, deleted: result.deleted.map((document) => ({ file: document.file, title: document.title, source: document.source })) };
  });

  app.delete('/namespaces/:name', { schema: { params: z.object({ name: z.string() }) }, config: { access: 'write' } }, async (request) => {
    const namespace = authorizeNamespace(request, request.params.name);
    await options.catalog.deleteNamespace(namespace);
    return { namespace, deleted: true };
  });
};
