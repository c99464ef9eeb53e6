// Converts a PDF in a child process of its own whose data memory the operating system limits (Linux: RLIMIT_DATA,
// set with `ulimit -d`). pdf.js decodes into buffers that a worker thread's heap limit does not count, and worker
// threads share the process's memory, so only a process can bound what a conversion takes, whatever the document
// does (an encrypted stream the inflation check cannot read, one stream drawn many times). Past the limit an
// allocation fails, or the process dies; either way the conversion fails with conversion_out_of_memory and the
// service's own memory is untouched. Elsewhere (no `/bin/sh`, or not Linux) the PDF is converted in the calling thread.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { KnowledgeError, type ErrorCode } from '../errors.js';
import { workerEntry } from '../worker-pool.js';
import { pdfToMarkdown } from './pdf-to-markdown.js';

export interface PdfProcessLimits {
  /** The JavaScript heap the conversion may use (megabytes), as a worker's. */
  readonly heapMb: number;
  /** All the data memory (heap and buffers) the conversion's process may use (megabytes). */
  readonly memoryMb: number;
  /**
   * CPU time the process may use (seconds): a backstop for a process whose worker was stopped at the time limit while
   * it was too busy to notice.
   */
  readonly cpuSeconds: number;
}

type ConvertedPdf = { readonly title: string | null; readonly markdown: string };
type ProcessReply = ConvertedPdf | { readonly error: { readonly code: ErrorCode | undefined; readonly message: string } };

/** Whether PDFs go to a child process here: the limit needs Linux's RLIMIT_DATA, which macOS does not enforce. */
export const convertsPdfInChildProcess = process.platform === 'linux';

export async function convertPdfInChildProcess(bytes: Uint8Array, limits: PdfProcessLimits): Promise<ConvertedPdf> {
  if (!convertsPdfInChildProcess) return pdfToMarkdown(bytes);
  const entry = workerEntry(import.meta.url, 'pdf-conversion-process');
  // From the TypeScript sources (tests, `npm run dev`) the child needs tsx's loader; the compiled service never does.
  const loader = entry.pathname.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [];
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      `ulimit -d ${limits.memoryMb * 1024} && ulimit -t ${limits.cpuSeconds} && exec "$@"`,
      'sh',
      process.execPath,
      `--max-old-space-size=${limits.heapMb}`,
      ...loader,
      fileURLToPath(entry),
    ],
    { stdio: ['pipe', 'pipe', 'pipe', 'ipc'] },
  );
  const output: Buffer[] = [];
  let errorOutput = '';
  child.stdout?.on('data', (piece: Buffer) => output.push(piece));
  child.stderr?.on('data', (piece: Buffer) => (errorOutput = (errorOutput + piece.toString()).slice(-4096)));
  child.stdin?.on('error', () => {}); // a child that died early closed its input: its exit says why
  child.stdin?.end(bytes);
  const [exitCode, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  const outOfMemory = () =>
    new KnowledgeError(
      'conversion_out_of_memory',
      `converting the PDF needed more than ${limits.memoryMb} MB, the memory a PDF conversion's process may use`,
    );
  if (exitCode !== 0) {
    if (signal === 'SIGXCPU') {
      throw new KnowledgeError('conversion_timed_out', `converting the PDF used more than ${limits.cpuSeconds} s of CPU time`);
    }
    if (signal !== null || /allocation failed|out of memory|Cannot allocate/i.test(errorOutput)) throw outOfMemory();
    throw new KnowledgeError('document_unreadable', `the PDF could not be converted: its process exited with code ${exitCode}`);
  }
  const reply = JSON.parse(Buffer.concat(output).toString('utf8')) as ProcessReply;
  if (!('error' in reply)) return reply;
  if (reply.error.code === 'conversion_out_of_memory') throw outOfMemory();
  if (reply.error.code === undefined)
    throw new KnowledgeError('document_unreadable', `the PDF could not be converted: ${reply.error.message}`);
  throw new KnowledgeError(reply.error.code, reply.error.message);
}
