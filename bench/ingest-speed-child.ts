// The ingest pipeline as the service composes it (KnowledgeStore + IngestService), for bench/ingest-speed.ts;
// run as a script it is the child process whose peak RSS that benchmark reads:
//   tsx bench/ingest-speed-child.ts baseline          imports these modules only, prints {"maxRssKb"}
//   tsx bench/ingest-speed-child.ts baseline-pdfjs    also loads pdf.js (which unpdf loads on first use), prints {"maxRssKb"}
//   tsx bench/ingest-speed-child.ts file <path>...    ingests the files into a fresh temp root, prints {"ms","cpuMs","chunks","maxRssKb"}
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChunkEmbedder } from '../src/embedding/chunk-embedder.js';
import { chunkMarkdown } from '../src/ingest/chunk-markdown.js';
import { DocumentConverter } from '../src/ingest/document-converter.js';
import { IngestService, type IngestReport } from '../src/ingest/ingest-service.js';
import type { IngestSource } from '../src/ingest/ingest-source.js';
import type { EmbeddingModel } from '../src/providers/embedding-model.js';
import { KnowledgeStore } from '../src/store/knowledge-store.js';
import { sharedDataDirectory } from './shared-data.js';
import { sanitizeNamespace } from '../src/store/namespace-name.js';

export const fastapiDirectory = join(sharedDataDirectory, 'docs-fastapi');
export const bashManualPdf = join(sharedDataDirectory, 'pdfs', 'bash-reference-manual-5.2.pdf');

/** The service's fixed limits (src/config.ts), with the shared data folder as the only file root. */
const limits = {
  maxSourceBytes: 6 * 1024 * 1024,
  maxTextBytes: 200 * 1024,
  downloadTimeoutMs: 15_000,
  allowPrivateUrls: false,
  fileRoots: [sharedDataDirectory],
};

/** Every Markdown file under `directory`, sorted, as absolute paths. */
export async function markdownFiles(directory: string): Promise<string[]> {
  const names = await readdir(directory, { recursive: true });
  return names
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(directory, name))
    .sort();
}

export interface IngestRun {
  /** Wall time of the ingest call plus the store's queued writes, in milliseconds. */
  readonly ms: number;
  /** CPU time (user + system) of this process over the same span, in milliseconds: steadier than wall time on a busy machine. */
  readonly cpuMs: number;
  readonly chunks: number;
  readonly documents: number;
  readonly failures: string[];
}

/**
 * Ingests `paths` as file sources into namespace `docs`, composed as app.ts composes it: into `storageRoot` (kept),
 * or by default into a fresh temporary root that is removed afterwards.
 */
export async function ingestFiles(paths: readonly string[], embeddings?: EmbeddingModel, storageRoot?: string): Promise<IngestRun> {
  const root = storageRoot ?? (await mkdtemp(join(tmpdir(), 'knowledge-agent-bench-')));
  try {
    const store = new KnowledgeStore({
      root,
      embeddingModel: embeddings?.id ?? null,
      chunkBody: (body) => chunkMarkdown(body),
      warn: (message) => console.warn(`warning: ${message}`),
    });
    await store.initialize();
    const converter = new DocumentConverter({ workers: 1 });
    const ingest = new IngestService({
      store,
      embeddings:
        embeddings === undefined ? undefined : new ChunkEmbedder(store, embeddings, (message, error) => console.error(message, error)),
      converter,
      limits,
      logError: (message, error) => console.error(message, error),
    });
    const sources: IngestSource[] = paths.map((path) => ({ kind: 'file', path }));
    const cpu = process.cpuUsage();
    const started = performance.now();
    const report: IngestReport = await ingest.ingest(sanitizeNamespace('docs'), sources);
    await store.close();
    await converter.close();
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    let chunks = 0;
    let documents = 0;
    const failures: string[] = [];
    for (const outcome of report.outcomes) {
      if (outcome.status === 'failed') failures.push(`${outcome.source}: ${outcome.error.code} ${outcome.error.message}`);
      else {
        documents += 1;
        chunks += outcome.document.chunks.length;
      }
    }
    return { ms, cpuMs, chunks, documents, failures };
  } finally {
    if (storageRoot === undefined) await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [mode, ...paths] = process.argv.slice(2);
  if (mode === 'baseline') {
    console.log(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS }));
  } else if (mode === 'baseline-pdfjs') {
    await (await import('unpdf')).getResolvedPDFJS();
    console.log(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS }));
  } else if (mode === 'file' && paths.length > 0) {
    const run = await ingestFiles(paths);
    console.log(JSON.stringify({ ...run, maxRssKb: process.resourceUsage().maxRSS }));
  } else {
    console.error('usage: tsx bench/ingest-speed-child.ts baseline | baseline-pdfjs | file <path>...');
    process.exit(2);
  }
}
