// Worker-thread entry of the DocumentConverter's pool: converts one HTML page or PDF per job, off the event loop.
import { serveJobs } from '../worker-pool.js';
import { convertDocument, type ConvertedDocument } from './convert-document.js';
import type { ConversionJob } from './document-converter.js';

serveJobs<ConversionJob, ConvertedDocument>(async ({ format, bytes, url }) => {
  const { title, markdown } = await convertDocument(bytes, format, url);
  return { title, markdown };
});
