// The one error catalogue: every failure the service reports has a code listed here, with the
// HTTP status it maps to when it ends a request. Codes are typed, so a wrong one fails to compile.

export const errorCatalogue = {
  // Request-level errors (end the HTTP request).
  invalid_request: {
    status: 400,
    description:
      'The body, query or a field of it is not valid (the message names the field), or the request is not valid HTTP (malformed request line or header bytes).',
  },
  invalid_namespace: {
    status: 400,
    description: 'The namespace is empty, or longer than 64 characters, after removing characters other than letters, digits, - and _.',
  },
  unauthorized: { status: 401, description: 'No token, or a token the service does not know.' },
  forbidden: { status: 403, description: 'The token does not grant access to this namespace.' },
  not_found: { status: 404, description: 'No such route or resource.' },
  model_not_found: { status: 404, description: 'The OpenAI-compatible API has no model of this name (models are knowledge/<namespace>).' },
  method_not_allowed: {
    status: 405,
    description: 'The path exists but not with this method; the Allow header lists the methods it takes.',
  },
  request_timeout: { status: 408, description: 'The client took too long to send the request line and headers, or the whole request.' },
  payload_too_large: { status: 413, description: 'The request body is larger than the service accepts.' },
  unsupported_media_type: { status: 415, description: 'The content type or upload type is not accepted.' },
  rate_limited: { status: 429, description: 'Too many requests from this client; retry after the Retry-After delay.' },
  headers_too_large: { status: 431, description: 'The request line or headers are larger than the server accepts.' },
  internal_error: { status: 500, description: 'An unexpected failure; details are in the server log under the request id.' },
  agent_not_initialized: { status: 503, description: 'No LLM_API_KEY was set at start-up, so the agent cannot answer.' },
  embeddings_unavailable: { status: 503, description: 'No embedding model is available for embedding search.' },
  playground_not_built: { status: 503, description: 'The web playground is not built; run npm run build.' },
  storage_full: {
    status: 507,
    description: 'The storage volume is full (or a quota is reached): nothing was stored; free space and send the request again.',
  },
  storage_unavailable: {
    status: 503,
    description:
      'The database that holds the namespaces (cluster mode) cannot be reached: nothing was stored; searches are still answered. Send the write again once it is back.',
  },
  shutting_down: {
    status: 503,
    description: 'The service is shutting down; send the request again (to another instance, or once it is back).',
  },
  request_aborted: {
    // nginx's status for a client that closed the connection: nobody reads the answer; it is the reason the work stopped.
    status: 499,
    description:
      'The client closed the connection before the answer was sent: the work behind the request stopped, and what it stored before stays stored.',
  },
  // Per-source ingest errors (reported in the `errors` array of an ingest response).
  source_invalid: { status: 400, description: 'The source lacks a required field or has a wrong one.' },
  source_too_large: { status: 413, description: 'A file, download or text snippet is over its size limit.' },
  unsupported_file_type: { status: 415, description: 'The file type is not one of PDF, Markdown, plain text or HTML.' },
  file_not_found: { status: 404, description: 'The file source does not exist or is not a regular file.' },
  file_not_allowed: { status: 403, description: 'The file source is outside KNOWLEDGE_AGENT_FILE_ROOTS.' },
  url_not_allowed: { status: 403, description: 'The URL is not http(s), or resolves to an address that is refused.' },
  fetch_failed: { status: 502, description: 'Downloading the URL failed or answered with an error status.' },
  document_unreadable: { status: 422, description: 'The content could not be converted to text (broken PDF, no text layer).' },
  document_empty: { status: 422, description: 'The source holds no text.' },
  document_too_complex: {
    status: 422,
    description: 'The HTML page has more elements or deeper nesting than a page may have (100,000 elements, 5,000 levels).',
  },
  document_too_large: {
    status: 422,
    description: "The PDF's compressed streams inflate to more than a conversion may hold (300 MB): a compression bomb.",
  },
  conversion_timed_out: { status: 422, description: 'Converting the document to Markdown took longer than its time limit (30 s).' },
  conversion_out_of_memory: {
    status: 422,
    description: 'Converting the document to Markdown needed more memory than a conversion may use (512 MB).',
  },
  // Provider errors (per source at ingest, or an `error` event during an agent run).
  embedding_failed: { status: 502, description: 'The embedding provider failed after retries.' },
  provider_error: { status: 502, description: 'The language-model provider answered with an error or broke its stream.' },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** A failure the service expects and reports to the caller: a code from the catalogue and a human message. */
export class KnowledgeError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** The failure may pass by itself (a provider down or overloaded): the same call later may succeed. */
  readonly temporary: boolean;
  /** The non-2xx status a fetched URL answered with; undefined when no answer came (time-out, refused connection). */
  readonly upstreamStatus: number | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; temporary?: boolean; upstreamStatus?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KnowledgeError';
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.temporary = options?.temporary ?? false;
    this.upstreamStatus = options?.upstreamStatus;
  }
}

export function isKnowledgeError(value: unknown): value is KnowledgeError {
  return value instanceof KnowledgeError;
}

/** The JSON body every failed request answers with (CONTRACT section 5). */
export function errorBody(code: ErrorCode, message: string): { error: { code: ErrorCode; message: string } } {
  return { error: { code, message } };
}
