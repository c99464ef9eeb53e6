// The API reference: /openapi.json is a sound OpenAPI 3.1 document generated from the route schemas, it describes what
// the routes really answer, and /docs renders it from assets this server serves itself (works with no internet).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { variant1SearchBodySchema } from '../../src/routes/variant1/search-schemas.js';
import { searchDocsBodySchema } from '../../src/routes/variant2/search-schemas.js';
import type { ProviderDouble } from '../support/provider-double.js';
import { servedRoutes } from '../support/served-routes.js';
import { startServiceWithProvider, type TestService } from '../support/service.js';
import { packageRoot } from '../../src/package-root.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const writer = { authorization: 'Bearer writer-token-for-tests' };
const reader = { 'x-api-key': 'reader-token-for-tests' };

/** The routes of the contract (and the README), all of which the reference must describe fully. */
const contractOperations = [
  'get /health',
  'get /openapi.json',
  'post /tools/ingest',
  'post /tools/search',
  'post /agent',
  'post /api/tools/ingest',
  'post /api/tools/ingest/execute',
  'post /api/tools/searchDocs',
  'post /api/tools/searchDocs/execute',
  'post /api/agents/knowledge/generate',
  'post /api/agents/knowledge/stream',
  'get /api/agents',
  'get /api/agents/knowledge',
  'get /api/tools',
  'post /v1/chat/completions',
  'get /v1/models',
  'post /mcp',
  ...['/tools', '/api'].flatMap((prefix) => [
    `get ${prefix}/namespaces`,
    `get ${prefix}/documents`,
    `delete ${prefix}/documents`,
    `delete ${prefix}/namespaces/{name}`,
  ]),
];

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves a local JSON pointer (`#/components/schemas/Match`) in the document. */
function resolvePointer(document: JsonObject, pointer: string): Json | undefined {
  assert.ok(pointer.startsWith('#/'), `only local references are used: ${pointer}`);
  let node: Json | undefined = document;
  for (const part of pointer
    .slice(2)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))) {
    node = isObject(node) ? node[part] : Array.isArray(node) ? node[Number(part)] : undefined;
  }
  return node;
}

function* walk(node: Json, path = '#'): Generator<{ node: JsonObject; path: string }> {
  if (Array.isArray(node)) for (const [index, child] of node.entries()) yield* walk(child, `${path}/${index}`);
  if (!isObject(node)) return;
  yield { node, path };
  for (const [key, child] of Object.entries(node)) yield* walk(child, `${path}/${key}`);
}

function hasType(value: Json, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return false;
  }
}

/**
 * The ways `value` breaks `schema`: the subset of JSON Schema 2020-12 the generated document uses ($ref, type, enum,
 * const, properties, required, additionalProperties, items, anyOf, oneOf, allOf). Undeclared properties count.
 */
function schemaProblems(document: JsonObject, schema: Json | undefined, value: Json, path = '$'): string[] {
  if (schema === undefined || schema === true || (isObject(schema) && Object.keys(schema).length === 0)) return [];
  if (schema === false) return [`${path}: no value is allowed here`];
  assert.ok(isObject(schema), `${path}: a schema is an object`);
  if (typeof schema.$ref === 'string') return schemaProblems(document, resolvePointer(document, schema.$ref), value, path);
  const problems: string[] = [];
  for (const member of (schema.allOf as Json[] | undefined) ?? []) problems.push(...schemaProblems(document, member, value, path));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = schema[keyword] as Json[] | undefined;
    if (members === undefined) continue;
    const matching = members.filter((member) => schemaProblems(document, member, value, path).length === 0).length;
    if (keyword === 'anyOf' ? matching === 0 : matching !== 1) {
      problems.push(`${path}: matches ${matching} of the ${keyword} members: ${JSON.stringify(value).slice(0, 200)}`);
    }
  }
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value))
    problems.push(`${path}: is not ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    problems.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  }
  if (schema.type !== undefined) {
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[];
    if (!types.some((type) => hasType(value, type)))
      return [...problems, `${path}: ${JSON.stringify(value)?.slice(0, 100)} is not of type ${types.join(' | ')}`];
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const name of (schema.required as string[] | undefined) ?? []) if (!(name in value)) problems.push(`${path}: lacks ${name}`);
    for (const [name, child] of Object.entries(value)) {
      if (name in properties) problems.push(...schemaProblems(document, properties[name], child, `${path}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${path}: has ${name}, which the reference does not list`);
      else problems.push(...schemaProblems(document, schema.additionalProperties, child, `${path}.${name}`));
    }
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    for (const [index, item] of value.entries()) problems.push(...schemaProblems(document, schema.items, item, `${path}[${index}]`));
  }
  return problems;
}

describe('API reference', () => {
  let provider: ProviderDouble;
  let service: TestService;
  let document: JsonObject;

  before(async () => {
    ({ provider, service } = await startServiceWithProvider({
      environment: {
        KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:*',
        KNOWLEDGE_AGENT_READ_TOKENS: 'reader-token-for-tests:*;narrow-token-for-tests:elsewhere',
      },
    }));
    const response = await service.get('/openapi.json');
    assert.equal(response.status, 200, 'public even though tokens are required elsewhere');
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    document = (await response.json()) as JsonObject;
  });

  after(async () => {
    await service.dispose();
  });

  function operation(method: string, path: string): JsonObject {
    const found = (document.paths as JsonObject)[path];
    assert.ok(isObject(found) && isObject(found[method]), `the reference has ${method.toUpperCase()} ${path}`);
    return found[method] as JsonObject;
  }

  function operations(): { key: string; operation: JsonObject }[] {
    return Object.entries(document.paths as JsonObject).flatMap(([path, item]) =>
      Object.entries(item as JsonObject)
        .filter(([method]) => methods.includes(method))
        .map(([method, value]) => ({ key: `${method} ${path}`, operation: value as JsonObject })),
    );
  }

  function mediaSchema(content: Json | undefined, mediaType: string): Json | undefined {
    return isObject(content) && isObject(content[mediaType]) ? (content[mediaType] as JsonObject).schema : undefined;
  }

  /** Checks a real answer against the reference: its status is documented, and its body matches the documented schema. */
  async function assertDocumented(method: string, path: string, response: Response): Promise<Json> {
    const text = await response.text();
    const responses = operation(method, path).responses as JsonObject;
    const documented = responses[String(response.status)];
    assert.ok(
      isObject(documented),
      `${method.toUpperCase()} ${path} answered ${response.status}, which the reference does not list: ${text}`,
    );
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0] ?? '';
    const schema = mediaSchema(documented.content, mediaType);
    assert.ok(
      schema !== undefined,
      `${method.toUpperCase()} ${path} ${response.status} answered ${mediaType}, which the reference does not list`,
    );
    const values =
      mediaType === 'application/x-ndjson'
        ? text
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as Json)
        : [JSON.parse(text) as Json];
    for (const value of values)
      assert.deepEqual(
        schemaProblems(document, schema, value),
        [],
        `${method.toUpperCase()} ${path} ${response.status}: ${text.slice(0, 500)}`,
      );
    return values.at(-1) ?? null;
  }

  function request(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    const hasBody = options.body !== undefined;
    return service.request(path, {
      method: method.toUpperCase(),
      headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
      ...(hasBody ? { body: JSON.stringify(options.body) } : {}),
    });
  }

  it('is OpenAPI 3.1.0 with the service name, the package version, tags and the token schemes', () => {
    assert.equal(document.openapi, '3.1.0');
    const info = document.info as JsonObject;
    assert.equal(info.title, 'Knowledge Agent');
    assert.equal(info.version, version);
    assert.equal(typeof info.description, 'string');
    const schemes = (document.components as JsonObject).securitySchemes as JsonObject;
    assert.deepEqual(
      schemes.bearerToken && { type: (schemes.bearerToken as JsonObject).type, scheme: (schemes.bearerToken as JsonObject).scheme },
      { type: 'http', scheme: 'bearer' },
    );
    assert.deepEqual(
      schemes.apiKey && {
        type: (schemes.apiKey as JsonObject).type,
        in: (schemes.apiKey as JsonObject).in,
        name: (schemes.apiKey as JsonObject).name,
      },
      { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    );
    const declaredTags = new Set((document.tags as JsonObject[]).map((tag) => tag.name));
    for (const { key, operation } of operations()) {
      for (const tag of (operation.tags as string[] | undefined) ?? []) assert.ok(declaredTags.has(tag), `${key}: tag ${tag} is declared`);
    }
  });

  it('has an operation for every route the server serves, except static files (the docs assets)', async () => {
    const routes = servedRoutes(service.app.printRoutes({ commonPrefix: false }));
    assert.ok(routes.length > 20, 'the route tree was read');
    const documented = new Set(operations().map(({ key }) => key));
    for (const route of routes) {
      const key = `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`;
      if (documented.has(key) || route.path === '/docs' || route.path.startsWith('/docs/')) continue;
      // Left out otherwise: only static files, which answer GET with something other than JSON.
      assert.equal(route.method, 'get', `${key} is in the reference`);
      if (route.path.includes('*')) continue;
      const response = await service.get(route.path);
      await response.arrayBuffer();
      assert.doesNotMatch(response.headers.get('content-type') ?? '', /json/, `${key} answers JSON, so it belongs in the reference`);
    }
    for (const key of contractOperations) assert.ok(documented.has(key), `the reference has ${key}`);
    assert.ok(!documented.has('get /docs') && ![...documented].some((key) => key.includes('/docs/')), 'the docs assets are left out');
  });

  it('describes every contract route: tags, summary, description, a 200 and the error body', () => {
    const operationIds = new Set<string>();
    for (const key of contractOperations) {
      const [method = '', path = ''] = key.split(' ');
      const found = operation(method, path);
      assert.ok(Array.isArray(found.tags) && found.tags.length > 0, `${key} has tags`);
      assert.equal(typeof found.summary, 'string', `${key} has a summary`);
      assert.ok(typeof found.description === 'string' && found.description.length > 20, `${key} has a description`);
      assert.equal(typeof found.operationId, 'string');
      assert.ok(!operationIds.has(found.operationId as string), `${key}: operationId is unique`);
      operationIds.add(found.operationId as string);
      const responses = found.responses as JsonObject;
      assert.ok(isObject(responses['200']) && isObject((responses['200'] as JsonObject).content), `${key} documents its 200 body`);
      for (const [status, response] of Object.entries(responses)) {
        assert.equal(typeof (response as JsonObject).description, 'string', `${key} ${status} has a description`);
        if (status === '200') continue;
        // MCP's transport answers its own refusals: an empty 202 for a notification, a JSON-RPC error for a missing Accept.
        if (path === '/mcp' && status === '202') continue;
        // The OpenAI-compatible routes answer OpenAI's error shape, which holds the contract's code and message.
        const body = path.startsWith('/v1/') ? 'OpenAiErrorBody' : path === '/mcp' && status === '406' ? 'JsonRpcError' : 'ErrorBody';
        assert.deepEqual(
          mediaSchema((response as JsonObject).content, 'application/json'),
          { $ref: `#/components/schemas/${body}` },
          `${key} ${status} is the error body`,
        );
      }
      assert.ok(isObject(responses['500']), `${key} documents the generic 500`);
    }
    const errorBody = resolvePointer(document, '#/components/schemas/ErrorBody') as JsonObject;
    assert.deepEqual(errorBody.required, ['error']);
    assert.deepEqual(((errorBody.properties as JsonObject).error as JsonObject).required, ['code', 'message']);
  });

  it('gives every request body a JSON schema, every path parameter a declaration, and uses no OpenAPI 3.0-only keyword', () => {
    for (const { key, operation } of operations()) {
      const body = operation.requestBody as JsonObject | undefined;
      if (body !== undefined) {
        const schema = mediaSchema(body.content, 'application/json');
        assert.ok(isObject(schema) && (schema.type === 'object' || Array.isArray(schema.anyOf)), `${key} has a JSON body schema`);
      }
      const path = key.split(' ')[1] ?? '';
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        const parameter = ((operation.parameters as JsonObject[] | undefined) ?? []).find(
          (candidate) => candidate.in === 'path' && candidate.name === name,
        );
        assert.equal(parameter?.required, true, `${key} declares the path parameter ${name}`);
      }
    }
    for (const { node, path } of walk(document)) {
      assert.ok(!('nullable' in node) && !('definitions' in node), `${path} uses JSON Schema 2020-12, not OpenAPI 3.0 keywords`);
    }
  });

  it('resolves every $ref inside the document, and lists no component nothing refers to', () => {
    const referenced = new Set<string>();
    let count = 0;
    for (const { node, path } of walk(document)) {
      if (typeof node.$ref !== 'string') continue;
      count++;
      assert.ok(isObject(resolvePointer(document, node.$ref)), `${path}: ${node.$ref} resolves`);
      referenced.add(node.$ref);
    }
    assert.ok(count > 10, 'shared schemas are referenced, not copied');
    for (const name of Object.keys(((document.components as JsonObject).schemas as JsonObject) ?? {})) {
      assert.ok(referenced.has(`#/components/schemas/${name}`), `${name} is used`);
    }
  });

  it('documents the search bodies exactly as the zod schemas that validate them', () => {
    const fromZod = (schema: z.ZodType) => {
      const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as JsonObject;
      return json;
    };
    const search = mediaSchema((operation('post', '/tools/search').requestBody as JsonObject).content, 'application/json') as JsonObject;
    assert.deepEqual(search, fromZod(variant1SearchBodySchema));
    const properties = search.properties as JsonObject;
    assert.deepEqual(search.required, ['query']);
    // Whitespace only is refused: the pattern says so (a minLength of 1 would let " " through).
    assert.deepEqual(properties.query, { type: 'string', maxLength: 2000, pattern: '\\S' });
    assert.equal((properties.namespace as JsonObject).type, 'string');
    assert.equal((properties.namespace as JsonObject).maxLength, 200);
    assert.equal((properties.namespace as JsonObject).pattern, '^[^A-Za-z0-9_-]*(?:[A-Za-z0-9_-][^A-Za-z0-9_-]*){1,64}$');
    assert.equal((properties.top_k as JsonObject).type, 'integer');
    assert.equal((properties.top_k as JsonObject).minimum, 0);
    assert.deepEqual((properties.mode as JsonObject).enum, ['embedding', 'lexical', 'hybrid']);
    assert.equal((properties.mode as JsonObject).default, 'embedding');

    const searchDocs = mediaSchema(
      (operation('post', '/api/tools/searchDocs').requestBody as JsonObject).content,
      'application/json',
    ) as JsonObject;
    assert.deepEqual(searchDocs, fromZod(searchDocsBodySchema));
    assert.equal(((searchDocs.properties as JsonObject).mode as JsonObject).default, 'lexical');
    assert.equal(((searchDocs.properties as JsonObject).limit as JsonObject).type, 'integer');
    const execute = mediaSchema(
      (operation('post', '/api/tools/searchDocs/execute').requestBody as JsonObject).content,
      'application/json',
    ) as JsonObject;
    assert.deepEqual((execute.properties as JsonObject).data, searchDocs, 'the execute form wraps the same body in data');
  });

  it('states the rules the validation enforces beyond types: exactly one of file and source, malformed HTTP, limits', () => {
    for (const prefix of ['/tools', '/api']) {
      const remove = operation('delete', `${prefix}/documents`);
      const body = mediaSchema((remove.requestBody as JsonObject).content, 'application/json') as JsonObject;
      assert.deepEqual(body.oneOf, [{ required: ['file'] }, { required: ['source'] }]);
      // The same fields as query parameters: one object parameter (form, exploded), so the oneOf holds there too.
      const query = (remove.parameters as JsonObject[]).filter((parameter) => parameter.in === 'query');
      assert.deepEqual(
        query.map((parameter) => [parameter.name, parameter.style, parameter.explode]),
        [['fields', 'form', true]],
      );
      assert.deepEqual((query[0]?.schema as JsonObject).oneOf, body.oneOf);
      const name = (operation('delete', `${prefix}/namespaces/{name}`).parameters as JsonObject[]).find(
        (parameter) => parameter.name === 'name',
      );
      assert.match(String((name?.schema as JsonObject).pattern), /\{1,64\}/);
    }
    for (const { key, operation: documented } of operations()) {
      const responses = documented.responses as JsonObject;
      for (const [status, code] of [
        ['400', 'invalid_request'],
        ['408', 'request_timeout'],
        ['431', 'headers_too_large'],
      ]) {
        assert.match(
          String((responses[status as string] as JsonObject | undefined)?.description),
          new RegExp(`\`${code}\``),
          `${key} documents ${status}`,
        );
      }
    }
    assert.match(String((document.info as JsonObject).description), /request bodies up to 8 MB .*malformed request line or header/s);
    const ingestSources = mediaSchema(
      (operation('post', '/api/tools/ingest').requestBody as JsonObject).content,
      'application/json',
    ) as JsonObject;
    assert.equal(((ingestSources.properties as JsonObject).sources as JsonObject).minItems, 1);
  });

  it('documents the contract fields of the answers and the sources of both ingest routes', () => {
    const match = resolvePointer(document, '#/components/schemas/Match') as JsonObject;
    assert.deepEqual(Object.keys(match.properties as JsonObject).sort(), ['as_of', 'chunk_id', 'preview', 'score', 'source', 'title']);
    const source = resolvePointer(document, '#/components/schemas/Variant1SourceInput') as JsonObject;
    assert.deepEqual(((source.properties as JsonObject).type as JsonObject).enum, ['url', 'file', 'text']);
    const variant1Body = mediaSchema(
      (operation('post', '/tools/ingest').requestBody as JsonObject).content,
      'application/json',
    ) as JsonObject;
    assert.deepEqual(((variant1Body.properties as JsonObject).sources as JsonObject).items, {
      $ref: '#/components/schemas/Variant1SourceInput',
    });
    assert.deepEqual(variant1Body.required, ['sources']);
  });

  it('documents the upload form, the NDJSON progress and the event streams, with no JSON body for a stream', () => {
    const ingest = operation('post', '/api/tools/ingest');
    const content = (ingest.requestBody as JsonObject).content as JsonObject;
    assert.deepEqual(Object.keys(content).sort(), ['application/json', 'multipart/form-data']);
    const form = mediaSchema(content, 'multipart/form-data') as JsonObject;
    const file = (form.properties as JsonObject).file as JsonObject;
    assert.deepEqual(file.items, { type: 'string', format: 'binary' });
    assert.equal(((form.properties as JsonObject).namespace as JsonObject).type, 'string');
    for (const path of ['/tools/ingest', '/api/tools/ingest']) {
      const success = (operation('post', path).responses as JsonObject)['200'] as JsonObject;
      assert.deepEqual(Object.keys(success.content as JsonObject).sort(), ['application/json', 'application/x-ndjson'], path);
      assert.ok(
        ((operation('post', path).parameters as JsonObject[]) ?? []).some(
          (parameter) => parameter.name === 'progress' && parameter.in === 'query',
        ),
      );
    }
    const agent = ((operation('post', '/agent').responses as JsonObject)['200'] as JsonObject).content as JsonObject;
    assert.deepEqual(Object.keys(agent), ['text/event-stream']);
    const agentBody = mediaSchema((operation('post', '/agent').requestBody as JsonObject).content, 'application/json') as JsonObject;
    assert.equal((agentBody.anyOf as Json[]).length, 2, 'the Variant 1 and the AG-UI body');
    assert.equal(
      (operation('delete', '/tools/documents').requestBody as JsonObject).required,
      false,
      'the fields may come as query parameters',
    );
  });

  it('marks the token routes with both schemes, and the health and reference routes as public', () => {
    for (const { key, operation } of operations()) {
      if (key === 'get /health' || key === 'get /openapi.json') assert.equal(operation.security, undefined, `${key} is public`);
      else if (contractOperations.includes(key))
        assert.deepEqual(operation.security, [{ bearerToken: [] }, { apiKey: [] }], `${key} takes a token`);
    }
    for (const key of ['post /tools/ingest', 'get /tools/documents']) {
      const [method = '', path = ''] = key.split(' ');
      assert.ok(isObject((operation(method, path).responses as JsonObject)['401']), `${key} documents 401`);
    }
  });

  it('describes what the routes really answer: every status and body below matches the reference', async () => {
    const texts = [
      { type: 'text', title: 'Rotation', value: '# Rotation\n\nTokens rotate every 90 days.' },
      { type: 'text', title: 'Limits', value: '# Limits\n\nEach client may send sixty requests per minute.' },
    ];
    const v1 = (await assertDocumented(
      'post',
      '/tools/ingest',
      await request('post', '/tools/ingest', {
        body: { namespace: 'guide', sources: [...texts, { type: 'file' }] },
        headers: writer,
      }),
    )) as JsonObject;
    assert.equal((v1.errors as Json[]).length, 1, 'the bad source is reported, and checked against the reference');
    await assertDocumented(
      'post',
      '/tools/ingest',
      await request('post', '/tools/ingest', { body: { namespace: 'guide', sources: texts }, headers: writer }),
    );
    const progress = await request('post', '/tools/ingest?progress=ndjson', {
      body: { namespace: 'guide', sources: [{ type: 'text', title: 'Backups', value: 'Snapshots are taken nightly.' }, { type: 'url' }] },
      headers: writer,
    });
    assert.equal(((await assertDocumented('post', '/tools/ingest', progress)) as JsonObject).type, 'result');

    await assertDocumented(
      'post',
      '/api/tools/ingest',
      await request('post', '/api/tools/ingest', {
        body: {
          namespace: 'guide',
          sources: ['Plain text about quotas.', { type: 'markdown', value: '# Quotas\n\nTen per day.', title: 'Quotas' }, 42],
        },
        headers: writer,
      }),
    );
    const form = new FormData();
    form.append('namespace', 'guide');
    form.append('sources', JSON.stringify([{ type: 'text', value: 'Uploads are scanned.', title: 'Scanning' }]));
    form.append('file', new Blob(['# Upload\n\nUploaded files are stored as Markdown.'], { type: 'text/markdown' }), 'upload.md');
    await assertDocumented(
      'post',
      '/api/tools/ingest',
      await service.request('/api/tools/ingest', { method: 'POST', body: form, headers: writer }),
    );
    await assertDocumented(
      'post',
      '/api/tools/ingest/execute',
      await request('post', '/api/tools/ingest/execute?runId=run-1', {
        body: { data: { namespace: 'guide', sources: ['More text about quotas.'] } },
        headers: writer,
      }),
    );

    for (const mode of ['embedding', 'lexical', 'hybrid']) {
      await assertDocumented(
        'post',
        '/tools/search',
        await request('post', '/tools/search', { body: { namespace: 'guide', query: 'token rotation', mode }, headers: reader }),
      );
    }
    await assertDocumented(
      'post',
      '/api/tools/searchDocs',
      await request('post', '/api/tools/searchDocs', { body: { namespace: 'guide', query: 'quotas' }, headers: reader }),
    );
    await assertDocumented(
      'post',
      '/api/tools/searchDocs/execute',
      await request('post', '/api/tools/searchDocs/execute?runId=run-2', {
        body: { data: { namespace: 'guide', query: 'quotas', limit: 2 }, runtimeContext: {} },
        headers: reader,
      }),
    );
    provider.queueChat({ text: 'Tokens rotate every 90 days [1].' });
    await assertDocumented(
      'post',
      '/api/agents/knowledge/generate',
      await request('post', '/api/agents/knowledge/generate', {
        body: { messages: [{ role: 'user', content: 'How often do tokens rotate?' }], toolParams: { namespace: 'guide' } },
        headers: reader,
      }),
    );
    const stream = await request('post', '/agent', { body: { messages: [{ role: 'user', content: 'hello' }] }, headers: reader });
    assert.equal(stream.status, 200);
    assert.ok(
      mediaSchema(
        ((operation('post', '/agent').responses as JsonObject)['200'] as JsonObject).content,
        (stream.headers.get('content-type') ?? '').split(';')[0] ?? '',
      ),
    );
    await stream.text();

    await assertDocumented('get', '/health', await request('get', '/health'));
    for (const prefix of ['/tools', '/api']) {
      await assertDocumented('get', `${prefix}/namespaces`, await request('get', `${prefix}/namespaces`, { headers: reader }));
      await assertDocumented(
        'get',
        `${prefix}/documents`,
        await request('get', `${prefix}/documents?namespace=guide`, { headers: reader }),
      );
    }
    await assertDocumented(
      'delete',
      '/tools/documents',
      await request('delete', '/tools/documents?namespace=guide&file=rotation.md', { headers: writer }),
    );
    await assertDocumented(
      'delete',
      '/api/documents',
      await request('delete', '/api/documents', { body: { namespace: 'guide', source: 'Limits' }, headers: writer }),
    );
    await assertDocumented('delete', '/tools/namespaces/{name}', await request('delete', '/tools/namespaces/guide', { headers: writer }));

    // Failures: each status is documented for its route, with the error body.
    await assertDocumented(
      'post',
      '/tools/search',
      await request('post', '/tools/search', { body: { namespace: 'guide' }, headers: reader }),
    );
    await assertDocumented('post', '/tools/search', await request('post', '/tools/search', { body: { query: 'x' } }));
    await assertDocumented(
      'post',
      '/tools/search',
      await request('post', '/tools/search', {
        body: { namespace: 'guide', query: 'x' },
        headers: { 'x-api-key': 'narrow-token-for-tests' },
      }),
    );
    await assertDocumented(
      'post',
      '/tools/search',
      await service.request('/tools/search', { method: 'POST', headers: { 'content-type': 'text/csv', ...reader }, body: 'a,b' }),
    );
    await assertDocumented(
      'post',
      '/tools/search',
      await request('post', '/tools/search', { body: { namespace: '../..', query: 'x' }, headers: reader }),
    );
    await assertDocumented('get', '/api/documents', await request('get', '/api/documents?namespace=nothing-here', { headers: reader }));
    await assertDocumented(
      'delete',
      '/api/namespaces/{name}',
      await request('delete', '/api/namespaces/nothing-here', { headers: writer }),
    );
    await assertDocumented('delete', '/tools/documents', await request('delete', '/tools/documents?namespace=guide', { headers: writer }));
    await assertDocumented('post', '/agent', await request('post', '/agent', { body: { messages: 'not a list' }, headers: reader }));
    await assertDocumented('get', '/openapi.json', await request('get', '/openapi.json'));
    await assertDocumented('get', '/v1/models', await request('get', '/v1/models', { headers: reader }));
    await assertDocumented(
      'post',
      '/v1/chat/completions',
      await request('post', '/v1/chat/completions', {
        body: { model: 'knowledge/guide', messages: [{ role: 'user', content: 'rotation' }] },
        headers: reader,
      }),
    );
    await assertDocumented(
      'post',
      '/v1/chat/completions',
      await request('post', '/v1/chat/completions', {
        body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] },
        headers: reader,
      }),
    );
    await assertDocumented(
      'post',
      '/v1/chat/completions',
      await request('post', '/v1/chat/completions', { body: { model: 'knowledge/guide', messages: [] }, headers: reader }),
    );

    // /mcp: the transport's own answers are documented too: 406 without the Accept it needs, 202 for a notification.
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    await assertDocumented(
      'post',
      '/mcp',
      await request('post', '/mcp', { body: initialize, headers: { ...reader, accept: 'application/json' } }),
    );
    await assertDocumented(
      'post',
      '/mcp',
      await request('post', '/mcp', { body: initialize, headers: { ...reader, accept: 'application/json, text/event-stream' } }),
    );
    const notification = await request('post', '/mcp', {
      body: { jsonrpc: '2.0', method: 'notifications/initialized' },
      headers: { ...reader, accept: 'application/json, text/event-stream' },
    });
    assert.equal(notification.status, 202);
    assert.equal(await notification.text(), '');
    assert.ok(isObject((operation('post', '/mcp').responses as JsonObject)['202']));
  });

  it('serves /docs as HTML whose scripts and styles all come from this server, with no other host named', async () => {
    for (const page of ['/docs', '/docs/']) {
      const response = await service.get(page);
      assert.equal(response.status, 200, `${page} is public`);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      const policy = response.headers.get('content-security-policy') ?? '';
      assert.match(policy, /default-src 'self'/, 'the browser is told to load from this server only');
      assert.doesNotMatch(policy, /https?:|\*/);
      const html = await response.text();
      // In-process, requests name the host localhost (light-my-request's Host header): the page's address.
      const base = new URL(page, 'http://localhost');
      const references = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map(
        (match) => new URL(match[1] ?? '', base),
      );
      assert.ok(
        references.some((url) => url.pathname.endsWith('.js')) && references.some((url) => url.pathname.endsWith('.css')),
        `${page} loads scripts and styles`,
      );
      for (const url of references) {
        assert.equal(url.origin, base.origin, `${url.href} is served by this server`);
        const asset = await service.get(`${url.pathname}${url.search}`);
        assert.equal(asset.status, 200, `${url.pathname} is served`);
        assert.ok((await asset.arrayBuffer()).byteLength > 0);
      }
      for (const [address] of html.matchAll(/https?:\/\/[^\s"'<>)]+/g))
        assert.equal(new URL(address).origin, base.origin, `${page} names no other host (${address})`);
    }
    // The page's script loads the document from ./json next to it, with the online validator turned off.
    const initializer = await (await service.get('/docs/static/swagger-initializer.js')).text();
    assert.match(initializer, /resolveUrl\('\.\/json'\)/);
    assert.match(initializer, /validatorUrl: null/);
    assert.doesNotMatch(initializer.replace(/^\s*\/\/.*$/gm, ''), /https?:\/\//, 'no address outside comments');
    const fromPage = await service.get('/docs/json');
    assert.equal(fromPage.status, 200);
    assert.deepEqual(await fromPage.json(), document, 'the page shows the same document as /openapi.json');
  });
});
