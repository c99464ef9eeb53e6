// Ingestion: load each source, convert and chunk it, embed the chunks, and commit the documents to a namespace.
// Sources are independent: one failing never stops the others, and each failure is reported with its reason.
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { forEachConcurrently } from '../concurrency.js';
import type { ChunkEmbedder, EmbeddableChunk } from '../embedding/chunk-embedder.js';
import { KnowledgeError, isKnowledgeError } from '../errors.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { Namespace } from '../store/namespace.js';
import type { StoredDocument } from '../store/stored-document.js';
import { CrawlBudget, maxCrawlPagesPerRequest } from './crawl-budget.js';
import { crawlSite, isCrawlLimit } from './crawl-site.js';
import { fetchUrl } from './fetch-url.js';
import type { DocumentConverter } from './document-converter.js';
import { describeSource, type CrawlRequest, type IngestSource, type InvalidSource } from './ingest-source.js';
import { fetchLimits, loadSource, type SourceLimits } from './load-source.js';
import type { NamespaceName } from '../store/namespace-name.js';

export type SourceOutcome =
  | {
      readonly index: number;
      readonly source: string;
      readonly status: 'saved' | 'skipped';
      readonly document: StoredDocument;
      /** Stored, but not as asked: without embeddings while the provider is down (they are computed later). */
      readonly warning?: string;
    }
  /** `replaced` is the version the document had before: a replacement is always reported, never silent. */
  | {
      readonly index: number;
      readonly source: string;
      readonly status: 'updated';
      readonly document: StoredDocument;
      readonly replaced: StoredDocument;
      readonly warning?: string;
    }
  | { readonly index: number; readonly source: string; readonly status: 'failed'; readonly error: KnowledgeError };

/** The previous version of an updated document, as responses and progress events name it. */
export interface ReplacedDocument {
  readonly file: string;
  readonly title: string;
  readonly source: string;
  readonly ingested_at: string;
}

export function describeReplaced(document: StoredDocument): ReplacedDocument {
  return { file: document.file, title: document.title, source: document.origin, ingested_at: document.ingestedAt };
}

export interface IngestReport {
  readonly namespace: string;
  /** In source order; a crawl gives one outcome per page found. */
  readonly outcomes: readonly SourceOutcome[];
  /** Documents a pruning crawl removed because their pages were gone. */
  readonly removed: readonly StoredDocument[];
}

/** What a long ingest reports while it runs (streamed to clients that ask for progress). */
export type IngestProgress =
  | {
      readonly type: 'document';
      readonly index: number;
      readonly source: string;
      readonly status: 'saved' | 'updated' | 'skipped';
      readonly file: string;
      readonly chunks: number;
      /** With `updated`: the version it replaced. */
      readonly replaced?: ReplacedDocument;
      /** Stored without embeddings while the provider is down. */
      readonly warning?: string;
    }
  | { readonly type: 'failed'; readonly index: number; readonly source: string; readonly code: string; readonly error: string }
  | { readonly type: 'skipped'; readonly index: number; readonly source: string; readonly reason: string }
  | { readonly type: 'removed'; readonly index: number; readonly source: string; readonly file: string };

export interface IngestServiceOptions {
  readonly store: KnowledgeStore;
  /** Undefined when no embedding provider is configured: documents are stored for lexical search, vectors wait. */
  readonly embeddings: ChunkEmbedder | undefined;
  readonly limits: SourceLimits;
  /** Converts HTML and PDF off the event loop. */
  readonly converter: DocumentConverter;
  /** Sources of one request processed at once. */
  readonly concurrency?: number;
  readonly logError: (message: string, error: unknown) => void;
  readonly warn?: (message: string) => void;
  /** Told what an ingest stopped before its end had stored (the log). */
  readonly info?: (message: string) => void;
  /** Pages the crawls of one request store at most together; 1,000 (crawl-budget.ts) when left out. */
  readonly maxCrawlPagesPerRequest?: number;
  /** Told of every completed ingest and how long it took (metrics). */
  readonly onIngested?: (report: IngestReport, seconds: number) => void;
}

export interface IngestOptions {
  /** Told of each document, failure, skip and removal as it happens. */
  readonly onProgress?: (event: IngestProgress) => void;
  /**
   * Stops the ingest (its client left, the service is shutting down): no source or crawled page starts after it fires,
   * and it reaches the downloads, conversions and embedding calls under way. What was stored before stays stored; the
   * ingest then rejects with the signal's reason (a KnowledgeError, or `request_aborted`).
   */
  readonly signal?: AbortSignal;
}

/** What the sources of one request share. */
interface RequestState {
  /** Why the embedding provider is down, once one source found it so. */
  providerDown?: string;
  /** The pages its crawls may still take. */
  readonly crawlBudget: CrawlBudget;
  readonly signal: AbortSignal | undefined;
}

/** Why the ingest was stopped, as a catalogue error: the signal's own reason when it is one. */
function stopReason(signal: AbortSignal): KnowledgeError {
  return isKnowledgeError(signal.reason)
    ? signal.reason
    : new KnowledgeError('request_aborted', 'the ingest was cancelled before it finished');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export class IngestService {
  constructor(private readonly options: IngestServiceOptions) {}

  async ingest(
    namespaceName: NamespaceName,
    sources: readonly (IngestSource | InvalidSource)[],
    { onProgress = () => {}, signal: caller }: IngestOptions = {},
  ): Promise<IngestReport> {
    caller?.throwIfAborted();
    // The ingest's own signal, linked by hand to the caller's: every download, conversion and embedding call under way
    // listens to it (dozens in a request's crawls), and they must not make Node warn of a leak on the caller's signal.
    const stopping = new AbortController();
    setMaxListeners(0, stopping.signal);
    const forwardStop = () => stopping.abort(caller?.reason);
    caller?.addEventListener('abort', forwardStop, { once: true });
    try {
      // Held open for the whole ingest: its documents are committed one by one as they are ready.
      return await this.options.store.withNamespace(namespaceName, (namespace) =>
        this.ingestSources(namespace, sources, onProgress, stopping.signal),
      );
    } finally {
      caller?.removeEventListener('abort', forwardStop);
    }
  }

  private async ingestSources(
    namespace: Namespace,
    sources: readonly (IngestSource | InvalidSource)[],
    onProgress: (event: IngestProgress) => void,
    signal: AbortSignal | undefined,
  ): Promise<IngestReport> {
    const started = performance.now();
    const outcomes: SourceOutcome[][] = new Array(sources.length);
    const removed: StoredDocument[] = [];
    const request: RequestState = {
      crawlBudget: new CrawlBudget(this.options.maxCrawlPagesPerRequest ?? maxCrawlPagesPerRequest, "the request's "),
      signal,
    };
    const report = (outcome: SourceOutcome) => {
      onProgress(
        outcome.status === 'failed'
          ? { type: 'failed', index: outcome.index, source: outcome.source, code: outcome.error.code, error: outcome.error.message }
          : {
              type: 'document',
              index: outcome.index,
              source: outcome.source,
              status: outcome.status,
              file: outcome.document.file,
              chunks: outcome.document.chunks.length,
              ...(outcome.status === 'updated' ? { replaced: describeReplaced(outcome.replaced) } : {}),
              ...(outcome.warning === undefined ? {} : { warning: outcome.warning }),
            },
      );
      return outcome;
    };
    // Sources not started, or still under way, when the ingest was stopped.
    let unfinished = 0;
    await forEachConcurrently(sources, this.options.concurrency ?? 4, async (source, index) => {
      if (signal?.aborted) {
        unfinished++;
        outcomes[index] = [{ index, source: describeSource(source), status: 'failed', error: stopReason(signal) }];
        return;
      }
      if (source.kind === 'url' && source.crawl !== undefined) {
        try {
          const crawl = await this.ingestCrawl(namespace, request, index, source.url, source.crawl, report, onProgress);
          outcomes[index] = crawl.outcomes;
          removed.push(...crawl.removed);
        } catch (error) {
          // One source failing never fails the request (the others may still be writing).
          this.options.logError(`crawl of source ${index} failed unexpectedly`, error);
          outcomes[index] = [
            report({
              index,
              source: source.url,
              status: 'failed',
              error: new KnowledgeError('internal_error', 'an unexpected error occurred while crawling this source'),
            }),
          ];
        }
      } else {
        outcomes[index] = [report(await this.ingestOne(namespace, request, index, source))];
      }
      if (signal?.aborted) unfinished++;
    });
    const ingestReport: IngestReport = { namespace: namespace.name, outcomes: outcomes.flat(), removed };
    this.options.onIngested?.(ingestReport, (performance.now() - started) / 1000);
    if (signal?.aborted) throw this.stopped(ingestReport, unfinished, sources.length, stopReason(signal));
    // A full disk or an unreachable database that let nothing through is the request's failure, one the client acts
    // on as a whole (free space or wait, send it again); when some sources were stored, the others' errors stay per source.
    const stored =
      removed.length > 0 || ingestReport.outcomes.some((outcome) => outcome.status === 'saved' || outcome.status === 'updated');
    const full = ingestReport.outcomes.filter((outcome) => outcome.status === 'failed' && outcome.error.code === 'storage_full');
    if (!stored && full.length > 0) {
      throw new KnowledgeError(
        'storage_full',
        `the storage volume is full (no space left on device): nothing of this request was stored (${full.length} of ${ingestReport.outcomes.length} sources failed for lack of space); free space and send it again`,
      );
    }
    const unavailable = ingestReport.outcomes.find(
      (outcome) => outcome.status === 'failed' && outcome.error.code === 'storage_unavailable',
    );
    if (!stored && unavailable?.status === 'failed') {
      throw new KnowledgeError('storage_unavailable', `nothing of this request was stored: ${unavailable.error.message}`, {
        temporary: true,
      });
    }
    return ingestReport;
  }

  /** Logs what an ingest stopped before its end had stored, and returns why it stopped. */
  private stopped(report: IngestReport, unfinished: number, sourceCount: number, reason: KnowledgeError): KnowledgeError {
    const count = (status: SourceOutcome['status']) => report.outcomes.filter((outcome) => outcome.status === status).length;
    this.options.info?.(
      `ingest into namespace "${report.namespace}" stopped (${reason.code}: ${reason.message}): ` +
        `${plural(count('saved') + count('updated'), 'document')} stored before the stop (${count('saved')} saved, ${count('updated')} updated, ${count('skipped')} unchanged); ` +
        `${unfinished} of ${plural(sourceCount, 'source')} not finished`,
    );
    return reason;
  }

  /** Ingests every page a crawl finds, each upserted by its URL; with `prune`, removes the pages that are gone. */
  private async ingestCrawl(
    namespace: Namespace,
    request: RequestState,
    index: number,
    startUrl: string,
    crawl: CrawlRequest,
    report: (outcome: SourceOutcome) => SourceOutcome,
    onProgress: (event: IngestProgress) => void,
  ): Promise<{ outcomes: SourceOutcome[]; removed: StoredDocument[] }> {
    const outcomes: SourceOutcome[] = [];
    const seen = new Set<string>();
    // Pruning trusts only a crawl that reached the site and was not cut short.
    let complete = true;
    let pagesFound = 0;
    const { signal, crawlBudget } = request;
    try {
      const limits = fetchLimits(this.options.limits);
      for await (const event of crawlSite(
        startUrl,
        { maxPages: crawl.maxPages, maxDepth: crawl.maxDepth, signal, sharedBudget: crawlBudget },
        (url, crawlSignal) => fetchUrl(url, limits, crawlSignal),
      )) {
        if (event.type === 'page') {
          pagesFound++;
          seen.add(event.page.url);
          outcomes.push(report(await this.ingestOne(namespace, request, index, { kind: 'fetched', page: event.page })));
        } else if (event.type === 'failed') {
          seen.add(event.url);
          // Pages reachable only through a page that failed (maybe for a moment) were not really looked for.
          complete = false;
          outcomes.push(report({ index, source: event.url, status: 'failed', error: event.error }));
        } else if (event.type === 'skipped') {
          seen.add(event.url);
          if (isCrawlLimit(event.reason)) complete = false;
          onProgress({ type: 'skipped', index, source: event.url, reason: event.message });
        }
        // No 'unchanged' event comes: fetchUrl never answers UnchangedPage.
      }
    } catch (error) {
      const failure = isKnowledgeError(error)
        ? error
        : new KnowledgeError('fetch_failed', `the crawl of ${startUrl} stopped: ${(error as Error).message}`);
      return { outcomes: [...outcomes, report({ index, source: startUrl, status: 'failed', error: failure })], removed: [] };
    }
    // A stopped crawl did not look at everything either.
    if (!crawl.prune || !complete || pagesFound === 0 || signal?.aborted) return { outcomes, removed: [] };
    // Only pages under the crawled folder that this complete crawl did not meet at all are gone.
    const scope = new URL('./', startUrl).href;
    const gone = namespace.documents.filter((document) => document.origin.startsWith(scope) && !seen.has(document.origin));
    // Queued together, the deletions are committed as one batch (one index write).
    const removed = (await Promise.all(gone.map((document) => namespace.deleteDocuments({ origin: document.origin })))).flat();
    for (const document of removed) onProgress({ type: 'removed', index, source: document.origin, file: document.file });
    return { outcomes, removed };
  }

  /**
   * The chunks' vectors, or a warning when the provider is down: lexical search needs no vectors, so the document is
   * stored without them and its chunks stay pending, to be embedded by the same mechanism as after a model change
   * (the ChunkEmbedder retries them in the background until the provider answers again).
   */
  private async embed(
    request: RequestState,
    label: string,
    title: string,
    chunks: readonly EmbeddableChunk[],
  ): Promise<{ vectors?: Float32Array[]; warning?: string } | undefined> {
    const embeddings = this.options.embeddings;
    if (embeddings === undefined) return undefined;
    const withoutEmbeddings = (reason: string) => ({
      warning: `stored without embeddings: ${reason}. It is found by lexical search now, and embedded once the provider answers again.`,
    });
    // Once the provider was found down (after the client's retries), the request's other sources do not wait on it.
    if (request.providerDown !== undefined) return withoutEmbeddings(request.providerDown);
    try {
      return { vectors: await embeddings.embedChunks(title, chunks, request.signal) };
    } catch (error) {
      // Only a provider that is down: a refused key or a refused input would fail again every time (an abort is neither).
      if (!isKnowledgeError(error) || error.code !== 'embedding_failed' || !error.temporary) throw error;
      request.providerDown ??= error.message;
      this.options.warn?.(
        `${label}: stored without embeddings, the embedding provider failed (${error.message}); embedded once it answers again`,
      );
      return withoutEmbeddings(error.message);
    }
  }

  private async ingestOne(
    namespace: Namespace,
    request: RequestState,
    index: number,
    source: IngestSource | InvalidSource,
  ): Promise<SourceOutcome> {
    const label = describeSource(source);
    if (source.kind === 'invalid') return { index, source: label, status: 'failed', error: source.error };
    try {
      const loaded = await loadSource(source, this.options.limits, this.options.converter, request.signal);
      // Converted, hashed and chunked off the event loop (DocumentConverter): nothing here reads the whole body.
      const { markdown: body, hash, chunks } = loaded;
      if (body === '') throw new KnowledgeError('document_empty', `${label} holds no text`);
      const known = namespace.findByHash(hash);
      if (known !== undefined) return { index, source: label, status: 'skipped', document: known };

      const embedded = await this.embed(request, label, loaded.title, chunks);
      const vectors = embedded?.vectors;
      // Nothing is stored once the ingest was stopped; a commit under way completes.
      request.signal?.throwIfAborted();
      const [outcome] = await namespace.commitDocuments([
        {
          title: loaded.title,
          origin: label,
          ...(source.kind === 'upload' && source.folder !== undefined ? { folder: source.folder } : {}),
          body,
          hash,
          embeddingModel: vectors === undefined ? null : (this.options.embeddings?.model.id ?? null),
          chunks: chunks.map((chunk, ordinal) => ({ ...chunk, embedding: vectors?.[ordinal] ?? null })),
        },
      ]);
      if (outcome === undefined) throw new Error('commit returned no outcome');
      const warning = outcome.status === 'skipped' ? undefined : embedded?.warning;
      if (warning !== undefined) this.options.embeddings?.embedPendingLater(namespace);
      const noted = warning === undefined ? {} : { warning };
      return outcome.status === 'updated'
        ? { index, source: label, status: 'updated', document: outcome.document, replaced: outcome.replaced, ...noted }
        : { index, source: label, status: outcome.status, document: outcome.document, ...noted };
    } catch (error) {
      // Whatever a stopped download, conversion or embedding call threw, the source failed because the ingest stopped.
      if (request.signal?.aborted) return { index, source: label, status: 'failed', error: stopReason(request.signal) };
      if (isKnowledgeError(error)) return { index, source: label, status: 'failed', error };
      this.options.logError(`ingest of source ${index} failed unexpectedly`, error);
      return {
        index,
        source: label,
        status: 'failed',
        error: new KnowledgeError('internal_error', 'an unexpected error occurred while ingesting this source'),
      };
    }
  }
}
