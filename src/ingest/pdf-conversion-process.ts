// Entry of the child process that converts PDFs for one conversion worker (pdf-child-process.ts): one PDF at a time
// over its IPC channel, the PDF's bytes in, `{title, markdown}` or `{error: {code, message}}` out.
import { KnowledgeError } from '../errors.js';
import { pdfToMarkdown } from './pdf-to-markdown.js';

/** A buffer the process's memory limit refused, found in the error or its causes. */
function isAllocationFailure(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (/allocation failed|out of memory/i.test(cause.message)) return true;
  }
  return false;
}

// When the worker's end of the channel closes (the worker was stopped past the time limit, or the service stops),
// nobody waits for a conversion any more. It may have closed while this module loaded: then the state says so.
process.once('disconnect', () => process.exit(1));
if (!process.connected) process.exit(1);

process.on('message', (bytes: Uint8Array) => {
  pdfToMarkdown(bytes).then(
    ({ title, markdown }) => process.send?.({ title, markdown }),
    (error: unknown) => {
      const code = error instanceof KnowledgeError ? error.code : isAllocationFailure(error) ? 'conversion_out_of_memory' : undefined;
      process.send?.({ error: { code, message: error instanceof Error ? error.message : String(error) } });
    },
  );
});
