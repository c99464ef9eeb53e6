// The command line's HTTP client: base URL, bearer token, and every failure turned into one clear CliError
// (the service's catalogue errors as `<code>: <message>`, an unreachable service with how to start it).
import { CliError, ServerError } from './cli-error.js';
import type { Connection } from './command-options.js';

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
  /** JSON-encoded unless it is FormData. */
  readonly body?: unknown;
  readonly signal?: AbortSignal;
}

/** The network error's code, looking through fetch's `cause` and happy-eyeballs' AggregateError. */
function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, errors, cause } = current as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof code === 'string' && code !== 'ERR_INVALID_STATE') return code;
    if (Array.isArray(errors) && errors.length > 0) current = errors[0];
    else current = cause;
  }
  return undefined;
}

const reasonOfCode: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed',
};

/** The base URL as people write it: no trailing slash at the root. */
export function displayUrl(baseUrl: URL): string {
  return baseUrl.href.replace(/\/$/, '');
}

export function unreachableError(baseUrl: URL, error: unknown): CliError {
  const code = networkErrorCode(error);
  const detail = (error as { cause?: { message?: unknown } } | undefined)?.cause?.message;
  const reason = (code === undefined ? undefined : reasonOfCode[code]) ?? (typeof detail === 'string' ? detail : (code ?? String(error)));
  const advice = code === 'ECONNREFUSED' ? '. Is it running? Start it with: knowledge-agent serve' : '';
  return new CliError(`cannot reach the Knowledge Agent at ${displayUrl(baseUrl)} (${reason})${advice}`, undefined, { cause: error });
}

/** A stream that broke off after the response started (the service stopped, the network dropped). */
export function brokenStreamError(baseUrl: URL, error: unknown): CliError {
  const code = networkErrorCode(error);
  const reason = (code === undefined ? undefined : reasonOfCode[code]) ?? (error instanceof Error ? error.message : String(error));
  return new CliError(`the connection to the Knowledge Agent at ${displayUrl(baseUrl)} broke off (${reason})`, undefined, { cause: error });
}

async function responseError(response: Response, connection: Connection): Promise<CliError> {
  const text = await response.text().catch(() => '');
  let body: { error?: { code?: unknown; message?: unknown } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  const code = body?.error?.code;
  const message = body?.error?.message;
  if (typeof code !== 'string' || typeof message !== 'string') {
    return new CliError(
      `the Knowledge Agent at ${displayUrl(connection.baseUrl)} answered HTTP ${response.status} ${response.statusText} without an error body (is --url the Knowledge Agent?)`,
    );
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  const advice =
    code === 'unauthorized' && connection.token === undefined
      ? ' (pass --token or set KNOWLEDGE_AGENT_TOKEN)'
      : code === 'rate_limited' && retryAfter > 0
        ? ` (retry in ${retryAfter} s)`
        : '';
  return new ServerError(
    code,
    `${message}${advice}`,
    response.status,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

export class KnowledgeAgentClient {
  constructor(readonly connection: Connection) {}

  url(path: string, query: Record<string, string> = {}): URL {
    const url = new URL(path.replace(/^\//, ''), this.connection.baseUrl);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url;
  }

  /** Sends the request; resolves with a 2xx response (its body unread), rejects with a CliError otherwise. */
  async send(path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.connection.token !== undefined) headers.authorization = `Bearer ${this.connection.token}`;
    let body: FormData | string | undefined;
    if (options.body instanceof FormData) body = options.body;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    let response: Response;
    try {
      response = await fetch(this.url(path, options.query), {
        method: options.method ?? (body === undefined ? 'GET' : 'POST'),
        headers,
        ...(body === undefined ? {} : { body }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      throw unreachableError(this.connection.baseUrl, error);
    }
    if (!response.ok) throw await responseError(response, this.connection);
    return response;
  }

  async json<Result>(path: string, options: RequestOptions = {}): Promise<Result> {
    const response = await this.send(path, options);
    try {
      return (await response.json()) as Result;
    } catch (error) {
      throw new CliError(
        `the Knowledge Agent at ${displayUrl(this.connection.baseUrl)} sent a response that is not JSON (is --url the Knowledge Agent?)`,
        undefined,
        { cause: error },
      );
    }
  }
}
