// The API reference: an OpenAPI 3.1 document generated from the zod schemas that validate the routes, served at
// /openapi.json, and Swagger UI at /docs with every asset served from the installed package (no CDN, works offline).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsync, FastifySchema, RouteOptions } from 'fastify';
import { createJsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.js';
import { errorBody, errorCatalogue, type ErrorCode } from '../../errors.js';
import { declareRoutesFree } from './rate-limit.js';

/** What a route adds to the reference that Fastify neither validates nor serializes with. */
export interface RouteDocumentation {
  /** Request bodies by media type, for a route that reads its body itself: the schemas it checks the body with. */
  readonly body?: Readonly<Record<string, z.ZodType>>;
  /** False when the body may be left out (the fields may come as query parameters instead). */
  readonly bodyRequired?: boolean;
  /** Query parameters the handler reads itself. */
  readonly querystring?: z.ZodType;
  /**
   * The query parameters depend on each other (the schema has a oneOf): documented as one object parameter
   * (`style: form`, `explode: true`, so its fields are still plain query parameters), which keeps that rule.
   */
  readonly querystringAsObject?: string;
  /**
   * The 200 response by media type. Documentation only: a Fastify `response` schema would also serialize (and,
   * with the zod serializer, validate) every reply, and streamed replies are written to the socket directly.
   */
  readonly success: {
    readonly description: string;
    readonly content: Readonly<Record<string, z.ZodType>>;
    /** 200 when left out. */
    readonly status?: 201 | 202;
  };
  /** Responses other than 200 and the error catalogue's, by status (MCP's 202 and JSON-RPC errors); no content: an empty body. */
  readonly otherResponses?: Readonly<
    Record<string, { readonly description: string; readonly content?: Readonly<Record<string, z.ZodType>> }>
  >;
  /** Error codes of this route beyond the ones `commonErrors` derives from how the route is declared. */
  readonly errors?: readonly ErrorCode[];
  /** The error body's schema and its example, when it is not the contract's (the OpenAI-compatible routes). */
  readonly errorBody?: { readonly schema: z.ZodType; readonly example: (code: ErrorCode, message: string) => unknown };
}

declare module 'fastify' {
  interface FastifySchema {
    documentation?: RouteDocumentation;
  }
}

export interface ApiReferenceOptions {
  readonly version: string;
  /** Stated in the document's description. */
  readonly limits: Config['limits'];
  readonly timeouts: Config['timeouts'];
}

const errorCodes = Object.keys(errorCatalogue) as [ErrorCode, ...ErrorCode[]];

/** The body of every failed request (CONTRACT section 5). */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(errorCodes).describe('A code of the error table (docs/api.md, Errors).'),
      message: z.string().describe('What went wrong, for people; a 400 names the field.'),
    }),
  })
  .meta({ id: 'ErrorBody', description: 'The body of every failed request.' });

/** A JSON answer, for `RouteDocumentation.success`. */
export function jsonSuccess(description: string, schema: z.ZodType, status?: 201 | 202): RouteDocumentation['success'] {
  return { description, content: { 'application/json': schema }, ...(status === undefined ? {} : { status }) };
}

const tags = [
  { name: 'Ingest', description: 'Add documents to a namespace (URLs, files, text, uploads, whole doc sites).' },
  { name: 'Search', description: 'Search a namespace: embedding (Variant 1) or lexical BM25 (Variant 2) ranking, or hybrid.' },
  { name: 'Agent', description: 'Grounded, cited answers: Variant 1 SSE or AG-UI streams, and Variant 2 non-streaming generate.' },
  {
    name: 'OpenAI-compatible',
    description:
      "Chat completions and models in OpenAI's wire format: the model `knowledge/<namespace>` is the assistant over that namespace.",
  },
  { name: 'MCP', description: 'The Model Context Protocol (Streamable HTTP): search, read, list and ingest tools for assistants.' },
  { name: 'Catalog', description: 'List and delete namespaces and documents (under /tools and under /api).' },
  {
    name: 'Insights',
    description: 'Feedback on answers, and the gaps report: what people asked that the docs did not answer (write tokens only).',
  },
  {
    name: 'Sources',
    description: 'Registered sources: pages, crawl roots, sitemaps and git repositories a namespace refreshes on a schedule or by webhook.',
  },
  { name: 'Service', description: 'Health and this reference.' },
];

const megabytes = (bytes: number) => `${bytes / 1_000_000} MB`;
const seconds = (milliseconds: number) => `${milliseconds / 1000} s`;

const description = (options: ApiReferenceOptions) =>
  [
    'Documentation expert of a chat platform: ingests docs into namespaces, searches them and answers with citations.',
    'Both API variants of the contract are served: Variant 1 (`/tools/...`, `/agent`, `/health`) and Variant 2 (`/api/...`, `/agent` with an AG-UI body).',
    '',
    'Every error is `{"error":{"code","message"}}` with the status of the error table. Ingest and agent routes and the MCP `ingest` calls spend from one request budget per client ' +
      '(429 with `Retry-After`; each operation names its class in `x-rate-limit`), and a client that presents 20 unknown tokens in 5 minutes is refused with 429 on every token route until that window ends.',
    '',
    'Tokens: when `KNOWLEDGE_AGENT_WRITE_TOKENS` / `KNOWLEDGE_AGENT_READ_TOKENS` are set, write and read routes need `Authorization: Bearer <token>` or `X-API-Key: <token>`;',
    'without them those routes are open. `/health`, `/openapi.json` and `/docs` are always public.',
    '',
    `Limits: request bodies up to ${megabytes(options.limits.maxBodyBytes)} (413 \`payload_too_large\` beyond it); per source, ` +
      `${megabytes(options.limits.maxSourceBytes)} per file or download and ${options.limits.maxTextBytes / 1000} kB per text snippet ` +
      '(a per-source `source_too_large` error in a 200). Request line and headers: 16 kB (431); they must arrive within ' +
      `${seconds(options.timeouts.headersMs)} and the whole request within ${seconds(options.timeouts.requestMs)} (408 \`request_timeout\`). ` +
      'Bytes that are not valid HTTP (a malformed request line or header) are a 400 `invalid_request`, on every route, and so is ' +
      'a JSON body with a `__proto__` key, or a `constructor` key holding `prototype`, at any depth (prototype poisoning). ' +
      'A wrong method on a known path is a 405 `method_not_allowed` with an `Allow` header.',
  ].join('\n');

const tokenDescription = (header: string) =>
  `${header}: a token of KNOWLEDGE_AGENT_WRITE_TOKENS (ingest and delete routes; it may also read its namespaces) or KNOWLEDGE_AGENT_READ_TOKENS (search, list and agent routes). Checked only when that variable is set.`;

const securitySchemes = {
  bearerToken: { type: 'http', scheme: 'bearer', description: tokenDescription('Authorization: Bearer <token>') },
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: tokenDescription('X-API-Key: <token>') },
} as const;

/** The errors a route can answer because of how it is declared: its validation, its access rule, its body, the rate limit. */
function commonErrors(route: RouteOptions, schema: FastifySchema): ErrorCode[] {
  const documentation = schema.documentation;
  const takesBody = schema.body !== undefined || documentation?.body !== undefined;
  // Every route: a request that is not valid HTTP (400), headers that are too large (431) or too slow (408).
  return [
    'invalid_request',
    'request_timeout',
    'headers_too_large',
    // A route that takes a token also refuses a client that sent too many unknown ones (429).
    ...(route.config?.access !== undefined ? (['unauthorized', 'rate_limited'] as const) : []),
    ...(takesBody ? (['payload_too_large', 'unsupported_media_type'] as const) : []),
    ...(route.config?.cost === 'request' ? (['rate_limited'] as const) : []),
    'internal_error',
  ];
}

/** The codes a route answers, by HTTP status. */
function codesByStatus(codes: readonly ErrorCode[]): Map<string, ErrorCode[]> {
  const byStatus = new Map<string, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = String(errorCatalogue[code].status);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/** One response per status, listing the codes this route answers with it. */
function errorResponses(byStatus: ReadonlyMap<string, readonly ErrorCode[]>, schema: z.ZodType) {
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => [
      status,
      {
        description: codes.map((code) => `\`${code}\`: ${errorCatalogue[code].description}`).join('\n\n'),
        content: { 'application/json': { schema } },
      },
    ]),
  );
}

function operationId(method: string, url: string): string {
  const words = [method.toLowerCase(), ...url.split(/[^A-Za-z0-9]+/).filter((word) => word !== '')];
  return words.map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join('');
}

const zodTransform = createJsonSchemaTransform({});
type TransformInput = Parameters<typeof zodTransform>[0];

/**
 * The route's zod schemas become JSON Schema (fastify-type-provider-zod); its `documentation` adds what Fastify does
 * not validate or serialize with (bodies read by the handler, responses), and its access rule adds the security.
 */
function createTransform(optionalBodies: Set<string>, objectQueries: Map<string, { name: string; schema: Record<string, unknown> }>) {
  return (input: TransformInput): ReturnType<typeof zodTransform> => {
    const { schema, route } = input;
    const { documentation, ...validating } = (schema ?? {}) as FastifySchema;
    // What a request spends from its client's budget (see rate-limit.ts): request, tool-calls or free.
    const rateLimit = route.config?.cost;
    if (validating.hide === true || documentation === undefined) {
      const plain = zodTransform({ ...input, schema: validating });
      const schema: Record<string, unknown> = { ...plain.schema, 'x-rate-limit': rateLimit };
      return { ...plain, schema };
    }
    const toJsonSchema = (body: z.ZodType) => zodTransform({ ...input, schema: { body } }).schema.body as Record<string, unknown>;
    const errors = codesByStatus([...commonErrors(route, schema as FastifySchema), ...(documentation.errors ?? [])]);
    const documented = zodTransform({
      ...input,
      schema: {
        ...validating,
        ...(documentation.querystring === undefined ? {} : { querystring: documentation.querystring }),
        response: {
          [documentation.success.status ?? 200]: {
            description: documentation.success.description,
            content: Object.fromEntries(
              Object.entries(documentation.success.content).map(([mediaType, schema]) => [mediaType, { schema }]),
            ),
          },
          ...errorResponses(errors, documentation.errorBody?.schema ?? errorBodySchema),
          ...Object.fromEntries(
            Object.entries(documentation.otherResponses ?? {}).flatMap(([status, { description, content }]) =>
              content === undefined
                ? []
                : [
                    [
                      status,
                      {
                        description,
                        content: Object.fromEntries(Object.entries(content).map(([mediaType, schema]) => [mediaType, { schema }])),
                      },
                    ],
                  ],
            ),
          ),
        },
      },
    });
    // Each error response shows its own code in the example (the schema's first code would be shown otherwise).
    const responses = documented.schema.response as Record<string, { content: Record<string, Record<string, unknown>> }>;
    // A response without a body has no schema for the zod transform to convert: it is added as it is.
    for (const [status, { description, content }] of Object.entries(documentation.otherResponses ?? {}))
      if (content === undefined) (responses as Record<string, unknown>)[status] = { description };
    for (const [status, [code = 'internal_error']] of errors) {
      const media = responses[status]?.content['application/json'];
      if (media !== undefined) media.example = (documentation.errorBody?.example ?? errorBody)(code, errorCatalogue[code].description);
    }
    const methods = typeof route.method === 'string' ? [route.method] : route.method;
    const result: Record<string, unknown> = { ...documented.schema, operationId: operationId(methods[0] ?? 'get', route.url) };
    if (documentation.body !== undefined) {
      result.body = {
        content: Object.fromEntries(
          Object.entries(documentation.body).map(([mediaType, body]) => [mediaType, { schema: toJsonSchema(body) }]),
        ),
      };
      if (documentation.bodyRequired === false) for (const method of methods) optionalBodies.add(`${method.toLowerCase()} ${route.url}`);
    }
    if (documentation.querystringAsObject !== undefined && documentation.querystring !== undefined) {
      const query = { name: documentation.querystringAsObject, schema: toJsonSchema(documentation.querystring) };
      for (const method of methods) objectQueries.set(`${method.toLowerCase()} ${route.url}`, query);
    }
    if (route.config?.access !== undefined) result.security = [{ bearerToken: [] }, { apiKey: [] }];
    result['x-rate-limit'] = rateLimit;
    return { schema: result, url: documented.url };
  };
}

type Parameter = { in: string; name: string };
type OpenApiDocument = {
  paths?: Record<string, Record<string, { requestBody?: { required?: boolean }; parameters?: Parameter[] }>>;
  components?: { schemas?: Record<string, unknown> };
};

/** Component schemas that nothing refers to (zod's registry holds an input and an output form of each) are left out. */
function withoutUnusedSchemas(document: OpenApiDocument): OpenApiDocument {
  const schemas = document.components?.schemas ?? {};
  const used = new Set<string>();
  const visit = (value: unknown) => {
    for (const [, name] of JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (name === undefined || used.has(name)) continue;
      used.add(name);
      visit(schemas[name]);
    }
  };
  visit(document.paths);
  return {
    ...document,
    components: { ...document.components, schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name))) },
  };
}

const apiReferencePlugin: FastifyPluginAsync<ApiReferenceOptions> = async (app, options) => {
  const optionalBodies = new Set<string>();
  const objectQueries = new Map<string, { name: string; schema: Record<string, unknown> }>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Knowledge Agent',
        version: options.version,
        description: description(options),
        license: { name: 'MIT', identifier: 'MIT' },
      },
      tags,
      components: { securitySchemes },
    },
    transform: createTransform(optionalBodies, objectQueries),
    transformObject: (documentObject) => {
      const document = withoutUnusedSchemas(jsonSchemaTransformObject(documentObject) as OpenApiDocument);
      for (const key of optionalBodies) {
        const [method = '', url = ''] = key.split(' ');
        const requestBody = document.paths?.[url.replace(/:(\w+)/g, '{$1}')]?.[method]?.requestBody;
        if (requestBody !== undefined) requestBody.required = false;
      }
      for (const [key, query] of objectQueries) {
        const [method = '', url = ''] = key.split(' ');
        const operation = document.paths?.[url.replace(/:(\w+)/g, '{$1}')]?.[method];
        if (operation === undefined) continue;
        const fields = Object.keys((query.schema.properties ?? {}) as object);
        operation.parameters = [
          ...(operation.parameters ?? []).filter((parameter) => parameter.in !== 'query' || !fields.includes(parameter.name)),
          { in: 'query', name: query.name, style: 'form', explode: true, required: false, schema: query.schema } as Parameter,
        ];
      }
      return document as ReturnType<typeof jsonSchemaTransformObject>;
    },
  });
  await app.register(async (pages) => {
    declareRoutesFree(pages);
    await pages.register(swaggerUi, {
      routePrefix: '/docs',
      // The page loads nothing from another host: no online validator badge, and a policy that lets the browser fetch
      // only from this server (Swagger UI sets inline style attributes; its logo is a data: URL).
      validatorUrl: false,
      staticCSP:
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'",
      theme: { title: 'Knowledge Agent API reference' },
    });
  });

  app.get(
    '/openapi.json',
    {
      schema: {
        tags: ['Service'],
        summary: 'This API reference as OpenAPI 3.1',
        description: 'The OpenAPI 3.1 document of every route, generated from the schemas that validate them. Public.',
        documentation: {
          success: jsonSuccess(
            'The OpenAPI 3.1 document.',
            z.looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({}), paths: z.record(z.string(), z.unknown()) }),
          ),
        },
      },
      config: { cost: 'free' },
    },
    async () => app.swagger(),
  );
};

/** Registered on the application itself (not encapsulated), so @fastify/swagger sees every route registered after it. */
export const apiReference = Object.assign(apiReferencePlugin, { [Symbol.for('skip-override')]: true });
