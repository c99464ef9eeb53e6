// Converts a PDF in a child process of its own whose data memory the operating system limits (Linux: RLIMIT_DATA,
// set with `ulimit -d`). pdf.js decodes into buffers that a worker thread's heap limit does not count, and worker
// threads share the process's memory, so only a process can bound what a conversion takes, whatever the document
// does (an encrypted stream the inflation check cannot read, one stream drawn many times). Past the limit an
// allocation fails, or the process dies; either way the conversion fails with conversion_out_of_memory and the
// service's own memory is untouched. Elsewhere (no `/bin/sh`, or not Linux) the PDF is converted in the calling thread.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { KnowledgeError, type ErrorCode } from '../errors.js';
import { workerEntry } from '../worker-pool.js';
import { pdfToMarkdown } from './pdf-to-markdown.js';

export interface PdfProcessLimits {
  /** The JavaScript heap the conversion may use (megabytes), as a worker's. */
  readonly heapMb: number;
  /** All the data memory (heap and buffers) the conversion's process may use (megabytes). */
  readonly memoryMb: number;
}

type ConvertedPdf = { readonly title: string | null; readonly markdown: string };
type ProcessReply = ConvertedPdf | { readonly error: { readonly code: ErrorCode | undefined; readonly message: string } };

/** Whether PDFs go to a child process here: the limit needs Linux's RLIMIT_DATA, which macOS does not enforce. */
const convertsPdfInChildProcess = process.platform === 'linux';

/**
 * The conversion process of one conversion worker, started at its first PDF and kept for the next ones (starting Node
 * and pdf.js costs about a second), one PDF at a time. A process that failed for lack of memory or ended is replaced
 * at the next PDF; it ends with its worker (its channel closes).
 */
export class PdfConversionProcess {
  private child: ChildProcess | undefined;
  private job: { resolve(converted: ConvertedPdf): void; reject(error: KnowledgeError): void } | undefined;
  private errorOutput = '';

  constructor(private readonly limits: PdfProcessLimits) {}

  convert(bytes: Uint8Array): Promise<ConvertedPdf> {
    if (!convertsPdfInChildProcess) return pdfToMarkdown(bytes);
    const child = this.child ?? this.start();
    return new Promise((resolve, reject) => {
      this.job = { resolve, reject };
      child.send(bytes);
    });
  }

  private start(): ChildProcess {
    const entry = workerEntry(import.meta.url, 'pdf-conversion-process');
    // From the TypeScript sources (tests, `npm run dev`) the child needs tsx's loader; the compiled service never does.
    const loader = entry.pathname.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [];
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        `ulimit -d ${this.limits.memoryMb * 1024} && exec "$@"`,
        'sh',
        process.execPath,
        `--max-old-space-size=${this.limits.heapMb}`,
        ...loader,
        fileURLToPath(entry),
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' },
    );
    this.child = child;
    this.errorOutput = '';
    child.stderr?.on('data', (piece: Buffer) => (this.errorOutput = (this.errorOutput + piece.toString()).slice(-4096)));
    child.on('message', (reply: ProcessReply) => this.settle(reply));
    child.once('exit', (exitCode, signal) => {
      if (this.child === child) this.child = undefined;
      const reason =
        signal !== null || /allocation failed|out of memory|Cannot allocate/i.test(this.errorOutput)
          ? this.outOfMemory()
          : new KnowledgeError('document_unreadable', `the PDF could not be converted: its process exited with code ${exitCode}`);
      this.job?.reject(reason);
      this.job = undefined;
    });
    return child;
  }

  private settle(reply: ProcessReply): void {
    const job = this.job;
    this.job = undefined;
    if (job === undefined) return;
    if (!('error' in reply)) return job.resolve(reply);
    if (reply.error.code === 'conversion_out_of_memory') {
      // A process that ran out of memory may hold on to what it could allocate: the next PDF gets a fresh one.
      this.child?.kill();
      this.child = undefined;
      return job.reject(this.outOfMemory());
    }
    job.reject(
      reply.error.code === undefined
        ? new KnowledgeError('document_unreadable', `the PDF could not be converted: ${reply.error.message}`)
        : new KnowledgeError(reply.error.code, reply.error.message),
    );
  }

  private outOfMemory(): KnowledgeError {
    return new KnowledgeError(
      'conversion_out_of_memory',
      `converting the PDF needed more than ${this.limits.memoryMb} MB, the memory a PDF conversion's process may use`,
    );
  }
}
