// Converts documents to Markdown: HTML and PDF in a bounded pool of worker threads with time and memory limits (a
// hostile page must neither block the event loop nor take the process's memory), Markdown and text in place.
import { KnowledgeError } from '../errors.js';
import { WorkerPool, workerEntry, type WorkerFailure } from '../worker-pool.js';
import { convertDocument, type ConvertedDocument, type DocumentFormat } from './convert-document.js';

export interface DocumentConverterOptions {
  /** Worker threads converting at once. */
  readonly workers: number;
  /** Wall time one conversion may take (milliseconds). */
  readonly timeoutMs?: number;
  /** Heap one conversion may use (megabytes). */
  readonly memoryMb?: number;
}

/** What the main thread posts to a conversion worker. */
export interface ConversionJob {
  readonly format: 'html' | 'pdf';
  readonly bytes: Uint8Array;
  readonly url: string | undefined;
}

export const defaultConversionTimeoutMs = 30_000;
export const defaultConversionMemoryMb = 512;

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
      failure: (reason, detail) => conversionFailure(reason, detail, this.timeoutMs, memoryMb),
    });
  }

  async convert(bytes: Uint8Array, format: DocumentFormat, url?: string): Promise<ConvertedDocument> {
    if (format === 'markdown' || format === 'text') return convertDocument(bytes, format, url);
    // A copy of its own is moved to the worker: the caller's bytes may be a view into a larger, shared buffer.
    const copy = new Uint8Array(bytes);
    const job: ConversionJob = { format, bytes: copy, url };
    return this.pool.run<ConvertedDocument>(job, { timeoutMs: this.timeoutMs, transfer: [copy.buffer] });
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
