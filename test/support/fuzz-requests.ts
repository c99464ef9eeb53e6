// fast-check arbitraries of whole HTTP requests for every route of the service: bodies shaped almost like valid
// ones, arbitrary JSON, raw text sent as JSON, wrong or missing content types, multipart forms, unknown routes.
import fc from 'fast-check';
import { encodeForm, type FormMalformation, type FormPart } from './multipart-body.js';
import {
  anyText, documentText, filePath, looseRecord, mostly, namespaceValue, scrubText, scrubValue, strangeValue, titleValue,
  toJsonText, urlValue, type FuzzTargets,
} from './fuzz-values.js';

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** The SSE format a streamed answer must have: known when the body is a JSON object sent to POST /agent. */
  readonly stream?: 'variant1' | 'ag-ui';
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

/** Printable ASCII only: what fetch lets through as a header value. */
const headerText = fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((text) => text.replace(/[\u0000-\u001f\u007f]/g, ''));

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
  fc.constantFrom('', '', '?', '?runId=r1', '?runId=a&runId=b', '?runId', '?%ZZ=1', '?runId=%ZZ', '?runId[]=x', '?__proto__[x]=1', '?constructor[prototype][x]=1', `?runId=${'x'.repeat(2_000)}`),
  anyText.map((text) => `?runId=${percentEncode(text)}`),
);

const jsonContentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON');
const wrongContentType = fc.oneof(
  fc.constantFrom(
    'text/plain', 'text/html', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data', 'multipart/form-data; boundary=x',
    'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/vnd.api+json', 'application/json-patch+json', '*/*',
    'application/octet-stream', 'text/event-stream', 'application/json, text/plain', ';', 'application/',
  ),
  headerText,
);

const brokenJsonText = fc.oneof(
  fc.constantFrom(
    'NaN', '{"a":1,}', '// comment\n{}', "{'a':1}", 'undefined', '{"sources": [', '{"query": "x"', '{"__proto__": {"polluted": true}}',
    '{"constructor": {"prototype": {"polluted": true}}}', '{"a":1}{"b":2}', '[]', '"string"', '42', 'null', 'true', '{}', '\u0000', '{"a":"\\ud800"}',
    '{"a":"\\u00"}', '{"a":01}', '{"a":.5}', '{"a":+1}', '{"a":Infinity}',
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
  if (!path.startsWith('/agent') || typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
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

// --- Bodies, route by route ---------------------------------------------------------------------------------

/** Nearly valid most of the time (required fields present), sometimes with any field missing, sometimes anything. */
function bodyOf(fields: Record<string, fc.Arbitrary<unknown>>, required: readonly string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 8, arbitrary: looseRecord(fields, required) },
    { weight: 2, arbitrary: looseRecord(fields) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: strangeValue },
  );
}

const countValue = mostly(fc.oneof(fc.nat({ max: 30 }), fc.integer({ min: -5, max: 1_000 }), fc.constantFrom(1e9, 2 ** 31, 20, 21, 0)));
const queryValue = mostly(fc.oneof(fc.lorem({ maxCount: 6 }), anyText, fc.constantFrom('x'.repeat(2_001), '   ', 'max_connections default')));

function variant1Source(targets: FuzzTargets): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ type: fc.constant('text'), value: documentText, title: titleValue }, { requiredKeys: ['type', 'value'] }) },
    { weight: 2, arbitrary: fc.record({ type: fc.constant('url'), value: urlValue(targets), title: titleValue }, { requiredKeys: ['type', 'value'] }) },
    { weight: 3, arbitrary: fc.record({ type: fc.constant('file'), path: filePath(targets), title: titleValue }, { requiredKeys: ['type', 'path'] }) },
    {
      weight: 2,
      arbitrary: looseRecord({
        type: mostly(fc.constantFrom('url', 'file', 'text', 'markdown', 'URL', '')),
        value: mostly(fc.oneof(documentText, urlValue(targets), filePath(targets))),
        path: mostly(filePath(targets)),
        title: titleValue,
      }),
    },
    { weight: 1, arbitrary: strangeValue },
  );
}

function variant2Source(targets: FuzzTargets): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: documentText },
    { weight: 2, arbitrary: urlValue(targets) },
    {
      weight: 4,
      arbitrary: looseRecord(
        { type: mostly(fc.constantFrom('url', 'markdown', 'text', 'file', '')), value: mostly(fc.oneof(documentText, urlValue(targets))), title: titleValue },
        ['type', 'value'],
      ),
    },
    { weight: 1, arbitrary: strangeValue },
  );
}

const sourceList = (source: fc.Arbitrary<unknown>) => mostly(fc.array(source, { maxLength: 5 }), 6);

export function variant1IngestBody(targets: FuzzTargets): fc.Arbitrary<unknown> {
  return bodyOf({ namespace: namespaceValue, sources: sourceList(variant1Source(targets)) }, ['sources']);
}

export function variant2IngestBody(targets: FuzzTargets): fc.Arbitrary<unknown> {
  return bodyOf({ namespace: namespaceValue, sources: sourceList(variant2Source(targets)) }, ['sources']);
}

export const variant1SearchBody = bodyOf({ namespace: namespaceValue, query: queryValue, top_k: countValue }, ['query']);
export const searchDocsBody = bodyOf({ namespace: namespaceValue, query: queryValue, limit: countValue }, ['query']);

/** Mastra's tool-execution envelope around a body. */
export function executeBody(data: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return bodyOf({ data: mostly(data, 6), runtimeContext: mostly(fc.dictionary(anyText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })) }, ['data']);
}

const messageText = fc
  .tuple(fc.constantFrom('@knowledge ', '@Knowledge ', '', 'hey @knowledge, ', 'mail@knowledge.example ', '@knowledgebase '), fc.oneof(fc.lorem({ maxCount: 8 }), anyText))
  .map(([mention, text]) => `${mention}${text}`);

const messageContent = mostly(
  fc.oneof(
    { weight: 4, arbitrary: messageText },
    { weight: 2, arbitrary: fc.array(looseRecord({ type: mostly(fc.constantFrom('text', 'image_url', 'input_text')), text: mostly(messageText), image_url: strangeValue }, ['type', 'text']), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', 'x'.repeat(9_000)) },
  ),
);

const toolCallList = fc.array(
  fc.record({ id: anyText, type: fc.constant('function'), function: fc.record({ name: anyText, arguments: mostly(fc.oneof(fc.constant('{}'), anyText)) }) }),
  { maxLength: 2 },
);

const roleValue = mostly(fc.constantFrom('user', 'user', 'user', 'assistant', 'system', 'tool', 'developer', 'function', ''));

const variant1Message = looseRecord(
  { role: roleValue, content: messageContent, tool_calls: mostly(toolCallList), tool_call_id: mostly(anyText), name: anyText },
  ['role', 'content'],
);

const agUiMessage = looseRecord(
  { id: mostly(fc.oneof(fc.uuid(), anyText)), role: roleValue, content: messageContent, toolCalls: mostly(toolCallList), toolCallId: mostly(anyText) },
  ['role', 'content'],
);

const platformTool = looseRecord(
  {
    name: mostly(fc.oneof(fc.constantFrom('lookup_ticket', 'get-weather', 'search_docs', 'searchDocs', 'a'.repeat(64), 'a'.repeat(65)), fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), anyText)),
    description: mostly(anyText),
    parameters: mostly(fc.oneof(fc.constant({ type: 'object', properties: {} }), fc.constant({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }), fc.jsonValue({ maxDepth: 2 }))),
  },
  ['name'],
);

const namespaceHolder = mostly(looseRecord({ namespace: namespaceValue }));
const messageList = (message: fc.Arbitrary<unknown>) => mostly(fc.array(message, { maxLength: 4 }), 6);

export const variant1AgentBody = bodyOf(
  { thread_id: mostly(anyText), run_id: mostly(anyText), messages: messageList(variant1Message), tool_params: namespaceHolder, tools: mostly(fc.array(platformTool, { maxLength: 3 })) },
  ['messages'],
);

export const agUiAgentBody = bodyOf(
  {
    threadId: mostly(fc.oneof(fc.uuid(), anyText)),
    runId: mostly(fc.oneof(fc.uuid(), anyText)),
    messages: messageList(agUiMessage),
    tools: mostly(fc.array(platformTool, { maxLength: 3 })),
    context: mostly(fc.array(looseRecord({ description: anyText, value: anyText }), { maxLength: 2 })),
    state: namespaceHolder,
    forwardedProps: namespaceHolder,
    toolParams: namespaceHolder,
  },
  ['threadId', 'runId', 'messages'],
);

export const generateBody = bodyOf(
  { messages: messageList(variant1Message), toolParams: namespaceHolder, threadId: mostly(anyText), resourceId: mostly(anyText), runtimeContext: strangeValue },
  ['messages'],
);

// --- Multipart uploads --------------------------------------------------------------------------------------

const uploadName = fc.oneof(
  fc.constantFrom(
    'doc.md', 'notes.markdown', 'a.txt', 'x.pdf', 'page.html', 'page.htm', 'data.json', 'image.png', '../../etc/passwd', '../../../tmp/evil.md', '',
    '.md', '.tmp-x.md', 'index.json', 'index.md', 'CON.md', 'a/b/c.md', 'a\\b.md', `${'x'.repeat(300)}.md`, 'no-extension', 'UPPER.MD', 'dots...md',
    'ünïcödé.md', '😀.txt', 'a"b.md', 'semi;colon.md', 'new\nline.md',
  ),
  fc.tuple(anyText, fc.constantFrom('.md', '.txt', '.pdf', '.html', '')).map(([name, extension]) => `${name}${extension}`),
);

const uploadType = fc.oneof(
  fc.constantFrom('text/markdown', 'text/plain', 'text/html', 'application/pdf', 'application/octet-stream', 'image/png', 'application/json', 'text/markdown; charset=utf-16', 'text/x-markdown', ''),
  headerText,
);

function uploadBytes(targets: FuzzTargets): fc.Arbitrary<Uint8Array> {
  const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
  return fc.oneof(
    { weight: 5, arbitrary: documentText.map(utf8) },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 300 }) },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(
          '%PDF-1.4\n%garbage\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF', '%PDF-',
          '<!doctype html><html><head><title>T</title><script>alert(1)</script></head><body><main><h1>Hello</h1><p>page body text</p></main></body></html>',
          '<html><body></body></html>', '', 'PK\u0003\u0004zipzip', '\ufeff# BOM markdown\n\ntext', '{"json": true}', '\u0000\u0000\u0000',
        )
        .map(utf8),
    },
    { weight: 1, arbitrary: fc.constant(new Uint8Array(targets.maxFileBytes + 1).fill(0x61)) },
  );
}

function formPart(targets: FuzzTargets): fc.Arbitrary<FormPart> {
  const fieldType = fc.option(fc.constantFrom('text/plain', 'application/json'), { nil: undefined });
  const sourcesText = fc.oneof(
    fc.array(variant2Source(targets), { maxLength: 4 }).map((sources) => toJsonText(scrubValue(sources, targets))),
    strangeValue.map((value) => toJsonText(scrubValue(value, targets))),
    anyText.map((text) => scrubText(text, targets)),
    fc.constantFrom('', '[', 'null', '[]', '   '),
  );
  const field = (name: fc.Arbitrary<string>, value: fc.Arbitrary<string>) =>
    fc.record({ name, value, contentType: fieldType }).map(({ contentType, ...part }) => (contentType === undefined ? part : { ...part, contentType }));
  const file = fc
    .record({ name: fc.oneof(fc.constantFrom('file', 'files', 'upload', 'namespace', 'sources'), anyText), fileName: uploadName, contentType: fc.option(uploadType, { nil: undefined }), value: uploadBytes(targets) })
    .map(({ contentType, ...part }) => (contentType === undefined ? part : { ...part, contentType }));
  return fc.oneof(
    { weight: 3, arbitrary: field(fc.constant('namespace'), fc.oneof(fc.constantFrom('docs', 'fuzz', 'uploads', '../..', ''), anyText)) },
    { weight: 3, arbitrary: field(fc.constant('sources'), sourcesText) },
    { weight: 1, arbitrary: field(anyText, anyText) },
    { weight: 5, arbitrary: file },
  );
}

const malformation: fc.Arbitrary<FormMalformation> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('none' as const) },
  { weight: 1, arbitrary: fc.constantFrom('unterminated', 'wrong-boundary', 'no-boundary', 'no-disposition', 'empty-body', 'garbage-prefix') },
);

export function multipartIngestRequest(targets: FuzzTargets): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      parts: fc.array(formPart(targets), { maxLength: 6 }),
      boundary: fc.oneof({ weight: 4, arbitrary: fc.constant('----fuzzBoundary7MA4YWxkTrZu0gW') }, { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9'()+_,.-]{1,70}$/) }),
      quoting: fc.constantFrom('browser', 'browser', 'raw'),
      malformation,
      query: queryString,
      headers: extraHeaders,
    })
    .map(({ parts, boundary, quoting, malformation: broken, query, headers }) => {
      if (process.env.FUZZ_EXPLORE) { quoting = 'browser'; if (broken === 'no-disposition') broken = 'none'; } // TEMP
      const form = encodeForm(parts, { boundary, quoting, malformation: broken });
      return described({ method: 'POST', path: `/api/tools/ingest${query}`, headers: { ...headers, 'content-type': form.contentType }, body: form.body });
    });
}

// --- /health and routes that do not exist -------------------------------------------------------------------

const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;

function withOptionalBody(method: string, path: string, headers: Record<string, string>, body: string | undefined, targets: FuzzTargets): FuzzRequest {
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
      body: fc.option(fc.oneof(fc.jsonValue({ maxDepth: 2 }).map((value) => toJsonText(value)), anyText), { nil: undefined }),
    })
    .map(({ method, path, query, headers, body }) => withOptionalBody(method, `${path}${query}`, headers, body, targets));
}

const pathSegment = fc.oneof(
  fc.webSegment(),
  anyText.map(percentEncode),
  fc.constantFrom('..', '.', '%2e%2e', '%ZZ', '%00', '%', 'tools', 'api', 'agent', 'health', 'search', 'ingest', 'execute', 'searchDocs', 'agents', 'knowledge', 'generate'),
);

export function unknownRouteRequest(targets: FuzzTargets): fc.Arbitrary<FuzzRequest> {
  const path = fc.oneof(
    fc.array(pathSegment, { minLength: 1, maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
    fc.constantFrom(
      '/', '/tools', '/tools/', '/tools/search/', '/TOOLS/SEARCH', '//tools/search', '/api', '/api/tools', '/api/tools/ingest/', '/api/tools/unknown/execute',
      '/api/agents/other/generate', '/agent/', '/agent/x', '/%2e%2e/%2e%2e/etc/passwd', '/%ZZ', '/%00', '/%', '/a%2fb', '/favicon.ico', '/.env',
      '/index.json', '/knowledge/docs/index.json', `/${'a'.repeat(4_000)}`,
    ),
  );
  return fc
    .record({
      method: fc.constantFrom(...methods),
      path,
      query: queryString,
      headers: extraHeaders,
      body: fc.option(fc.oneof(fc.jsonValue({ maxDepth: 2 }).map((value) => toJsonText(value)), anyText), { nil: undefined }),
    })
    .map(({ method, path: route, query, headers, body }) => withOptionalBody(method, `${route}${query}`, headers, body, targets));
}
