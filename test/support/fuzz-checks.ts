// What every fuzzed response and the storage folder must satisfy: no 5xx, catalogue error bodies, no leaked
// internals or key, well-terminated streams, and namespace folders whose stored index matches their Markdown files.
import { readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { errorCatalogue, type ErrorCode } from '../../src/errors.js';
import type { FuzzRequest } from './fuzz-requests.js';
import { indexedFiles, readNamespaceFolder, readStoredIndex } from './namespace-folder.js';
import { parseSseData } from './sse.js';
import { questionLogFolder } from '../../src/store/folder/folder-question-log.js';

export interface FuzzResponse {
  readonly status: number;
  readonly headers: string;
  readonly contentType: string;
  readonly text: string;
}

/**
 * A request still open after this is hanging. Routes answer within milliseconds on a quiet machine, but a fuzzed file
 * named `.pdf` waits for a conversion process, which took over 5 s once on this 2-core machine under a busy host: the
 * bound only has to tell a hang from a slow answer.
 */
const responseTimeoutMs = 30_000;

export async function send(baseUrl: string, request: FuzzRequest): Promise<FuzzResponse> {
  let text: string;
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${request.path}`, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(responseTimeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const reason =
      (error as Error).name === 'TimeoutError' ? `no complete response within ${responseTimeoutMs} ms (the request hangs)` : String(error);
    throw new Error(`${request.method} ${request.path}: ${reason}`, { cause: error });
  }
  const headers = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
  return { status: response.status, headers, contentType: response.headers.get('content-type') ?? '', text };
}

/** Codes reported in the `errors` array of an ingest answer, never as the error of a whole request. */
const perSourceCodes = new Set<ErrorCode>([
  'source_invalid',
  'source_too_large',
  'unsupported_file_type',
  'file_not_found',
  'file_not_allowed',
  'url_not_allowed',
  'fetch_failed',
  'document_unreadable',
  'document_empty',
  'embedding_failed',
]);

function isCatalogued(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(errorCatalogue, code);
}

export interface LeakRules {
  /** Strings that must never appear in a response unless the request itself held them. */
  readonly secrets: readonly string[];
  /** Paths of the service's own files, which an error message must not reveal. */
  readonly internals: readonly string[];
}

/** A stack frame: `at name (/path/file.ts:12:34)` or `at /path/file.js:1:2`. */
const stackFrame = /\bat (?:[^\s()]+ )?\(?(?:file:\/\/)?\/[^\s():]+:\d+:\d+\)?/g;

function requestText(request: FuzzRequest): string {
  const body =
    request.body === undefined ? '' : typeof request.body === 'string' ? request.body : Buffer.from(request.body).toString('utf8');
  return `${request.path}\n${Object.values(request.headers).join('\n')}\n${body}`;
}

/** Secrets and stack frames anywhere; internal paths in error answers (a document may well mention node_modules). */
function leaks(request: FuzzRequest, response: FuzzResponse, rules: LeakRules): string[] {
  const sent = requestText(request);
  const received = `${response.headers}\n${response.text}`;
  const problems: string[] = [];
  for (const secret of rules.secrets) if (received.includes(secret)) problems.push('the provider key');
  if (response.status >= 400) {
    for (const internal of rules.internals)
      if (received.includes(internal) && !sent.includes(internal)) problems.push(`internal path ${JSON.stringify(internal)}`);
  }
  for (const frame of received.match(stackFrame) ?? []) if (!sent.includes(frame)) problems.push(`stack frame ${JSON.stringify(frame)}`);
  return problems;
}

/** Under /v1 errors have OpenAI's shape: the contract's code and message, plus `type` and `param`. */
function errorBodyProblem(status: number, text: string, openAi = false): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'the error body is not JSON';
  }
  const error = (body as { error?: unknown } | null)?.error as { code?: unknown; message?: unknown } | undefined;
  if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'error' || typeof error !== 'object' || error === null) {
    return 'the body is not {"error":{...}}';
  }
  const keys = openAi ? 'code,message,param,type' : 'code,message';
  if (Object.keys(error).sort().join() !== keys) return `error has keys ${Object.keys(error).join(',')}, not ${keys}`;
  if (typeof error.message !== 'string' || error.message === '') return 'error.message is not a non-empty string';
  if (!isCatalogued(error.code)) return `error.code ${JSON.stringify(error.code)} is not in the catalogue`;
  if (perSourceCodes.has(error.code)) return `error.code ${error.code} is a per-source code, not a request error`;
  if (error.code === 'rate_limited') return 'rate_limited although the rate limit is off';
  if (errorCatalogue[error.code].status !== status)
    return `error.code ${error.code} has status ${errorCatalogue[error.code].status} in the catalogue, not ${status}`;
  return undefined;
}

function streamedErrorProblem(code: unknown): string | undefined {
  if (!isCatalogued(code)) return `a streamed error has code ${JSON.stringify(code)}, not in the catalogue`;
  if (code === 'internal_error') return 'a streamed error is internal_error (an unexpected failure inside the run)';
  return undefined;
}

function variant1StreamProblem(text: string): string | undefined {
  if (!text.endsWith('data: [DONE]\n\n')) return 'the Variant 1 stream does not end with data: [DONE]';
  const frames = text.split('\n\n').filter((frame) => frame !== '');
  if (frames.slice(0, -1).includes('data: [DONE]')) return '[DONE] is sent more than once';
  for (const frame of frames.slice(0, -1)) {
    if (!frame.startsWith('data: ') || frame.includes('\n')) return `malformed frame ${JSON.stringify(frame.slice(0, 200))}`;
    let event: { type?: unknown; code?: unknown };
    try {
      event = JSON.parse(frame.slice('data: '.length)) as typeof event;
    } catch {
      return `frame is not JSON: ${JSON.stringify(frame.slice(0, 200))}`;
    }
    if (!['tool_call_start', 'tool_call_result', 'text_message', 'error'].includes(String(event.type)))
      return `unknown event type ${JSON.stringify(event.type)}`;
    if (event.type === 'error') {
      const problem = streamedErrorProblem(event.code);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/** OpenAI chat chunks or Mastra chunks: JSON frames, an error (if any) only last, then `data: [DONE]` once. */
function doneTerminatedStreamProblem(format: 'openai' | 'mastra', text: string): string | undefined {
  if (!text.endsWith('data: [DONE]\n\n')) return `the ${format} stream does not end with data: [DONE]`;
  const frames = text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .slice(0, -1);
  if (frames.includes('data: [DONE]')) return '[DONE] is sent more than once';
  for (const [index, frame] of frames.entries()) {
    if (!frame.startsWith('data: ') || frame.includes('\n')) return `malformed frame ${JSON.stringify(frame.slice(0, 200))}`;
    let chunk: { object?: unknown; type?: unknown; error?: { code?: unknown }; payload?: { error?: { code?: unknown } } };
    try {
      chunk = JSON.parse(frame.slice('data: '.length)) as typeof chunk;
    } catch {
      return `frame is not JSON: ${JSON.stringify(frame.slice(0, 200))}`;
    }
    const errorCode = format === 'openai' ? chunk.error?.code : chunk.type === 'error' ? chunk.payload?.error?.code : undefined;
    const isError = format === 'openai' ? chunk.error !== undefined : chunk.type === 'error';
    if (isError) {
      if (index !== frames.length - 1) return 'a chunk follows the error';
      const problem = streamedErrorProblem(errorCode);
      if (problem !== undefined) return problem;
    } else if (format === 'openai' ? chunk.object !== 'chat.completion.chunk' : typeof chunk.type !== 'string') {
      return `unexpected ${format} chunk ${JSON.stringify(frame.slice(0, 200))}`;
    }
  }
  return undefined;
}

function agUiStreamProblem(text: string): string | undefined {
  const events = parseSseData(text) as { type?: unknown; code?: unknown }[];
  const types = events.map((event) => event?.type);
  if (types[0] !== 'RUN_STARTED') return `the AG-UI stream starts with ${JSON.stringify(types[0])}, not RUN_STARTED`;
  const last = types.at(-1);
  if (last !== 'RUN_FINISHED' && last !== 'RUN_ERROR')
    return `the AG-UI stream ends with ${JSON.stringify(last)}, not RUN_FINISHED or RUN_ERROR`;
  if (types.slice(0, -1).some((type) => type === 'RUN_FINISHED' || type === 'RUN_ERROR'))
    return 'an event follows RUN_FINISHED or RUN_ERROR';
  if (last === 'RUN_ERROR') return streamedErrorProblem(events.at(-1)?.code);
  return undefined;
}

const namespacePattern = /^[A-Za-z0-9_-]{1,64}$/;

/** Light checks of a 200 JSON answer, by route. */
function successBodyProblem(request: FuzzRequest, text: string, storageRoot: string): string | undefined {
  let body: Record<string, any>;
  try {
    body = JSON.parse(text) as Record<string, any>;
  } catch {
    return 'the 2xx body is not JSON';
  }
  const route = request.path.split('?')[0] ?? '';
  if (route === '/health') return body.status === 'healthy' ? undefined : 'health is not healthy';
  if (route === '/v1/chat/completions') {
    return body.object === 'chat.completion' && typeof body.choices?.[0]?.message === 'object'
      ? undefined
      : 'chat completions answered without a chat.completion';
  }
  if (route === '/api/agents/knowledge/generate') {
    return typeof body.text === 'string' && Array.isArray(body.sources) && Array.isArray(body.toolCalls)
      ? undefined
      : 'generate answered without text, sources and toolCalls';
  }
  // Mastra's listings and the OpenAI model list: maps and lists without a namespace of their own.
  if (['/api/tools', '/api/agents', '/api/agents/knowledge', '/v1/models'].includes(route)) {
    return typeof body === 'object' && body !== null && !Array.isArray(body)
      ? undefined
      : `${route} answered something other than an object`;
  }
  if (route.endsWith('/namespaces')) {
    const names: unknown[] = Array.isArray(body.namespaces) ? body.namespaces.map((entry: { name?: unknown }) => entry?.name) : [undefined];
    return names.every((name) => typeof name === 'string' && namespacePattern.test(name))
      ? undefined
      : 'namespaces lists a name that is not sanitized';
  }
  if (typeof body.namespace !== 'string' || !namespacePattern.test(body.namespace))
    return `namespace ${JSON.stringify(body.namespace)} is not a sanitized name`;
  if (route === '/tools/ingest' || route.startsWith('/api/tools/ingest')) {
    for (const error of body.errors ?? []) {
      if (!isCatalogued(error?.code) || error.code === 'internal_error')
        return `a per-source error has code ${JSON.stringify(error?.code)}`;
      if (typeof error.error !== 'string' || error.error === '') return 'a per-source error has no message';
    }
  }
  if (route === '/tools/ingest') {
    for (const document of body.documents ?? []) {
      const path = String(document?.path);
      if (!path.startsWith(`${storageRoot}${sep}${body.namespace}${sep}`) || !path.endsWith('.md') || path.includes(`${sep}..`))
        return `document path ${JSON.stringify(path)} is not a .md file of the namespace`;
    }
  }
  if (route.startsWith('/api/tools/ingest')) {
    for (const file of body.files ?? []) {
      if (!/^[^/\\.][^/\\]*\.md$/.test(String(file?.file))) return `file ${JSON.stringify(file?.file)} is not a plain .md file name`;
    }
  }
  if (route === '/tools/search' && !(Array.isArray(body.matches) && body.matches.length <= 20))
    return 'matches is not an array of at most 20';
  if (route.startsWith('/api/tools/searchDocs') && !(Array.isArray(body.results) && body.results.length <= 20))
    return 'results is not an array of at most 20';
  return undefined;
}

/**
 * The web playground (src/routes/playground-route.ts): its page at / and its built files are the only 2xx answers
 * that are not JSON. The path is read as fetch sends it, with dot segments resolved (`/health/..` is `/`).
 */
function isPlaygroundFile(request: FuzzRequest, response: FuzzResponse): boolean {
  const path = new URL(`http://playground.invalid${request.path}`).pathname;
  const file = path === '/' || /^\/[\w-]+\.(html|js|css|svg)$/.test(path);
  return file && /^(text\/html|text\/css|text\/javascript|application\/javascript|image\/svg\+xml)\b/.test(response.contentType);
}

/** Every problem of one exchange; empty when the response is acceptable. */
export function responseProblems(request: FuzzRequest, response: FuzzResponse, rules: LeakRules, storageRoot: string): string[] {
  const problems = leaks(request, response, rules).map((leak) => `the response leaks ${leak}`);
  const isStream = response.contentType.startsWith('text/event-stream');
  if (response.status >= 500) problems.push(`status ${response.status}`);
  if (response.status === 405 && !/^allow: \S/m.test(response.headers)) problems.push('a 405 without an Allow header');
  if (request.method === 'HEAD') return problems;
  if (response.status >= 400) {
    if (!response.contentType.startsWith('application/json'))
      problems.push(`a ${response.status} has content type ${JSON.stringify(response.contentType)}`);
    const problem = errorBodyProblem(response.status, response.text, request.path.startsWith('/v1/'));
    if (problem !== undefined) problems.push(problem);
    return problems;
  }
  if (response.status < 200 || response.status >= 300) {
    problems.push(`unexpected status ${response.status}`);
    return problems;
  }
  if (isStream) {
    const format = request.stream ?? (response.text.includes('"RUN_STARTED"') ? 'ag-ui' : 'variant1');
    const problem =
      format === 'ag-ui'
        ? agUiStreamProblem(response.text)
        : format === 'openai' || format === 'mastra'
          ? doneTerminatedStreamProblem(format, response.text)
          : variant1StreamProblem(response.text);
    if (problem !== undefined) problems.push(problem);
    return problems;
  }
  if (request.stream !== undefined) problems.push(`expected a ${request.stream} stream, got ${JSON.stringify(response.contentType)}`);
  if (isPlaygroundFile(request, response)) return problems;
  const problem = successBodyProblem(request, response.text, storageRoot);
  if (problem !== undefined) problems.push(problem);
  return problems;
}

/** Every path under `directory`; a folder removed meanwhile is simply not listed. */
async function* walk(directory: string): AsyncGenerator<string> {
  for (const entry of await readdir(directory, { withFileTypes: true }).catch(() => [])) {
    const path = join(directory, entry.name);
    yield path;
    if (entry.isDirectory()) yield* walk(path);
  }
}

async function temporaryFiles(storageRoot: string): Promise<string[]> {
  const found: string[] = [];
  for await (const path of walk(storageRoot)) if (path.split(sep).pop()?.startsWith('.tmp-')) found.push(path);
  return found;
}

/**
 * Leftover temporary files, and namespace folders whose stored index does not load or does not list exactly their
 * .md files. A snapshot may be being written when this runs, so a temporary file counts as left behind only when it
 * is still there after a quiet second.
 */
export async function storageProblems(storageRoot: string, onlyNamespace?: string): Promise<string[]> {
  const problems: string[] = [];
  let leftovers = await temporaryFiles(storageRoot);
  for (let wait = 0; wait < 10 && leftovers.length > 0; wait++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    leftovers = await temporaryFiles(storageRoot);
  }
  for (const path of leftovers) problems.push(`temporary file left behind: ${path}`);
  for (const entry of await readdir(storageRoot, { withFileTypes: true })) {
    if (!entry.isDirectory() || (onlyNamespace !== undefined && entry.name !== onlyNamespace)) continue;
    const folder = join(storageRoot, entry.name);
    const contents = await readdir(folder, { withFileTypes: true });
    const markdown = contents
      .filter((item) => item.isFile() && item.name.endsWith('.md'))
      .map((item) => item.name)
      .sort();
    // The question log's folder is the only one a namespace folder holds.
    for (const item of contents)
      if (item.isDirectory() && item.name !== questionLogFolder) problems.push(`${entry.name}: unexpected folder ${item.name}`);
    if (!(await readNamespaceFolder(folder)).hasIndexFiles) {
      if (markdown.length > 0) problems.push(`${entry.name}: ${markdown.length} .md files but no index files`);
      continue;
    }
    let listed: string[];
    try {
      listed = indexedFiles(await readStoredIndex(folder));
    } catch (error) {
      problems.push(`${entry.name}: the stored index does not load (${(error as Error).message})`);
      continue;
    }
    if (listed.join('\n') !== markdown.join('\n')) {
      problems.push(`${entry.name}: the stored index lists [${listed.join(', ')}] but the folder holds [${markdown.join(', ')}]`);
    }
  }
  return problems;
}
