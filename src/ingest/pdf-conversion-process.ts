// Entry of the child process that converts one PDF (pdf-child-process.ts): reads the PDF from stdin and writes
// `{title, markdown}`, or `{error: {code, message}}`, as JSON to stdout.
import { KnowledgeError } from '../errors.js';
import { pdfToMarkdown } from './pdf-to-markdown.js';

/** A buffer the process's memory limit refused, found in the error or its causes. */
function isAllocationFailure(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (/allocation failed|out of memory/i.test(cause.message)) return true;
  }
  return false;
}

// When the parent's end of the IPC channel closes (its worker was stopped past the time limit), nobody waits for
// this conversion any more. The channel alone does not keep the process alive.
process.once('disconnect', () => process.exit(1));
// It may have closed before this module ran (while it loaded): the event was missed, but the state says so.
if (!process.connected) process.exit(1);
process.channel?.unref();

/** Writes the reply, then exits once it is flushed (a pipe may take it asynchronously). */
function reply(value: unknown): void {
  process.stdout.write(JSON.stringify(value), () => process.exit(0));
}

const input: Buffer[] = [];
for await (const piece of process.stdin) input.push(piece as Buffer);
try {
  const { title, markdown } = await pdfToMarkdown(Buffer.concat(input));
  reply({ title, markdown });
} catch (error) {
  const code = error instanceof KnowledgeError ? error.code : isAllocationFailure(error) ? 'conversion_out_of_memory' : undefined;
  reply({ error: { code, message: error instanceof Error ? error.message : String(error) } });
}
