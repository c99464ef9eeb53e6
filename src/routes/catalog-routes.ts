// Listing and deleting: namespaces with their counts, documents of a namespace, deletes by file or source.
// Mounted under /tools (Variant 1 clients) and /api (Variant 2 clients).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CatalogService } from '../catalog/catalog-service.js';
import { authorizeNamespace, jsonSuccess, mayAccess, parseBody } from './plumbing/index.js';
import { namespaceFieldSchema, namespaceNameSchema } from './shared/index.js';

export interface CatalogRouteOptions {
  readonly catalog: CatalogService;
  readonly defaultNamespace: string;
}

const namespaceQuerySchema = z.object({ namespace: namespaceFieldSchema });

const deleteDocumentsSchema = z
  .object({
    namespace: namespaceFieldSchema,
    file: z.string().min(1).max(300).optional().describe('File name of the document in the namespace (its citation label).'),
    source: z
      .string()
      .min(1)
      .max(4_000)
      .optional()
      .describe('The source it was ingested from (URL, file path, upload path with its folders, or title of a text).'),
  })
  .refine((value) => (value.file === undefined) !== (value.source === undefined), {
    message: 'give exactly one of file and source',
    path: ['file'],
  })
  // The refinement, for the API reference.
  .meta({ oneOf: [{ required: ['file'] }, { required: ['source'] }] });

// Responses, for the API reference only (see RouteDocumentation in openapi.ts).
const namespacesResponseSchema = z.object({
  namespaces: z.array(
    z.object({
      name: z.string(),
      documents: z.number().int().min(0),
      chunks: z.number().int().min(0),
      embedding_model: z.string().nullable().describe('Model of the stored vectors.'),
    }),
  ),
});
const documentsResponseSchema = z.object({
  namespace: z.string(),
  documents: z.array(
    z.object({
      title: z.string(),
      source: z.string(),
      file: z.string(),
      chunks: z.number().int().min(0),
      hash: z.string().describe('SHA-256 of the Markdown.'),
      ingested_at: z.string().describe('ISO 8601 time.'),
    }),
  ),
});
const deleteDocumentsResponseSchema = z.object({
  namespace: z.string(),
  deleted: z.array(z.object({ file: z.string(), title: z.string(), source: z.string() })),
});
const deleteNamespaceResponseSchema = z.object({ namespace: z.string(), deleted: z.literal(true) });

export const catalogRoutes: FastifyPluginAsyncZod<CatalogRouteOptions> = async (app, options) => {
  app.get(
    '/namespaces',
    {
      schema: {
        tags: ['Catalog'],
        summary: 'List the namespaces',
        description: 'Every namespace the token may read, with its document and chunk counts and the model of its vectors.',
        documentation: { success: jsonSuccess('The namespaces.', namespacesResponseSchema) },
      },
      config: { access: 'read', cost: 'free' },
    },
    async (request) => ({
      namespaces: (await options.catalog.namespaces())
        .filter((summary) => mayAccess(request, summary.name))
        .map((summary) => ({
          name: summary.name,
          documents: summary.documents,
          chunks: summary.chunks,
          embedding_model: summary.embeddingModel,
        })),
    }),
  );

  app.get(
    '/documents',
    {
      schema: {
        tags: ['Catalog'],
        summary: 'List the documents of a namespace',
        description:
          'The documents of the namespace, with their source, file name (citation label), chunk count, content hash and ingest time. 404 for an unknown namespace.',
        querystring: namespaceQuerySchema,
        documentation: {
          success: jsonSuccess('The documents.', documentsResponseSchema),
          errors: ['invalid_namespace', 'forbidden', 'not_found'],
        },
      },
      config: { access: 'read', cost: 'free' },
    },
    async (request) => {
      const listing = await options.catalog.documents(authorizeNamespace(request, request.query.namespace ?? options.defaultNamespace));
      return {
        namespace: listing.namespace,
        documents: listing.documents.map((document) => ({
          title: document.title,
          source: document.origin,
          file: document.file,
          chunks: document.chunks.length,
          hash: document.hash,
          ingested_at: document.ingestedAt,
        })),
      };
    },
  );

  // The fields may come as a JSON body or as query parameters (some clients send no body with DELETE).
  app.delete(
    '/documents',
    {
      schema: {
        tags: ['Catalog'],
        summary: 'Delete documents by file or source',
        description:
          'Deletes the documents matching exactly one of `file` and `source` (as a JSON body or as query parameters): their Markdown files, chunks and vectors go at once. ' +
          '404 when nothing matches.',
        documentation: {
          body: { 'application/json': deleteDocumentsSchema },
          bodyRequired: false,
          querystring: deleteDocumentsSchema,
          querystringAsObject: 'fields',
          success: jsonSuccess('The deleted documents.', deleteDocumentsResponseSchema),
          errors: ['invalid_namespace', 'forbidden', 'not_found', 'storage_full'],
        },
      },
      config: { access: 'write', cost: 'free' },
    },
    async (request) => {
      const input = parseBody(deleteDocumentsSchema, { ...(request.query as object), ...((request.body as object | undefined) ?? {}) });
      const namespace = authorizeNamespace(request, input.namespace ?? options.defaultNamespace);
      const result = await options.catalog.deleteDocuments(
        namespace,
        input.file !== undefined ? { file: input.file } : { origin: input.source as string },
      );
      return {
        namespace: result.namespace,
        deleted: result.deleted.map((document) => ({ file: document.file, title: document.title, source: document.origin })),
      };
    },
  );

  app.delete(
    '/namespaces/:name',
    {
      schema: {
        tags: ['Catalog'],
        summary: 'Delete a namespace',
        description: 'Deletes the namespace folder and everything in it. 404 for an unknown namespace.',
        params: z.object({ name: namespaceNameSchema }),
        documentation: {
          success: jsonSuccess('The namespace is gone.', deleteNamespaceResponseSchema),
          errors: ['invalid_namespace', 'forbidden', 'not_found'],
        },
      },
      config: { access: 'write', cost: 'free' },
    },
    async (request) => {
      const namespace = authorizeNamespace(request, request.params.name, 'name');
      await options.catalog.deleteNamespace(namespace);
      return { namespace, deleted: true };
    },
  );
};
