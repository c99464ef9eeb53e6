// The bodies fuzzed at each route: shaped almost like valid ones (required fields present, any field of any type),
// sometimes missing fields, sometimes any JSON at all; and the parts of multipart uploads.
import fc from 'fast-check';
import type { FormMalformation, FormPart } from './multipart-body.js';
import {
  anyText,
  documentText,
  filePath,
  headerText,
  looseRecord,
  mostly,
  namespaceValue,
  rawJsonValue,
  scrubText,
  scrubValue,
  strangeValue,
  titleValue,
  toJsonText,
  urlValue,
  type FuzzTargets,
} from './fuzz-values.js';

/** Nearly valid most of the time (required fields present), sometimes with any field missing, sometimes anything. */
export function bodyOf(fields: Record<string, fc.Arbitrary<unknown>>, required: readonly string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 8, arbitrary: looseRecord(fields, required) },
    { weight: 2, arbitrary: looseRecord(fields) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: strangeValue },
  );
}

const countValue = mostly(fc.oneof(fc.nat({ max: 30 }), fc.integer({ min: -5, max: 1_000 }), fc.constantFrom(1e9, 2 ** 31, 20, 21, 0)));
const queryValue = mostly(
  fc.oneof(fc.lorem({ maxCount: 6 }), anyText, fc.constantFrom('x'.repeat(2_001), '   ', 'max_connections default')),
);

/** Crawl settings of a URL source; the URLs all point at the closed port or are refused, so nothing is crawled. */
const crawlValue = mostly(
  looseRecord({
    maxPages: mostly(fc.integer({ min: -1, max: 1_001 })),
    maxDepth: mostly(fc.integer({ min: -1, max: 11 })),
    prune: mostly(fc.boolean()),
  }),
);

function variant1Source(targets: FuzzTargets): fc.Arbitrary<unknown> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({ type: fc.constant('text'), value: documentText, title: titleValue }, { requiredKeys: ['type', 'value'] }),
    },
    {
      weight: 2,
      arbitrary: fc.record(
        { type: fc.constant('url'), value: urlValue(targets), title: titleValue, crawl: crawlValue },
        { requiredKeys: ['type', 'value'] },
      ),
    },
    {
      weight: 3,
      arbitrary: fc.record({ type: fc.constant('file'), path: filePath(targets), title: titleValue }, { requiredKeys: ['type', 'path'] }),
    },
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
        {
          type: mostly(fc.constantFrom('url', 'markdown', 'text', 'file', '')),
          value: mostly(fc.oneof(documentText, urlValue(targets))),
          title: titleValue,
          crawl: crawlValue,
        },
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

const modeValue = mostly(fc.constantFrom('embedding', 'lexical', 'hybrid', 'EMBEDDING', 'vector', ''));

export const variant1SearchBody = bodyOf({ namespace: namespaceValue, query: queryValue, top_k: countValue, mode: modeValue }, ['query']);
export const searchDocsBody = bodyOf({ namespace: namespaceValue, query: queryValue, limit: countValue, mode: modeValue }, ['query']);

/** Mastra's tool-execution envelope around a body. */
export function executeBody(data: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return bodyOf({ data: mostly(data, 6), runtimeContext: mostly(fc.dictionary(anyText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })) }, [
    'data',
  ]);
}

const messageText = fc
  .tuple(
    fc.constantFrom('@knowledge ', '@Knowledge ', '', 'hey @knowledge, ', 'mail@knowledge.example ', '@knowledgebase '),
    fc.oneof(fc.lorem({ maxCount: 8 }), anyText),
  )
  .map(([mention, text]) => `${mention}${text}`);

const messageContent = mostly(
  fc.oneof(
    { weight: 4, arbitrary: messageText },
    {
      weight: 2,
      arbitrary: fc.array(
        looseRecord(
          { type: mostly(fc.constantFrom('text', 'image_url', 'input_text')), text: mostly(messageText), image_url: strangeValue },
          ['type', 'text'],
        ),
        { maxLength: 3 },
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', 'x'.repeat(9_000)) },
    { weight: 1, arbitrary: rawJsonValue },
  ),
);

const toolCallList = fc.array(
  fc.record({
    id: anyText,
    type: fc.constant('function'),
    function: fc.record({ name: anyText, arguments: mostly(fc.oneof(fc.constant('{}'), anyText, rawJsonValue)) }),
  }),
  { maxLength: 2 },
);

const roleValue = mostly(fc.constantFrom('user', 'user', 'user', 'assistant', 'system', 'tool', 'developer', 'function', ''));

const variant1Message = looseRecord(
  { role: roleValue, content: messageContent, tool_calls: mostly(toolCallList), tool_call_id: mostly(anyText), name: anyText },
  ['role', 'content'],
);

const agUiMessage = looseRecord(
  {
    id: mostly(fc.oneof(fc.uuid(), anyText)),
    role: roleValue,
    content: messageContent,
    toolCalls: mostly(toolCallList),
    toolCallId: mostly(anyText),
  },
  ['role', 'content'],
);

const platformTool = looseRecord(
  {
    name: mostly(
      fc.oneof(
        fc.constantFrom('lookup_ticket', 'get-weather', 'search_docs', 'searchDocs', 'a'.repeat(64), 'a'.repeat(65)),
        fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
        anyText,
      ),
    ),
    description: mostly(anyText),
    parameters: mostly(
      fc.oneof(
        fc.constant({ type: 'object', properties: {} }),
        fc.constant({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    ),
  },
  ['name'],
);

const namespaceHolder = mostly(looseRecord({ namespace: namespaceValue }));
const messageList = (message: fc.Arbitrary<unknown>) => mostly(fc.array(message, { maxLength: 4 }), 6);

export const variant1AgentBody = bodyOf(
  {
    thread_id: mostly(anyText),
    run_id: mostly(anyText),
    messages: messageList(variant1Message),
    tool_params: namespaceHolder,
    tools: mostly(fc.array(platformTool, { maxLength: 3 })),
  },
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
  {
    messages: messageList(variant1Message),
    toolParams: namespaceHolder,
    threadId: mostly(anyText),
    resourceId: mostly(anyText),
    runtimeContext: strangeValue,
    requestContext: namespaceHolder,
  },
  ['messages'],
);

/** OpenAI chat completions: the model names the namespace (`knowledge/<namespace>`). */
export const chatCompletionBody = bodyOf(
  {
    model: mostly(
      fc.oneof(
        fc.constantFrom('knowledge', 'knowledge/docs', 'knowledge/handmade', 'knowledge/', 'knowledge/../x', 'gpt-4o-mini'),
        namespaceValue.map((name) => `knowledge/${String(name)}`),
        anyText,
      ),
    ),
    messages: messageList(variant1Message),
    stream: mostly(fc.oneof(fc.boolean(), strangeValue)),
    tools: mostly(
      fc.array(
        fc.oneof(
          platformTool.map((tool) => ({ type: 'function', function: tool })),
          platformTool,
        ),
        { maxLength: 3 },
      ),
    ),
    temperature: mostly(fc.oneof(fc.double(), anyText)),
  },
  ['model', 'messages'],
);

// --- Parts of multipart uploads -----------------------------------------------------------------------------

const uploadName = fc.oneof(
  fc.constantFrom(
    'doc.md',
    'notes.markdown',
    'a.txt',
    'x.pdf',
    'page.html',
    'page.htm',
    'data.json',
    'image.png',
    '../../etc/passwd',
    '../../../tmp/evil.md',
    '',
    '.md',
    '.tmp-x.md',
    'index.json',
    'index.md',
    'CON.md',
    'a/b/c.md',
    'a\\b.md',
    `${'x'.repeat(300)}.md`,
    'no-extension',
    'UPPER.MD',
    'dots...md',
    'ünïcödé.md',
    '😀.txt',
    'a"b.md',
    'semi;colon.md',
    'new\nline.md',
    'carriage\rreturn.md',
    'tab\tname.txt',
  ),
  fc.tuple(anyText, fc.constantFrom('.md', '.txt', '.pdf', '.html', '')).map(([name, extension]) => `${name}${extension}`),
);

const uploadType = fc.oneof(
  fc.constantFrom(
    'text/markdown',
    'text/plain',
    'text/html',
    'application/pdf',
    'application/octet-stream',
    'image/png',
    'application/json',
    'text/markdown; charset=utf-16',
    'text/x-markdown',
    '',
  ),
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
          '%PDF-1.4\n%garbage\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF',
          '%PDF-',
          '<!doctype html><html><head><title>T</title><script>alert(1)</script></head><body><main><h1>Hello</h1><p>page body text</p></main></body></html>',
          '<html><body></body></html>',
          '',
          'PK\u0003\u0004zipzip',
          '\ufeff# BOM markdown\n\ntext',
          '{"json": true}',
          '\u0000\u0000\u0000',
        )
        .map(utf8),
    },
    // Past one stream buffer (16 kB), so a part the parser skips has to be drained.
    { weight: 2, arbitrary: fc.integer({ min: 16_500, max: 80_000 }).map((size) => new Uint8Array(size).fill(0x62)) },
    { weight: 1, arbitrary: fc.constant(new Uint8Array(targets.maxFileBytes + 1).fill(0x61)) },
  );
}

export function formPart(targets: FuzzTargets): fc.Arbitrary<FormPart> {
  const fieldType = fc.option(fc.constantFrom('text/plain', 'application/json'), { nil: undefined });
  const sourcesText = fc.oneof(
    fc.array(variant2Source(targets), { maxLength: 4 }).map((sources) => toJsonText(scrubValue(sources, targets))),
    strangeValue.map((value) => toJsonText(scrubValue(value, targets))),
    anyText.map((text) => scrubText(text, targets)),
    fc.constantFrom('', '[', 'null', '[]', '   '),
  );
  const field = (name: fc.Arbitrary<string>, value: fc.Arbitrary<string>) =>
    fc
      .record({ name, value, contentType: fieldType })
      .map(({ contentType, ...part }) => (contentType === undefined ? part : { ...part, contentType }));
  const file = fc
    .record({
      name: fc.oneof(fc.constantFrom('file', 'files', 'upload', 'namespace', 'sources'), anyText),
      fileName: uploadName,
      contentType: fc.option(uploadType, { nil: undefined }),
      value: uploadBytes(targets),
    })
    .map(({ contentType, ...part }) => (contentType === undefined ? part : { ...part, contentType }));
  return fc.oneof(
    { weight: 3, arbitrary: field(fc.constant('namespace'), fc.oneof(fc.constantFrom('docs', 'fuzz', 'uploads', '../..', ''), anyText)) },
    { weight: 3, arbitrary: field(fc.constant('sources'), sourcesText) },
    { weight: 1, arbitrary: field(anyText, anyText) },
    { weight: 5, arbitrary: file },
  );
}

export const formMalformation: fc.Arbitrary<FormMalformation> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('none' as const) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('unterminated', 'wrong-boundary', 'no-boundary', 'no-disposition', 'empty-body', 'garbage-prefix'),
  },
);
