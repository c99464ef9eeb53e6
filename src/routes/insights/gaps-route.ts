// The gaps report of a namespace: GET /tools/gaps?namespace= and GET /api/gaps/:namespace, as JSON or CSV. Only the
// namespace's write tokens (its docs owners) may read it: its questions are what people typed.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { gapsReportCsv, type InsightsService } from '../../insights/index.js';
import { abortedWhenClientLeaves, authorizeNamespace, type RouteDocumentation } from '../plumbing/index.js';
import { namespaceNameSchema } from '../shared/index.js';
import { gapsPathQuerySchema, gapsQuerySchema, gapsReportSchema } from './insights-schemas.js';

export interface GapsRouteOptions {
  readonly insights: InsightsService;
  readonly defaultNamespace: string;
}

const description =
  'Questions the docs did not cover and answers rated down, grouped by topic (each group: a label from its words, the count, its questions, ' +
  'the closest pages, the thumbs-down comments), largest first; the most asked questions; counts per day (covered, not covered, rated up, rated down). ' +
  'Needs a write token of the namespace. `format=csv` gives the groups as CSV.';

const documentation: RouteDocumentation = {
  success: {
    description: 'The report (JSON), or its groups as CSV.',
    content: { 'application/json': gapsReportSchema, 'text/csv': z.string().describe('label,count,questions,closest_pages,comments') },
  },
  errors: ['forbidden'],
};

async function respond(
  request: FastifyRequest,
  reply: FastifyReply,
  options: GapsRouteOptions,
  requested: { namespace: string; since: number | undefined; format: 'json' | 'csv' },
): Promise<unknown> {
  const namespace = authorizeNamespace(request, requested.namespace);
  // Left out: from the start of what the question log keeps.
  const since = new Date(requested.since === undefined ? 0 : Date.now() - requested.since);
  const report = await options.insights.gapsReport(namespace, since, abortedWhenClientLeaves(reply));
  if (requested.format === 'json') return report;
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="gaps-${namespace}.csv"`)
    .send(gapsReportCsv(report));
}

export const gapsRoutes: FastifyPluginAsyncZod<GapsRouteOptions> = async (app, options) => {
  app.get(
    '/tools/gaps',
    {
      schema: {
        tags: ['Insights'],
        summary: 'What the docs do not answer (Variant 1 family)',
        description,
        querystring: gapsQuerySchema,
        documentation,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request, reply) =>
      respond(request, reply, options, { ...request.query, namespace: request.query.namespace ?? options.defaultNamespace }),
  );
  app.get(
    '/api/gaps/:namespace',
    {
      schema: {
        tags: ['Insights'],
        summary: 'What the docs do not answer (Variant 2 family)',
        description,
        params: z.object({ namespace: namespaceNameSchema }),
        querystring: gapsPathQuerySchema,
        documentation,
      },
      config: { access: 'write', cost: 'request' },
    },
    async (request, reply) => respond(request, reply, options, { ...request.query, namespace: request.params.namespace }),
  );
};
