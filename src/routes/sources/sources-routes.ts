// Registered sources over HTTP, in both route families: /tools/sources (namespace in the body or query, Variant 1
// style) and /api/sources/:namespace (in the path, Variant 2 style). Listing needs a read token of the namespace;
// adding, changing, removing and refreshing need a write token.
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SourceChanges, SourcesService } from '../../sources/index.js';
import { abortedWhenClientLeaves, authorizeNamespace, jsonSuccess, type RouteDocumentation } from '../plumbing/index.js';
import { namespaceFieldSchema, namespaceNameSchema } from '../shared/index.js';
import {
  addSourceSchema,
  changeSourceSchema,
  sourceDefinition,
  sourceResponseSchema,
  toGitSettings,
  toSourceResponse,
  type AddSourceBody,
  type ChangeSourceBody,
} from './sources-schemas.js';
import type { NamespaceName } from '../../store/namespace-name.js';

export interface SourcesRouteOptions {
  readonly sources: SourcesService;
  readonly defaultNamespace: string;
}

const listResponseSchema = z.object({ namespace: z.string(), sources: z.array(sourceResponseSchema) });
const sourceBodySchema = z.object({ source: sourceResponseSchema });
const refreshResponseSchema = z.object({
  namespace: z.string(),
  refreshes: z.array(sourceResponseSchema).describe('Each source refreshed, its `last_refresh` the refresh just run.'),
});
const removeResponseSchema = z.object({
  source: sourceResponseSchema,
  removed_documents: z.number().int().min(0).describe('Documents removed with it (with remove_documents=true).'),
});

const tags = ['Sources'];
const idParam = z.string().regex(/^[0-9a-f]{12}$/, 'a source id is 12 hexadecimal digits (see the list of sources)');
const removeQuery = {
  remove_documents: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .describe("Remove the source's documents too (by default they stay, no longer refreshed)."),
};
const refreshFilter = {
  url: z.string().max(4_000).optional().describe('Refresh only the source of this URL; every source of the namespace when left out.'),
};

const documented = {
  list: { success: jsonSuccess("The namespace's sources.", listResponseSchema), errors: ['forbidden'] },
  add: {
    success: jsonSuccess(
      'The source, registered and ingested (`last_refresh` is its first refresh); 200 instead when the URL was registered already (its settings replaced, then refreshed).',
      sourceBodySchema,
      201,
    ),
    errors: ['source_invalid', 'forbidden'],
  },
  change: { success: jsonSuccess('The source as changed.', sourceBodySchema), errors: ['not_found', 'forbidden'] },
  remove: { success: jsonSuccess('The source is removed.', removeResponseSchema), errors: ['not_found', 'forbidden'] },
  refresh: { success: jsonSuccess('The refreshes, each waited for.', refreshResponseSchema), errors: ['not_found', 'forbidden'] },
} satisfies Record<string, RouteDocumentation>;

function toChanges(body: ChangeSourceBody): SourceChanges {
  return {
    ...(body.every === undefined ? {} : { everySeconds: body.every }),
    ...(body.crawl === undefined ? {} : { crawl: body.crawl }),
    ...(body.git === undefined ? {} : { git: toGitSettings(body.git) }),
    ...(body.webhook_secret === undefined ? {} : { webhookSecret: body.webhook_secret }),
  };
}

export const sourcesRoutes: FastifyPluginAsyncZod<SourcesRouteOptions> = async (app, { sources, defaultNamespace }) => {
  const service = {
    async list(namespace: NamespaceName) {
      return { namespace, sources: (await sources.list(namespace)).map(toSourceResponse) };
    },
    async refresh(namespace: NamespaceName, url: string | undefined, signal: AbortSignal) {
      return { namespace, refreshes: (await sources.refreshNow(namespace, { url, signal })).map(toSourceResponse) };
    },
    async refreshOne(namespace: NamespaceName, id: string, signal: AbortSignal) {
      // An unknown id is a 404 before any lease is asked for.
      await sources.get(namespace, id);
      await sources.refresh(namespace, id, 'manual', signal);
      return { namespace, refreshes: [toSourceResponse(await sources.get(namespace, id))] };
    },
    async add(reply: FastifyReply, namespace: NamespaceName, body: Omit<AddSourceBody, 'namespace'>) {
      const { source, created } = await sources.add(namespace, sourceDefinition(body), abortedWhenClientLeaves(reply));
      return reply.code(created ? 201 : 200).send({ source: toSourceResponse(source) });
    },
    async change(namespace: NamespaceName, id: string, body: ChangeSourceBody) {
      return { source: toSourceResponse(await sources.update(namespace, id, toChanges(body))) };
    },
    async remove(namespace: NamespaceName, id: string, removeDocuments: boolean) {
      const { source, removed } = await sources.remove(namespace, id, removeDocuments);
      return { source: toSourceResponse(source), removed_documents: removed };
    },
  };

  // Variant 1 family: the namespace in the body or query.
  app.get(
    '/tools/sources',
    {
      schema: {
        tags,
        summary: "List a namespace's sources",
        querystring: z.object({ namespace: namespaceFieldSchema }),
        documentation: documented.list,
      },
      config: { access: 'read', cost: 'request' },
    },
    async (request) => service.list(authorizeNamespace(request, request.query.namespace ?? defaultNamespace)),
  );
  app.post(
    '/tools/sources',
    {
      schema: {
        tags,
        summary: 'Register a source and ingest it',
        description: 'The source is stored with the namespace and refreshed on its schedule; the response waits for its first refresh.',
        body: addSourceSchema,
        documentation: documented.add,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request, reply) => service.add(reply, authorizeNamespace(request, request.body.namespace ?? defaultNamespace), request.body),
  );
  app.patch(
    '/tools/sources/:id',
    {
      schema: {
        tags,
        summary: 'Change a source',
        params: z.object({ id: idParam }),
        body: changeSourceSchema,
        documentation: documented.change,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request) =>
      service.change(authorizeNamespace(request, request.body.namespace ?? defaultNamespace), request.params.id, request.body),
  );
  app.delete(
    '/tools/sources/:id',
    {
      schema: {
        tags,
        summary: 'Remove a source',
        params: z.object({ id: idParam }),
        querystring: z.object({ namespace: namespaceFieldSchema, ...removeQuery }),
        documentation: documented.remove,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request) =>
      service.remove(
        authorizeNamespace(request, request.query.namespace ?? defaultNamespace),
        request.params.id,
        request.query.remove_documents,
      ),
  );
  app.post(
    '/tools/sources/refresh',
    {
      schema: {
        tags,
        summary: "Refresh a namespace's sources now",
        body: z.object({ namespace: namespaceFieldSchema, ...refreshFilter }),
        documentation: documented.refresh,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request, reply) =>
      service.refresh(
        authorizeNamespace(request, request.body.namespace ?? defaultNamespace),
        request.body.url,
        abortedWhenClientLeaves(reply),
      ),
  );
  app.post(
    '/tools/sources/:id/refresh',
    {
      schema: {
        tags,
        summary: 'Refresh a source now',
        params: z.object({ id: idParam }),
        body: z.object({ namespace: namespaceFieldSchema }).default({}),
        documentation: documented.refresh,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request, reply) =>
      service.refreshOne(
        authorizeNamespace(request, request.body.namespace ?? defaultNamespace),
        request.params.id,
        abortedWhenClientLeaves(reply),
      ),
  );

  // Variant 2 family: the namespace in the path.
  const namespaceParam = { namespace: namespaceNameSchema };
  app.get(
    '/api/sources/:namespace',
    {
      schema: { tags, summary: "List a namespace's sources", params: z.object(namespaceParam), documentation: documented.list },
      config: { access: 'read', cost: 'request' },
    },
    async (request) => service.list(authorizeNamespace(request, request.params.namespace)),
  );
  app.post(
    '/api/sources/:namespace',
    {
      schema: {
        tags,
        summary: 'Register a source and ingest it',
        description: 'The source is stored with the namespace and refreshed on its schedule; the response waits for its first refresh.',
        params: z.object(namespaceParam),
        body: addSourceSchema.omit({ namespace: true }),
        documentation: documented.add,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request, reply) => service.add(reply, authorizeNamespace(request, request.params.namespace), request.body),
  );
  app.patch(
    '/api/sources/:namespace/:id',
    {
      schema: {
        tags,
        summary: 'Change a source',
        params: z.object({ ...namespaceParam, id: idParam }),
        body: changeSourceSchema.omit({ namespace: true }),
        documentation: documented.change,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request) => service.change(authorizeNamespace(request, request.params.namespace), request.params.id, request.body),
  );
  app.delete(
    '/api/sources/:namespace/:id',
    {
      schema: {
        tags,
        summary: 'Remove a source',
        params: z.object({ ...namespaceParam, id: idParam }),
        querystring: z.object(removeQuery),
        documentation: documented.remove,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request) =>
      service.remove(authorizeNamespace(request, request.params.namespace), request.params.id, request.query.remove_documents),
  );
  app.post(
    '/api/sources/:namespace/refresh',
    {
      schema: {
        tags,
        summary: "Refresh a namespace's sources now",
        params: z.object(namespaceParam),
        body: z.object(refreshFilter).default({}),
        documentation: documented.refresh,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request, reply) =>
      service.refresh(authorizeNamespace(request, request.params.namespace), request.body.url, abortedWhenClientLeaves(reply)),
  );
  app.post(
    '/api/sources/:namespace/:id/refresh',
    {
      schema: {
        tags,
        summary: 'Refresh a source now',
        params: z.object({ ...namespaceParam, id: idParam }),
        documentation: documented.refresh,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request, reply) =>
      service.refreshOne(authorizeNamespace(request, request.params.namespace), request.params.id, abortedWhenClientLeaves(reply)),
  );
};
