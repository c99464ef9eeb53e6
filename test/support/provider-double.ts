// Loopback HTTP test double of an OpenAI-compatible provider (embeddings, chat completions, models, rerank) with
// scriptable answers.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { finalizeHash, fnv1a } from './feature-hashing.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface ChatToolCallScript {
  id?: string;
  name: string;
  /** JSON text, streamed in several fragments. */
  arguments: string;
}

export interface ChatScript {
  /** Answer this HTTP status with an OpenAI-style error body instead of a completion. */
  status?: number;
  errorMessage?: string;
  /** Content deltas; a single string is split into deltas of a few characters. */
  text?: string | string[];
  toolCalls?: ChatToolCallScript[];
  /** Destroy the socket after this many SSE chunks, without `[DONE]`; ignored when the request does not stream. */
  breakAfterChunks?: number;
  /** Wait between chunks (milliseconds); a non-streaming answer waits once before answering. */
  delayMs?: number;
}

/**
 * How `/v1/rerank` answers (the shape llama.cpp's server, vLLM, Jina and Cohere share): by default each document is
 * scored by the share of the query's words it holds, results best first, `top_n` of them, under `relevance_score`.
 */
export interface RerankScript {
  /** Scores one document for the query, deterministically (e.g. by a term the test chose). */
  score?: (query: string, document: string) => number;
  /** Answer this HTTP status with an error body instead of scores. */
  status?: number;
  /** Answer 200 with a body that is not JSON, JSON without `results`, results without scores, or 5 MB of padding. */
  malformed?: 'not-json' | 'no-results' | 'no-scores' | 'oversized';
  /** Wait this long (milliseconds) before answering. */
  delayMs?: number;
  /** The field the score travels in (`score` as some servers name it). */
  scoreField?: 'relevance_score' | 'score';
  /** Results best first (as servers send them), in the documents' order, or worst first. */
  order?: 'best-first' | 'document' | 'worst-first';
}

export interface ProviderDouble {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  chatRequests(): RecordedRequest[];
  embeddingRequests(): RecordedRequest[];
  rerankRequests(): RecordedRequest[];
  /** How the rerank endpoint answers from now on; null restores the default. */
  setRerank(script: RerankScript | null): void;
  /** Queue scripts for the next chat completions, consumed in order; when the queue is empty `defaultChat` answers. */
  queueChat(...scripts: ChatScript[]): void;
  /** Or compute the script from the request body (takes precedence over the default, not over the queue). */
  setChatHandler(handler: ((body: any) => ChatScript) | null): void;
  /** Fail the next `count` embedding requests with `status` (e.g. 429 or 500), then behave normally. */
  failEmbeddings(count: number, status: number, options?: { retryAfterMs?: number }): void;
  /** Fail every embedding request with `status` (a provider that is down) until called with null. */
  setEmbeddingsDown(status: number | null): void;
  /** Number of chat streams whose client went away before the stream ended. */
  readonly abortedChatStreams: number;
  /** Resolves once `abortedChatStreams` reaches `count`; the server only notices a disconnect asynchronously. */
  waitForAbortedChatStreams(count: number, timeoutMs?: number): Promise<void>;
  readonly embeddingDimensions: number;
  /** Embedding requests received and not yet answered, now and at most so far (for concurrency checks). */
  readonly embeddingRequestsInFlight: number;
  readonly maxEmbeddingRequestsInFlight: number;
  close(): Promise<void>;
}

export interface ProviderDoubleOptions {
  embeddingDimensions?: number;
  requiredApiKey?: string;
  /** Answers embeddings with this function instead of the built-in hashing (a requested `dimensions` is then ignored). */
  embed?: (text: string) => ArrayLike<number>;
  /** Wait this long (milliseconds) before answering each embeddings request, like a remote provider. */
  embeddingDelayMs?: number;
  /**
   * Serve embeddings only for these models; any other is a 404 as Ollama answers it (`model "x" not found`).
   * An empty list is a local server that serves only chat.
   */
  embeddingModels?: readonly string[];
  /** False: requests are answered but not kept (a benchmark sending a million texts); `requests()` stays empty. */
  keepRequests?: boolean;
}

interface EmbeddingFailure {
  status: number;
  retryAfterMs: number;
}

const textDeltaLength = 4;
const argumentsFragmentLength = 8;
const modelList = ['gpt-4o-mini', 'text-embedding-3-small'];

export async function startProviderDouble(options: ProviderDoubleOptions = {}): Promise<ProviderDouble> {
  const embeddingDimensions = options.embeddingDimensions ?? 64;
  const requests: RecordedRequest[] = [];
  const chatQueue: ChatScript[] = [];
  const embeddingFailures: EmbeddingFailure[] = [];
  let chatHandler: ((body: any) => ChatScript) | null = null;
  let abortedChatStreams = 0;
  let completionCounter = 0;
  let embeddingRequestsInFlight = 0;
  let maxEmbeddingRequestsInFlight = 0;
  let embeddingsDownStatus: number | null = null;
  let rerankScript: RerankScript = {};

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? 'GET';
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const rawBody = await readBody(request);
    const body = parseBody(rawBody);
    if (options.keepRequests !== false)
      requests.push({ method, path, headers: { ...request.headers }, body: body === invalidJson ? rawBody : body });

    if (options.requiredApiKey !== undefined && request.headers.authorization !== `Bearer ${options.requiredApiKey}`) {
      sendError(response, 401, unauthorizedMessage(request.headers.authorization), { code: 'invalid_api_key' });
      return;
    }
    if (body === invalidJson) {
      sendError(response, 400, 'We could not parse the JSON body of your request.');
      return;
    }
    const route = `${method} ${path}`;
    if (route === 'GET /v1/models') {
      sendJson(response, 200, {
        object: 'list',
        data: modelList.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'provider-double' })),
      });
    } else if (route === 'POST /v1/embeddings' && options.embeddingModels !== undefined && !options.embeddingModels.includes(body?.model)) {
      sendError(response, 404, `model "${String(body?.model)}" not found, try pulling it first`, { code: 'model_not_found' });
    } else if (route === 'POST /v1/embeddings') {
      if (options.embeddingDelayMs !== undefined && options.embeddingDelayMs > 0) await sleep(options.embeddingDelayMs);
      answerEmbeddings(response, body);
    } else if (route === 'POST /v1/chat/completions') {
      await answerChat(response, body);
    } else if (route === 'POST /v1/rerank') {
      await answerRerank(response, body, rerankScript);
    } else {
      sendError(response, 404, `Invalid URL (${method} ${path})`);
    }
  }

  function answerEmbeddings(response: ServerResponse, body: any): void {
    const failure = embeddingsDownStatus === null ? embeddingFailures.shift() : { status: embeddingsDownStatus, retryAfterMs: 1 };
    if (failure) {
      sendError(response, failure.status, `Scripted embeddings failure (${failure.status}).`, {
        headers: isRetryable(failure.status) ? { 'retry-after-ms': String(failure.retryAfterMs) } : {},
      });
      return;
    }
    if (typeof body?.model !== 'string') return sendError(response, 400, 'you must provide a model parameter');
    const inputs: unknown[] = Array.isArray(body.input) ? body.input : [body.input];
    if (inputs.length === 0 || !inputs.every((input) => typeof input === 'string' && input.length > 0)) {
      return sendError(response, 400, "'$.input' is invalid. Please check the API reference.", { param: 'input' });
    }
    // Like text-embedding-3 models, honour a requested `dimensions`.
    const dimensions = Number.isInteger(body.dimensions) && body.dimensions > 0 ? body.dimensions : embeddingDimensions;
    const texts = inputs as string[];
    const tokenCount = texts.reduce((total, text) => total + Math.max(1, wordsOf(text).length), 0);
    sendJson(response, 200, {
      object: 'list',
      data: texts.map((text, index) => {
        const vector = options.embed === undefined ? embedText(text, dimensions) : Float32Array.from(options.embed(text));
        return {
          object: 'embedding',
          index,
          embedding: body.encoding_format === 'base64' ? float32ToBase64(vector) : Array.from(vector),
        };
      }),
      model: body.model,
      usage: { prompt_tokens: tokenCount, total_tokens: tokenCount },
    });
  }

  async function answerChat(response: ServerResponse, body: any): Promise<void> {
    if (typeof body?.model !== 'string') return sendError(response, 400, 'you must provide a model parameter');
    if (!Array.isArray(body.messages)) {
      return sendError(response, 400, "'messages' is a required property", { param: 'messages' });
    }
    const script = chatQueue.shift() ?? (chatHandler ? chatHandler(body) : defaultChat(body));
    if (script.status !== undefined && script.status >= 400) {
      sendError(response, script.status, script.errorMessage ?? `Scripted chat failure (${script.status}).`, {
        // Keeps the client's automatic retries fast; each retry consumes the next script.
        headers: isRetryable(script.status) ? { 'retry-after-ms': '1' } : {},
      });
      return;
    }
    completionCounter += 1;
    const completion = {
      id: `chatcmpl-double-${completionCounter}`,
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      textParts: typeof script.text === 'string' ? splitText(script.text, textDeltaLength) : (script.text ?? []),
      toolCalls: (script.toolCalls ?? []).map((call, index) => ({
        ...call,
        id: call.id ?? `call_double_${completionCounter}_${index}`,
      })),
      usage: usageFor(body, script),
    };
    if (body.stream === true) {
      await streamChat(response, body, script, completion);
    } else {
      if (script.delayMs) await sleep(script.delayMs);
      sendJson(response, 200, chatCompletionObject(completion));
    }
  }

  async function streamChat(response: ServerResponse, body: any, script: ChatScript, completion: Completion): Promise<void> {
    let endedByDouble = false;
    let clientGone = false;
    response.on('close', () => {
      if (endedByDouble) return;
      clientGone = true;
      abortedChatStreams += 1;
    });
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    response.flushHeaders();

    const chunks = chatChunks(completion, body.stream_options?.include_usage === true);
    const breakAfter = script.breakAfterChunks;
    for (const [position, chunk] of chunks.entries()) {
      if (breakAfter !== undefined && position >= breakAfter) break;
      if (position > 0 && script.delayMs) await sleep(script.delayMs);
      if (clientGone) return;
      await writeText(response, `data: ${JSON.stringify(chunk)}\n\n`);
    }
    if (clientGone) return;
    if (breakAfter !== undefined) {
      endedByDouble = true;
      response.destroy();
      return;
    }
    if (script.delayMs) await sleep(script.delayMs);
    if (clientGone) return;
    endedByDouble = true;
    response.end('data: [DONE]\n\n');
  }

  const server = createServer((request, response) => {
    if (request.method === 'POST' && new URL(request.url ?? '/', 'http://127.0.0.1').pathname === '/v1/embeddings') {
      embeddingRequestsInFlight += 1;
      maxEmbeddingRequestsInFlight = Math.max(maxEmbeddingRequestsInFlight, embeddingRequestsInFlight);
      response.once('close', () => {
        embeddingRequestsInFlight -= 1;
      });
    }
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) response.destroy();
      else sendError(response, 500, `Provider double failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    embeddingDimensions,
    get abortedChatStreams() {
      return abortedChatStreams;
    },
    get embeddingRequestsInFlight() {
      return embeddingRequestsInFlight;
    },
    get maxEmbeddingRequestsInFlight() {
      return maxEmbeddingRequestsInFlight;
    },
    rerankRequests: () => requests.filter((entry) => entry.method === 'POST' && entry.path === '/v1/rerank'),
    setRerank: (script) => {
      rerankScript = script ?? {};
    },
    chatRequests: () => requests.filter((entry) => entry.method === 'POST' && entry.path === '/v1/chat/completions'),
    embeddingRequests: () => requests.filter((entry) => entry.method === 'POST' && entry.path === '/v1/embeddings'),
    queueChat: (...scripts) => {
      chatQueue.push(...scripts);
    },
    setChatHandler: (handler) => {
      chatHandler = handler;
    },
    failEmbeddings: (count, status, failureOptions) => {
      for (let index = 0; index < count; index += 1) {
        embeddingFailures.push({ status, retryAfterMs: failureOptions?.retryAfterMs ?? 1 });
      }
    },
    setEmbeddingsDown: (status) => {
      embeddingsDownStatus = status;
    },
    waitForAbortedChatStreams: async (count, timeoutMs = 2000) => {
      const deadline = Date.now() + timeoutMs;
      while (abortedChatStreams < count) {
        if (Date.now() > deadline) {
          throw new Error(`expected ${count} aborted chat streams, saw ${abortedChatStreams} after ${timeoutMs} ms`);
        }
        await sleep(5);
      }
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets and streams still being delayed would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

async function answerRerank(response: ServerResponse, body: any, script: RerankScript): Promise<void> {
  if (script.delayMs !== undefined && script.delayMs > 0) await sleep(script.delayMs);
  if (response.destroyed) return;
  if (script.status !== undefined) return sendError(response, script.status, `Scripted rerank failure (${script.status}).`);
  if (typeof body?.model !== 'string') return sendError(response, 400, 'you must provide a model parameter');
  if (typeof body.query !== 'string') return sendError(response, 400, '"query" must be a string', { param: 'query' });
  const documents: unknown = body.documents;
  if (!Array.isArray(documents) || documents.length === 0 || !documents.every((document) => typeof document === 'string')) {
    return sendError(response, 400, '"documents" must be a non-empty array of strings', { param: 'documents' });
  }
  if (script.malformed === 'not-json') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"results": [{"index": 0, "relevance_sc');
    return;
  }
  if (script.malformed === 'no-results') return sendJson(response, 200, { model: body.model, data: [] });
  if (script.malformed === 'oversized') return sendJson(response, 200, { results: [], padding: 'x'.repeat(5_000_000) });
  const score = script.score ?? shareOfQueryWords;
  const scored = (documents as string[]).map((document, index) => ({ index, score: score(body.query, document) }));
  const best = [...scored].sort((left, right) => right.score - left.score || left.index - right.index);
  const topN = Number.isInteger(body.top_n) && body.top_n > 0 ? body.top_n : scored.length;
  const chosen = best.slice(0, topN);
  const ordered =
    script.order === 'document'
      ? [...chosen].sort((left, right) => left.index - right.index)
      : script.order === 'worst-first'
        ? [...chosen].reverse()
        : chosen;
  const field = script.scoreField ?? 'relevance_score';
  sendJson(response, 200, {
    id: `rerank-double-${Date.now()}`,
    model: body.model,
    usage: { total_tokens: wordsOf((documents as string[]).join(' ')).length },
    results: ordered.map((result) => ({ index: result.index, ...(script.malformed === 'no-scores' ? {} : { [field]: result.score }) })),
  });
}

/** The share of the query's distinct words that the document holds, 0 to 1. */
function shareOfQueryWords(query: string, document: string): number {
  const queryWords = new Set(wordsOf(query));
  if (queryWords.size === 0) return 0;
  const documentWords = new Set(wordsOf(document));
  return [...queryWords].filter((word) => documentWords.has(word)).length / queryWords.size;
}

interface Completion {
  id: string;
  created: number;
  model: string;
  textParts: string[];
  toolCalls: Array<Required<ChatToolCallScript>>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function chatChunks(completion: Completion, includeUsage: boolean): object[] {
  const chunk = (delta: object, finishReason: string | null = null) => ({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    // Real providers send `usage: null` on every chunk once the caller asked for usage.
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: object[] = [chunk({ role: 'assistant', content: '' })];
  for (const part of completion.textParts) chunks.push(chunk({ content: part }));
  completion.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const fragment of splitText(call.arguments, argumentsFragmentLength)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  chunks.push(chunk({}, completion.toolCalls.length > 0 ? 'tool_calls' : 'stop'));
  if (includeUsage) {
    const { id, created, model, usage } = completion;
    chunks.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
  }
  return chunks;
}

function chatCompletionObject(completion: Completion): object {
  const hasToolCalls = completion.toolCalls.length > 0;
  const content = completion.textParts.join('');
  return {
    id: completion.id,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: hasToolCalls && content === '' ? null : content,
          refusal: null,
          ...(hasToolCalls
            ? {
                tool_calls: completion.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: hasToolCalls ? 'tool_calls' : 'stop',
      },
    ],
    usage: completion.usage,
  };
}

/**
 * Default answer when nothing is queued and no handler is set. It looks through the system, developer,
 * user and tool messages (latest first) for a snippet numbered `[1]` at the start of a line; the snippet
 * runs until the next line starting with `[n]`. The answer is
 * "According to the documentation, <first sentence of snippet 1, verbatim, without its final punctuation> [1]."
 * and, when no message holds such a snippet, "I could not find this in the documentation."
 */
export function defaultChat(body: any): ChatScript {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const sources = messages
    .filter((message) => ['system', 'developer', 'user', 'tool'].includes(message?.role))
    .map((message) => messageText(message.content))
    .reverse();
  for (const source of sources) {
    const snippet = firstSnippet(source);
    if (snippet) return { text: `According to the documentation, ${firstSentence(snippet)} [1].` };
  }
  return { text: 'I could not find this in the documentation.' };
}

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part) => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

function firstSnippet(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((line) => /^\s*\[1\]/.test(line));
  if (start === -1) return undefined;
  const snippetLines = [(lines[start] ?? '').replace(/^\s*\[1\]\s*/, '')];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*\[\d+\]/.test(line)) break;
    snippetLines.push(line);
  }
  const snippet = snippetLines.join(' ').replace(/\s+/g, ' ').trim();
  return snippet === '' ? undefined : snippet;
}

function firstSentence(snippet: string): string {
  const sentence = /^.*?[.!?](?=\s|$)/.exec(snippet)?.[0] ?? snippet.slice(0, 200);
  return sentence.replace(/[.!?]+$/, '');
}

function usageFor(body: any, script: ChatScript) {
  const promptText = (Array.isArray(body.messages) ? body.messages : []).map((message: any) => messageText(message?.content)).join(' ');
  const answerText = [
    ...(typeof script.text === 'string' ? [script.text] : (script.text ?? [])),
    ...(script.toolCalls ?? []).map((call) => call.arguments),
  ].join(' ');
  const promptTokens = Math.max(1, wordsOf(promptText).length);
  const completionTokens = wordsOf(answerText).length;
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Hashing-trick bag of words plus character trigrams, L2-normalized: shared words mean higher cosine. */
export function embedText(text: string, dimensions: number): Float32Array {
  const vector = new Float64Array(dimensions);
  const add = (feature: string, weight: number) => {
    // FNV-1a's low bits are poorly mixed (its lowest bit is just the parity of the bytes), so finalize before taking them.
    const hash = fnv1a(feature);
    const slot = finalizeHash(hash) % dimensions;
    // An independent sign makes collisions cancel out on average instead of piling up.
    const sign = finalizeHash(hash ^ 0x9e3779b9) & 1 ? 1 : -1;
    vector[slot] = (vector[slot] ?? 0) + sign * weight;
  };
  const words = wordsOf(text);
  for (const word of words) {
    add(`word:${word}`, 1);
    const padded = `#${word}#`;
    for (let start = 0; start + 3 <= padded.length; start += 1) add(`trigram:${padded.slice(start, start + 3)}`, 0.25);
  }
  if (words.length === 0) add(`text:${text}`, 1);
  const norm = Math.hypot(...vector) || 1;
  return Float32Array.from(vector, (value) => value / norm);
}

function float32ToBase64(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

/** Splits by code points so no delta ends inside a surrogate pair. */
function splitText(text: string, size: number): string[] {
  const characters = Array.from(text);
  const parts: string[] = [];
  for (let start = 0; start < characters.length; start += size) parts.push(characters.slice(start, start + size).join(''));
  return parts;
}

function isRetryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Real providers echo a masked form of a wrong key; the service's tests check it never reaches their output. */
function unauthorizedMessage(authorization: string | undefined): string {
  const key = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : '';
  if (key === '') {
    return "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";
  }
  const masked = key.length > 9 ? `${key.slice(0, 5)}****${key.slice(-4)}` : '****';
  return `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`;
}

const invalidJson = Symbol('invalid JSON');

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(rawBody: string): any {
  if (rawBody === '') return undefined;
  try {
    return JSON.parse(rawBody);
  } catch {
    return invalidJson;
  }
}

function writeText(response: ServerResponse, text: string): Promise<void> {
  // Waiting for the flush means a later destroy() cannot drop chunks the script promised to deliver.
  return new Promise((resolve) => response.write(text, () => resolve()));
}

function sendJson(response: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(payload);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  details: { code?: string; param?: string; headers?: Record<string, string> } = {},
): void {
  const type = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const code = details.code ?? (status === 429 ? 'rate_limit_exceeded' : status === 404 ? 'unknown_url' : null);
  sendJson(response, status, { error: { message, type, param: details.param ?? null, code } }, details.headers);
}
