// Sends one batch of sources to POST /api/tools/ingest (files as a multipart upload, URLs as JSON) and reports each
// source's outcome as the service streams its progress (NDJSON); a service that answers plain JSON is read as well.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { CliError, ServerError } from './cli-error.js';
import { brokenStreamError, type KnowledgeAgentClient } from './client.js';
import { maxUploadBytes, type Batch, type CrawlPlan } from './collect-sources.js';
import type { SourceStatus } from './ingest-progress.js';
import { readJsonLines } from './stream-reader.js';

/** The stored version an `updated` document replaced, as the service names it. */
export interface ReplacedDocument {
  readonly file: string;
  readonly source: string;
  readonly ingested_at: string;
}

/** What the service said about the source at `index` of the batch. */
export interface BatchOutcome {
  readonly index: number;
  /** For a crawl: the page this outcome is about (a crawl's one source yields an outcome per page). */
  readonly page?: string;
  readonly status: SourceStatus;
  readonly chunks?: number;
  readonly reason?: string;
  readonly replaced?: ReplacedDocument;
  /** Stored without embeddings while the provider is down. */
  readonly warning?: string;
}

const mediaTypeOfExtension: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.mdx': 'text/markdown',
  '.txt': 'text/plain',
  '.text': 'text/plain',
};

/** The progress events of CONTRACT/README "Progress", and the last line. */
type ProgressLine =
  | {
      type: 'document';
      index: number;
      source: string;
      status: 'saved' | 'updated' | 'skipped';
      chunks: number;
      replaced?: ReplacedDocument;
      warning?: string;
    }
  | { type: 'failed'; index: number; source: string; code: string; error: string }
  | { type: 'skipped'; index: number }
  | { type: 'removed'; index: number; source: string }
  | { type: 'working'; seconds: number }
  | { type: 'result'; result: Variant2IngestResponse }
  | { type: 'error'; error: { code: string; message: string } };

interface Variant2IngestResponse {
  files: { file: string; status: 'saved' | 'updated' | 'skipped'; replaced?: ReplacedDocument }[];
  errors: { source: string; error: string; code?: string }[];
}

/** A file that could not be read here; reported without a request. */
interface UnreadableFile {
  readonly index: number;
  readonly reason: string;
}

async function buildForm(
  batch: Extract<Batch, { kind: 'files' }>,
  namespace: string | undefined,
): Promise<{ form: FormData; sent: number[]; unreadable: UnreadableFile[] }> {
  const form = new FormData();
  if (namespace !== undefined) form.append('namespace', namespace);
  if (batch.baseUrl !== undefined) form.append('base_url', batch.baseUrl);
  const sent: number[] = [];
  const unreadable: UnreadableFile[] = [];
  for (const [index, source] of batch.sources.entries()) {
    let bytes: Buffer;
    try {
      bytes = await readFile(source.path);
    } catch (error) {
      unreadable.push({ index, reason: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})` });
      continue;
    }
    // It may have grown since it was listed.
    if (bytes.length > maxUploadBytes) {
      unreadable.push({ index, reason: `over the ${maxUploadBytes}-byte limit for a file` });
      continue;
    }
    const type = mediaTypeOfExtension[extname(source.path).toLowerCase()] ?? 'application/octet-stream';
    // The file name is the document's identity at the service: its path relative to the folder given.
    form.append('file', new Blob([bytes], { type }), source.uploadName);
    sent.push(index);
  }
  return { form, sent, unreadable };
}

/** Outcomes from a plain JSON answer: errors name their source, stored files come in request order. */
function outcomesFromResponse(response: Variant2IngestResponse, names: readonly string[]): BatchOutcome[] {
  const errors = [...response.errors];
  const files = [...response.files];
  return names.map((name, index) => {
    if (errors[0]?.source === name) {
      const error = errors.shift();
      return { index, status: 'failed', reason: error?.error ?? 'failed' };
    }
    const file = files.shift();
    if (file === undefined) return { index, status: 'failed', reason: 'the service did not report this source' };
    return { index, status: file.status, ...(file.replaced === undefined ? {} : { replaced: file.replaced }) };
  });
}

/**
 * Sends the batch; `report` is called once per source of the batch, as soon as its outcome is known.
 * Rejects with a ServerError when the service refuses the whole request, before or during the stream.
 */
export async function sendBatch(
  client: KnowledgeAgentClient,
  batch: Batch,
  namespace: string | undefined,
  report: (outcome: BatchOutcome) => void,
): Promise<void> {
  // An outcome per source, or per page of a crawl.
  const reported = new Set<string>();
  const once = (outcome: BatchOutcome) => {
    const key = `${outcome.index} ${outcome.page ?? ''}`;
    if (reported.has(key)) return;
    reported.add(key);
    report(outcome);
  };
  const crawl = batch.kind === 'urls' ? batch.crawl : undefined;
  const pageOf = (source: string) => (crawl === undefined ? {} : { page: source });

  // Request index -> batch index (files that could not be read are not in the request).
  let requestIndexes: number[];
  let names: string[];
  let body: FormData | { namespace?: string; sources: { type: 'url'; value: string; crawl?: CrawlPlan }[] };
  if (batch.kind === 'files') {
    const { form, sent, unreadable } = await buildForm(batch, namespace);
    for (const file of unreadable) once({ index: file.index, status: 'failed', reason: file.reason });
    if (sent.length === 0) return;
    requestIndexes = sent;
    names = sent.map((index) => batch.sources[index]?.uploadName ?? '');
    body = form;
  } else {
    requestIndexes = batch.sources.map((_source, index) => index);
    names = batch.sources.map((source) => source.url);
    body = {
      ...(namespace === undefined ? {} : { namespace }),
      sources: batch.sources.map((source) => ({ type: 'url', value: source.url, ...(crawl === undefined ? {} : { crawl }) })),
    };
  }
  const toBatchIndex = (requestIndex: number) => requestIndexes[requestIndex];

  const response = await client.send('/api/tools/ingest', {
    method: 'POST',
    query: { progress: 'ndjson' },
    headers: { accept: 'application/x-ndjson, application/json;q=0.5' },
    body,
  });

  try {
    if (!(response.headers.get('content-type') ?? '').includes('ndjson')) {
      // A service without progress streaming: every outcome at once.
      const result = (await response.json()) as Variant2IngestResponse;
      for (const outcome of outcomesFromResponse(result, names)) {
        const index = toBatchIndex(outcome.index);
        if (index !== undefined) once({ ...outcome, index });
      }
    } else if (response.body !== null) {
      for await (const value of readJsonLines(response.body)) {
        const line = value as ProgressLine;
        if (line.type === 'error') throw new ServerError(line.error.code, line.error.message, response.status);
        if (line.type === 'result' || line.type === 'skipped' || line.type === 'working') continue;
        const index = toBatchIndex(line.index);
        if (index === undefined) continue;
        if (line.type === 'removed') once({ index, ...pageOf(line.source), status: 'removed', reason: 'no longer found by the crawl' });
        else if (line.type === 'document') {
          once({
            index,
            ...pageOf(line.source),
            status: line.status,
            chunks: line.chunks,
            ...(line.replaced === undefined ? {} : { replaced: line.replaced }),
            ...(line.warning === undefined ? {} : { warning: line.warning }),
          });
        } else once({ index, ...pageOf(line.source), status: 'failed', reason: line.error });
      }
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (error instanceof SyntaxError) throw new CliError('the service sent ingest progress that is not JSON', undefined, { cause: error });
    throw brokenStreamError(client.connection.baseUrl, error);
  }
  const answered = new Set([...reported].map((key) => Number(key.split(' ')[0])));
  const unreported = crawl === undefined ? 'the service did not report this source' : 'the crawl found no page it could ingest';
  for (const index of requestIndexes) if (!answered.has(index)) once({ index, status: 'failed', reason: unreported });
}
