// The search and ingest services composed over a temporary store and in-memory models, as src/app.ts composes them,
// for unit tests that call the services directly instead of through HTTP.
import { ChunkEmbedder } from '../../src/embedding/chunk-embedder.js';
import { DocumentConverter } from '../../src/ingest/document-converter.js';
import { IngestService, type IngestServiceOptions } from '../../src/ingest/ingest-service.js';
import type { IngestSource } from '../../src/ingest/ingest-source.js';
import type { EmbeddingModel } from '../../src/providers/embedding-model.js';
import { SearchService } from '../../src/search/search-service.js';
import { createTempStore, type TempStore } from './temp-store.js';

export interface ServiceParts extends TempStore {
  readonly ingest: IngestService;
  readonly search: SearchService;
  /** The owner of the chunks without vectors; undefined without an embedding model. */
  readonly embedder: ChunkEmbedder | undefined;
  /** What the services logged as errors, with the error. */
  readonly loggedErrors: LoggedError[];
  /** Resolves once `count` errors were logged (a background job fails after the call that started it returned). */
  loggedErrorCount(count: number): Promise<void>;
}

export interface LoggedError {
  readonly message: string;
  readonly error: unknown;
}

export interface ServicePartsOptions {
  /** Undefined: no embedding model is configured. */
  readonly embeddings: EmbeddingModel | undefined;
  /** Results any search returns at most. */
  readonly maxResults?: number;
  readonly fileRoots?: readonly string[];
  /** The rest of the ingest service's options (concurrency, onIngested, ...). */
  readonly ingest?: Partial<Pick<IngestServiceOptions, 'concurrency' | 'onIngested' | 'warn' | 'info' | 'maxCrawlPagesPerRequest'>>;
}

export async function createServiceParts(options: ServicePartsOptions): Promise<ServiceParts> {
  const temp = await createTempStore(options.embeddings?.id ?? null);
  const loggedErrors: LoggedError[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const logError = (message: string, error: unknown) => {
    loggedErrors.push({ message, error });
    for (const waiter of waiting.filter((candidate) => loggedErrors.length >= candidate.count)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const embedder = options.embeddings === undefined ? undefined : new ChunkEmbedder(temp.store, options.embeddings, logError);
  // Text and Markdown are converted in place: this converter starts a worker only for HTML or PDF.
  const converter = new DocumentConverter({ workers: 1 });
  const ingest = new IngestService({
    store: temp.store,
    embeddings: embedder,
    converter,
    limits: {
      maxSourceBytes: 1_000_000,
      maxTextBytes: 100_000,
      downloadTimeoutMs: 5_000,
      allowPrivateUrls: true,
      fileRoots: options.fileRoots ?? [temp.root],
    },
    logError,
    ...options.ingest,
  });
  const search = new SearchService(temp.store, embedder, options.maxResults ?? 20);
  return {
    ...temp,
    ingest,
    search,
    embedder,
    loggedErrors,
    loggedErrorCount(count) {
      if (loggedErrors.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ count, resolve }));
    },
    async dispose() {
      await embedder?.close();
      await converter.close();
      await temp.dispose();
    },
  };
}

/** A text source, as the HTTP layer hands one to the ingest service. */
export function textSource(title: string, text: string): IngestSource {
  return { kind: 'text', title, text };
}
