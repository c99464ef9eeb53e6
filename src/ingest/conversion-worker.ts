// Worker-thread entry of the DocumentConverter's pool: converts, hashes and chunks one document per job, off the
// event loop; a PDF in a process of its own under a memory limit (pdf-child-process.ts).
import { workerData } from 'node:worker_threads';
import { serveJobs } from '../worker-pool.js';
import { PdfConversionProcess, type PdfProcessLimits } from './pdf-child-process.js';
import { prepareDocument, type DocumentInput, type PreparedDocument } from './prepare-document.js';

const pdfProcess = new PdfConversionProcess(workerData as PdfProcessLimits);

serveJobs<DocumentInput, PreparedDocument>((input) => prepareDocument(input, (bytes) => pdfProcess.convert(bytes)));
