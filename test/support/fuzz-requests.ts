// fast-check arbitraries of whole HTTP requests: a body put on the wire as JSON, truncated or decorated JSON, raw
// text, a wrong or missing content type, or no body; multipart forms; listing and deleting; /health; unknown routes.
import fc from 'fast-check';
import { bodyOf, formMalformation, formPart } from './fuzz-bodies.js';
import { encodeForm } from './multipart-body.js';
import {
  anyText,
  headerText,
  looseRecord,
  mostly,
  namespaceValue,
  scrubText,
  scrubValue,
  toJsonText,
  urlValue,
  type FuzzTargets,
} from './fuzz-values.js';

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** The SSE format a streamed answer must have: known when the body is a JSON object sent to POST /agent. */
  readonly stream?: 'variant1' | 'ag-ui' | 'openai' | 'mastra';
}

/** Counterexamples print the request, with long bodies cut, instead of hundreds of kilobytes. */
function described(request: FuzzRequest): FuzzRequest {
  const text = (body: string | Uint8Array | undefined) => {
    if (body === undefined) return 'no body';
    const asText = typeof body === 'string' ? body : `<${body.length} bytes> ${Buffer.from(body).toString('latin1')}`;
    return asText.length > 1_500 ? `${JSON.stringify(asText.slice(0, 1_500))}… (${asText.length} characters)` : JSON.stringify(asText);
  };
  return Object.assign(request, {
    [fc.toStringMethod]: () => `${request.method} ${JSON.stringify(request.path)} ${JSON.stringify(request.headers)} ${text(request.body)}`,
  });
}

/** Bytes as %XX escapes: safe in any URL, whatever the text holds (lone surrogates become U+FFFD). */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('');
}

const extraHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      'x-request-id': fc.oneof(headerText, fc.constantFrom('../../etc', '<script>', 'a'.repeat(200))),
      authorization: fc.oneof(headerText, fc.constant('Bearer ')),
      accept: fc.constantFrom('*/*', 'text/event-stream', 'application/json', 'text/html', ''),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity', 'x'),
    },
    { requiredKeys: [] },
  )
  .map((headers) => ({ ...headers }));

export const queryString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '',
    '?',
    '?runId=r1',
    '?runId=a&runId=b',
    '?runId',
    '?%ZZ=1',
    '?runId=%ZZ',
    '?runId[]=x',
    '?__proto__[x]=1',
    '?constructor[prototype][x]=1',
    `?runId=${'x'.repeat(2_000)}`,
  ),
  anyText.map((text) => `?runId=${percentEncode(text)}`),
);

const jsonContentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'Application/JSON',
);
const wrongContentType = fc.oneof(
  fc.constantFrom(
    'text/plain',
    'text/html',
    'application/xml',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'application/vnd.api+json',
    'application/json-patch+json',
    '*/*',
    'application/octet-stream',
    'text/event-stream',
    'application/json, text/plain',
    ';',
    'application/',
  ),
  headerText,
);

const brokenJsonText = fc.oneof(
  fc.constantFrom(
    'NaN',
    '{"a":1,}',
    '// comment\n{}',
    "{'a':1}",
    'undefined',
    '{"sources": [',
    '{"query": "x"',
    '{"__proto__": {"polluted": true}}',
    '{"constructor": {"prototype": {"polluted": true}}}',
    '{"a":1}{"b":2}',
    '[]',
    '"string"',
    '42',
    'null',
    'true',
    '{}',
    '\u0000',
    '{"a":"\\ud800"}',
    '{"a":"\\u00"}',
    '{"a":01}',
    '{"a":.5}',
    '{"a":+1}',
    '{"a":Infinity}',
  ),
  anyText,
);

/** How the value is put on the wire. */
type BodyForm =
  | { readonly form: 'json'; readonly contentType: string }
  | { readonly form: 'truncated'; readonly at: number; readonly contentType: string }
  | { readonly form: 'decorated'; readonly prefix: string; readonly suffix: string; readonly contentType: string }
  | { readonly form: 'text'; readonly text: string; readonly contentType: string }
  | { readonly form: 'wrong-type'; readonly contentType: string }
  | { readonly form: 'no-type' }
  | { readonly form: 'empty'; readonly contentType: string | undefined };

const bodyForm: fc.Arbitrary<BodyForm> = fc.oneof(
  { weight: 12, arbitrary: jsonContentType.map((contentType) => ({ form: 'json', contentType }) as const) },
  { weight: 1, arbitrary: fc.record({ form: fc.constant('truncated' as const), at: fc.nat(), contentType: jsonContentType }) },
  {
    weight: 1,
    arbitrary: fc.record({
      form: fc.constant('decorated' as const),
      prefix: fc.constantFrom('\ufeff', ' \n\t', '', 'x', ")]}'\n"),
      suffix: fc.constantFrom('', ',', '}', ' garbage', '\u0000', '\n{"a":1}', '   '),
      contentType: jsonContentType,
    }),
  },
  { weight: 1, arbitrary: fc.record({ form: fc.constant('text' as const), text: brokenJsonText, contentType: jsonContentType }) },
  { weight: 2, arbitrary: fc.record({ form: fc.constant('wrong-type' as const), contentType: wrongContentType }) },
  { weight: 1, arbitrary: fc.constant({ form: 'no-type' } as const) },
  { weight: 1, arbitrary: fc.record({ form: fc.constant('empty' as const), contentType: fc.option(jsonContentType, { nil: undefined }) }) },
);

function streamFormat(path: string, value: unknown): FuzzRequest['stream'] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (path === '/api/agents/knowledge/stream') return 'mastra';
  if (path === '/v1/chat/completions') return (value as { stream?: unknown }).stream === true ? 'openai' : undefined;
  if (!path.startsWith('/agent')) return undefined;
  return 'threadId' in value || 'runId' in value ? 'ag-ui' : 'variant1';
}

/** POST requests carrying `body` (scrubbed of URLs) in every form. */
export function jsonRequest(targets: FuzzTargets, path: fc.Arbitrary<string>, body: fc.Arbitrary<unknown>): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(path, body, bodyForm, extraHeaders).map(([route, rawValue, form, headers]) => {
    const value = scrubValue(rawValue, targets);
    const json = toJsonText(value);
    const request = (body: string | Uint8Array | undefined, contentType: string | undefined, stream?: FuzzRequest['stream']): FuzzRequest =>
      described({
        method: 'POST',
        path: route,
        headers: { ...headers, ...(contentType === undefined ? {} : { 'content-type': contentType }) },
        ...(body === undefined ? {} : { body }),
        ...(stream === undefined ? {} : { stream }),
      });
    switch (form.form) {
      case 'json':
        return request(json, form.contentType, streamFormat(route, value));
      case 'truncated':
        return request(json.slice(0, form.at % (json.length + 1)), form.contentType);
      case 'decorated':
        return request(`${form.prefix}${json}${form.suffix}`, form.contentType);
      case 'text':
        return request(scrubText(form.text, targets), form.contentType);
      case 'wrong-type':
        return request(json, form.contentType);
      case 'no-type':
        // A byte body gets no default content type from fetch.
        return request(new Uint8Array(Buffer.from(json)), undefined);
      case 'empty':
        return request(form.contentType === undefined ? undefined : '', form.contentType);
    }
  });
}

export function multipartIngestRequest(targets: FuzzTargets): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      parts: fc.array(formPart(targets), { maxLength: 6 }),
      boundary: fc.oneof(
        { weight: 4, arbitrary: fc.constant('----fuzzBoundary7MA4YWxkTrZu0gW') },
        { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9'()+_,.-]{1,70}$/) },
      ),
      quoting: fc.constantFrom('browser', 'browser', 'raw'),
      malformation: formMalformation,
      query: queryString,
      headers: extraHeaders,
    })
    .map(({ parts, boundary, quoting, malformation: broken, query, headers }) => {
      const form = encodeForm(parts, { boundary, quoting, malformation: broken });
      return described({
        method: 'POST',
        path: `/api/tools/ingest${query}`,
        headers: { ...headers, 'content-type': form.contentType },
        body: form.body,
      });
    });
}

// --- Listing and deleting (under /tools and /api) ------------------------------------------------------------

const fileNameValue = mostly(
  fc.oneof(
    fc.constantFrom('notes.md', 'by-hand.md', 'index.json', '../index.json', '../../etc/passwd', '.tmp-x.md', 'a.md', '', 'x'.repeat(301)),
    anyText,
  ),
);
const sourceValue = (targets: FuzzTargets) =>
  mostly(fc.oneof(fc.constantFrom('text', '', `${targets.filesRoot}/notes.md`), urlValue(targets), anyText));

/** GET namespaces and documents, DELETE documents (JSON body or query) and namespaces: random names, fields and forms. */
export function catalogRequest(targets: FuzzTargets): fc.Arbitrary<FuzzRequest> {
  const prefix = fc.constantFrom('/tools', '/api');
  const deleteFields = { namespace: namespaceValue, file: fileNameValue, source: sourceValue(targets) };
  const asQuery = (value: unknown) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? `?${Object.entries(value)
          .map(([key, item]) => `${percentEncode(key)}=${percentEncode(typeof item === 'string' ? item : toJsonText(item))}`)
          .join('&')}`
      : '';
  return fc.oneof(
    fc
      .tuple(prefix, queryString, extraHeaders)
      .map(([root, query, headers]) => described({ method: 'GET', path: `${root}/namespaces${query}`, headers })),
    fc.tuple(prefix, fc.option(namespaceValue, { nil: undefined }), extraHeaders).map(([root, namespace, headers]) =>
      described({
        method: 'GET',
        path: `${root}/documents${namespace === undefined ? '' : `?namespace=${percentEncode(typeof namespace === 'string' ? namespace : toJsonText(namespace))}`}`,
        headers,
      }),
    ),
    fc
      .tuple(prefix, jsonRequest(targets, fc.constant(''), bodyOf(deleteFields, [])))
      .map(([root, request]) => described({ ...request, method: 'DELETE', path: `${root}/documents` })),
    fc
      .tuple(prefix, looseRecord(deleteFields), extraHeaders)
      .map(([root, fields, headers]) =>
        described({ method: 'DELETE', path: `${root}/documents${asQuery(scrubValue(fields, targets))}`, headers }),
      ),
    fc
      .tuple(
        prefix,
        fc.oneof(fc.constantFrom('fuzz-b', 'nope', '..', '%2e%2e', '%2F', '.', 'x'.repeat(300)), anyText.map(percentEncode)),
        extraHeaders,
      )
      .map(([root, name, headers]) => described({ method: 'DELETE', path: `${root}/namespaces/${name}`, headers })),
  );
}

// --- /health and routes that do not exist -------------------------------------------------------------------

const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;

function withOptionalBody(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
  targets: FuzzTargets,
): FuzzRequest {
  const hasBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
  return described({
    method,
    path,
    headers: hasBody ? { ...headers, 'content-type': 'application/json' } : headers,
    ...(hasBody ? { body: scrubText(body, targets) } : {}),
  });
}

export function healthRequest(targets: FuzzTargets): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('GET', 'HEAD') }, { weight: 1, arbitrary: fc.constantFrom(...methods) }),
      path: fc.constantFrom('/health', '/health', '/health/', '/Health', '/health%00', '/health/..', '//health'),
      query: queryString,
      headers: extraHeaders,
      body: fc.option(
        fc.oneof(
          fc.jsonValue({ maxDepth: 2 }).map((value) => toJsonText(value)),
          anyText,
        ),
        { nil: undefined },
      ),
    })
    .map(({ method, path, query, headers, body }) => withOptionalBody(method, `${path}${query}`, headers, body, targets));
}

const pathSegment = fc.oneof(
  fc.webSegment(),
  anyText.map(percentEncode),
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '%ZZ',
    '%00',
    '%',
    'tools',
    'api',
    'agent',
    'health',
    'search',
    'ingest',
    'execute',
    'searchDocs',
    'agents',
    'knowledge',
    'generate',
  ),
);

export function unknownRouteRequest(targets: FuzzTargets): fc.Arbitrary<FuzzRequest> {
  const path = fc.oneof(
    fc.array(pathSegment, { minLength: 1, maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
    fc.constantFrom(
      '/',
      '/tools',
      '/tools/',
      '/tools/search/',
      '/TOOLS/SEARCH',
      '//tools/search',
      '/api',
      '/api/tools',
      '/api/tools/ingest/',
      '/api/tools/unknown/execute',
      '/api/agents/other/generate',
      '/agent/',
      '/agent/x',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/%ZZ',
      '/%00',
      '/%',
      '/a%2fb',
      '/favicon.ico',
      '/.env',
      '/index.json',
      '/knowledge/docs/index.json',
      `/${'a'.repeat(4_000)}`,
    ),
  );
  return fc
    .record({
      method: fc.constantFrom(...methods),
      path,
      query: queryString,
      headers: extraHeaders,
      body: fc.option(
        fc.oneof(
          fc.jsonValue({ maxDepth: 2 }).map((value) => toJsonText(value)),
          anyText,
        ),
        { nil: undefined },
      ),
    })
    .map(({ method, path: route, query, headers, body }) => withOptionalBody(method, `${route}${query}`, headers, body, targets));
}
