// Worker-thread entry of the DocumentConverter's pool: converts, hashes and chunks one document per job, off the
// event loop.
import { serveJobs } from '../worker-pool.js';
import { prepareDocument, type DocumentInput, type PreparedDocument } from './prepare-document.js';

serveJobs<DocumentInput, PreparedDocument>(prepareDocument);
