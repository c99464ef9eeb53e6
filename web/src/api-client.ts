// The service's HTTP API as the playground uses it: JSON requests, NDJSON ingest progress and SSE agent runs,
// each sent with the access token (if one is set) as `Authorization: Bearer`.
import type {
  AgUiEvent,
  DocumentSummary,
  GapsReport,
  Health,
  IngestProgress,
  NamespaceSummary,
  NewSource,
  RegisteredSource,
  SearchAnswer,
  SearchMode,
} from './api-types.js';
import { readNdjson, readSseData } from './event-stream.js';
import type { PickedFile } from './picked-files.js';

/** A failed request: the service's `{"error":{"code","message"}}`, or what could be said without one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

async function toApiError(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === 'string' && typeof body.error.message === 'string') {
      return new ApiError(response.status, body.error.code, body.error.message);
    }
  } catch {
    // Not JSON (a proxy's error page, say): described by its status below.
  }
  return new ApiError(response.status, `http_${response.status}`, `the service answered ${response.status} ${response.statusText}`.trim());
}

/** A human sentence for any failure, with a hint where the fix is on this page. */
export function describeFailure(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'unauthorized') return `${error.message}. Enter an access token (top right).`;
    if (error.code === 'forbidden') return `${error.message}. The access token does not cover this namespace.`;
    return error.message;
  }
  if (error instanceof DOMException && error.name === 'AbortError') return 'stopped';
  if (error instanceof TypeError) return 'the service could not be reached';
  return error instanceof Error ? error.message : String(error);
}

export class ApiClient {
  constructor(private readonly token: () => string) {}

  health(): Promise<Health> {
    return this.json<Health>('GET', '/health');
  }

  async namespaces(): Promise<NamespaceSummary[]> {
    return (await this.json<{ namespaces: NamespaceSummary[] }>('GET', '/tools/namespaces')).namespaces;
  }

  async documents(namespace: string): Promise<DocumentSummary[]> {
    return (await this.json<{ documents: DocumentSummary[] }>('GET', `/tools/documents?namespace=${encodeURIComponent(namespace)}`))
      .documents;
  }

  search(namespace: string, query: string, mode: SearchMode, topK: number, signal?: AbortSignal): Promise<SearchAnswer> {
    return this.json<SearchAnswer>('POST', '/tools/search', { namespace, query, mode, top_k: topK }, signal);
  }

  /**
   * Uploads files (multipart, Variant 2), each under its path (`tutorial/middleware.md`): the service keeps the
   * folders, so files of one name in different folders stay different documents. Progress lines are indexed in upload order.
   */
  async ingestFiles(namespace: string, files: readonly PickedFile[]): Promise<AsyncGenerator<IngestProgress>> {
    const form = new FormData();
    form.append('namespace', namespace);
    for (const { file, path } of files) form.append('file', file, path);
    return readNdjson<IngestProgress>(await this.send('POST', '/api/tools/ingest?progress=ndjson', form));
  }

  /** Ingests URLs and text (JSON, Variant 2); progress lines are indexed in source order. */
  async ingestSources(namespace: string, sources: readonly unknown[]): Promise<AsyncGenerator<IngestProgress>> {
    return readNdjson<IngestProgress>(
      await this.send('POST', '/api/tools/ingest?progress=ndjson', JSON.stringify({ namespace, sources }), {
        'content-type': 'application/json',
      }),
    );
  }

  /** Runs the agent over AG-UI (no mention needed), retrieving from `namespace`; `runId` is what feedback names. */
  async runAgent(
    namespace: string,
    messages: readonly { id: string; role: 'user' | 'assistant'; content: string }[],
    runId: string,
    signal: AbortSignal,
  ): Promise<AsyncGenerator<unknown>> {
    const body = {
      threadId: `playground-${crypto.randomUUID()}`,
      runId,
      messages,
      tools: [],
      context: [],
      state: {},
      forwardedProps: { namespace },
    };
    return readSseData(
      await this.send('POST', '/agent', JSON.stringify(body), { 'content-type': 'application/json', accept: 'text/event-stream' }, signal),
    );
  }

  /** Thumbs up or down on an answer (POST /api/feedback). */
  async feedback(runId: string, rating: 'up' | 'down', comment?: string): Promise<void> {
    await this.json('POST', '/api/feedback', { run_id: runId, rating, ...(comment === undefined ? {} : { comment }) });
  }

  /** The gaps report of a namespace (a write token of it when the service has tokens). */
  gaps(namespace: string, since: string): Promise<GapsReport> {
    return this.json<GapsReport>('GET', `/api/gaps/${encodeURIComponent(namespace)}?since=${encodeURIComponent(since)}`);
  }

  async sources(namespace: string): Promise<RegisteredSource[]> {
    return (await this.json<{ sources: RegisteredSource[] }>('GET', sourcesPath(namespace))).sources;
  }

  /** Registers a source; resolves after its first refresh, which the returned source's `last_refresh` summarizes. */
  async addSource(namespace: string, source: NewSource): Promise<RegisteredSource> {
    return (await this.json<{ source: RegisteredSource }>('POST', sourcesPath(namespace), source)).source;
  }

  /** Refreshes one source now; resolves when the refresh has ended. */
  async refreshSource(namespace: string, id: string): Promise<void> {
    await this.json('POST', `${sourcesPath(namespace)}/${id}/refresh`);
  }

  /** Stops refreshing a source; its documents stay. */
  async removeSource(namespace: string, id: string): Promise<void> {
    await this.json('DELETE', `${sourcesPath(namespace)}/${id}`);
  }

  private async json<Answer>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Answer> {
    const response = await this.send(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      body === undefined ? {} : { 'content-type': 'application/json' },
      signal,
    );
    return (await response.json()) as Answer;
  }

  private async send(
    method: string,
    path: string,
    body?: BodyInit,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<Response> {
    const token = this.token().trim();
    const response = await fetch(path, {
      method,
      headers: { ...headers, ...(token === '' ? {} : { authorization: `Bearer ${token}` }) },
      ...(body === undefined ? {} : { body }),
      ...(signal === undefined ? {} : { signal }),
    });
    if (!response.ok) throw await toApiError(response);
    return response;
  }
}

function sourcesPath(namespace: string): string {
  return `/api/sources/${encodeURIComponent(namespace)}`;
}

export function isAgUiEvent(value: unknown): value is AgUiEvent {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
