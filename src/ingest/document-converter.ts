// Converts documents to Markdown, titles, hashes and chunks them (prepare-document.ts) in a bounded pool of worker
// threads with time and memory limits: a hostile page must neither block the event loop nor take the process's
// memory. Only small Markdown and text are prepared in place, where a worker's round trip would cost more.
import { KnowledgeError } from '../errors.js';
import { WorkerPool, workerEntry, type WorkerFailure } from '../worker-pool.js';
import type { DocumentFormat } from './convert-document.js';
import type { PdfProcessLimits } from './pdf-child-process.js';
import { prepareDocument, type DocumentInput, type PreparedDocument } from './prepare-document.js';

export interface DocumentConverterOptions {
  /** Worker threads converting at once. */
  readonly workers: number;
  /** Wall time one conversion may take (milliseconds). */
  readonly timeoutMs?: number;
  /** Heap one conversion may use (megabytes); a PDF's process may use twice as much memory, buffers included. */
  readonly memoryMb?: number;
}

export const defaultConversionTimeoutMs = 30_000;
export const defaultConversionMemoryMb = 512;
/**
 * Markdown and text up to this size (bytes, or characters of a snippet) are prepared on the event loop: ordinary pages
 * take about 1 ms there, the slowest pathological Markdown measured (bench/markup-speed.ts: 1 to 3.6 s per MB on a
 * shared 2-core machine at load 7 to 12) 8 to 30 ms. A worker's round trip costs more than it saves for small pages
 * (median wall time, FastAPI pages: 2 KB 0.5 ms in a worker against 0.3 ms in place, 8 KB 1.3 against 1.0).
 */
export const inPlaceLimit = 8 * 1024;

/**
 * A conversion worker ends ordinary pages with 20-60 MB of heap; one that converted something huge (6 MB of
 * pathological Markdown: about 100 MB) is replaced, so that its pages go back to the system before the document is
 * committed on the event loop. Node 24 keeps such a grown heap: the 6 MB upload grew the process by 240-300 MB with
 * the worker kept, 140 MB with it replaced.
 */
const replaceWorkerAboveHeapMb = 96;

export class DocumentConverter {
  private readonly pool: WorkerPool;
  private readonly timeoutMs: number;

  constructor(options: DocumentConverterOptions) {
    this.timeoutMs = options.timeoutMs ?? defaultConversionTimeoutMs;
    const memoryMb = options.memoryMb ?? defaultConversionMemoryMb;
    this.pool = new WorkerPool({
      entry: workerEntry(import.meta.url, 'conversion-worker'),
      size: options.workers,
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 32 },
      workerData: { heapMb: memoryMb, memoryMb: 2 * memoryMb } satisfies PdfProcessLimits,
      replaceAboveHeapMb: replaceWorkerAboveHeapMb,
      failure: (reason, detail) => conversionFailure(reason, detail, this.timeoutMs, memoryMb),
    });
  }

  /**
   * Converts a document's bytes (`url`: where it was fetched from, for resolving its links). `signal` drops the job
   * and rejects with its reason (a conversion already running finishes in its worker, unheard).
   */
  async convert(bytes: Uint8Array, format: DocumentFormat, url?: string, signal?: AbortSignal): Promise<PreparedDocument> {
    if ((format === 'markdown' || format === 'text') && bytes.length <= inPlaceLimit) return prepareDocument({ format, bytes, url });
    // A copy of its own is moved to the worker: the caller's bytes may be a view into a larger, shared buffer.
    const copy = new Uint8Array(bytes);
    return this.prepareInWorker({ format, bytes: copy, url }, [copy.buffer], signal);
  }

  /** Prepares a text snippet sent as a string (kept as written: no doc-site markup is normalised). */
  async convertText(text: string, signal?: AbortSignal): Promise<PreparedDocument> {
    if (text.length <= inPlaceLimit) return prepareDocument({ format: 'snippet', text });
    return this.prepareInWorker({ format: 'snippet', text }, [], signal);
  }

  private prepareInWorker(input: DocumentInput, transfer: ArrayBuffer[], signal: AbortSignal | undefined): Promise<PreparedDocument> {
    return this.pool.run<PreparedDocument>(input, { timeoutMs: this.timeoutMs, transfer, signal });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function conversionFailure(reason: WorkerFailure, detail: string, timeoutMs: number, memoryMb: number): KnowledgeError {
  switch (reason) {
    case 'timed-out':
      return new KnowledgeError('conversion_timed_out', `converting the document took longer than ${timeoutMs / 1000} s, its time limit`);
    case 'out-of-memory':
      return new KnowledgeError(
        'conversion_out_of_memory',
        `converting the document needed more than ${memoryMb} MB, the memory a conversion may use`,
      );
    case 'crashed':
      return new KnowledgeError('document_unreadable', `the document could not be converted: ${detail}`);
  }
}
