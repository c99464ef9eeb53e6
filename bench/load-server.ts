// The service under load for bench/load.ts: the real app (buildApp) on 127.0.0.1 over a temporary storage root holding
// the 155 FastAPI pages. Run by bench/load.ts as a child process (so the load generator does not share its event loop);
// it reports {"type":"ready","port",...} over IPC, answers "cpu" with {"type":"cpu","micros"} (its CPU time so far),
// and closes when the parent disconnects or sends "stop".
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddingModelName } from '../src/providers/select-models.js';
import { startBenchApp } from './bench-app.js';
import { fastapiDirectory, ingestFiles, markdownFiles } from './ingest-speed-child.js';
import { sharedDataDirectory } from './shared-data.js';

export interface LoadServer {
  readonly port: number;
  readonly documents: number;
  readonly chunks: number;
  /** How the pages got in: straight through IngestService (no provider) or through POST /tools/ingest (embedded by the provider). */
  readonly ingestedThrough: string;
  readonly embeddingModel: string | null;
  close(): Promise<void>;
}

const sourcesPerRequest = 100;

/**
 * Without a provider the pages are ingested before the app starts, through the same IngestService and store but with
 * no embedding model: the app would otherwise embed every chunk with the bundled local model, which is not what a
 * search load test measures (lexical search never needs the vectors). With LLM_API_KEY set they go through
 * POST /tools/ingest, so the provider embeds them and embedding search has its vectors.
 */
export async function startLoadServer(environment: Record<string, string | undefined>): Promise<LoadServer> {
  const root = await mkdtemp(join(tmpdir(), 'knowledge-agent-load-'));
  try {
    const files = await markdownFiles(fastapiDirectory);
    const providerConfigured = (environment['LLM_API_KEY'] ?? '').trim() !== '';
    let documents = 0;
    let chunks = 0;
    if (!providerConfigured) {
      const run = await ingestFiles(files, undefined, root);
      if (run.failures.length > 0) throw new Error(`pre-ingest failed: ${run.failures[0]}`);
      [documents, chunks] = [run.documents, run.chunks];
    }
    const { app, config, port } = await startBenchApp({
      ...Object.fromEntries(['LLM_API_KEY', 'LLM_BASE_URL', 'KNOWLEDGE_AGENT_EMBEDDING_MODEL'].map((name) => [name, environment[name]])),
      KNOWLEDGE_AGENT_STORAGE_PATH: root,
      KNOWLEDGE_AGENT_FILE_ROOTS: sharedDataDirectory,
    });
    if (providerConfigured) {
      for (let start = 0; start < files.length; start += sourcesPerRequest) {
        const response = await app.inject({
          method: 'POST',
          url: '/tools/ingest',
          payload: { namespace: 'docs', sources: files.slice(start, start + sourcesPerRequest).map((path) => ({ type: 'file', path })) },
        });
        const body = response.json() as { documents?: { chunks: number }[]; errors?: { error: string }[] };
        if (response.statusCode !== 200 || (body.errors?.length ?? 0) > 0) {
          throw new Error(`POST /tools/ingest answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
        }
        documents += body.documents?.length ?? 0;
        chunks += (body.documents ?? []).reduce((total, document) => total + document.chunks, 0);
      }
    }
    return {
      port,
      documents,
      chunks,
      ingestedThrough: providerConfigured ? 'POST /tools/ingest' : 'IngestService, before start-up (no embedding calls)',
      embeddingModel: providerConfigured ? embeddingModelName(config.provider) : null,
      async close() {
        await app.close();
        await rm(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.send === undefined) {
    console.error('bench/load-server.ts is started by bench/load.ts (it reports over an IPC channel)');
    process.exit(2);
  }
  const server = await startLoadServer(process.env);
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    await server.close();
    process.disconnect?.();
  };
  process.on('message', (message) => {
    if (message === 'stop') void stop();
    if (message === 'cpu') {
      const used = process.cpuUsage();
      process.send?.({ type: 'cpu', micros: used.user + used.system });
    }
  });
  process.on('disconnect', () => void stop());
  const { port, documents, chunks, ingestedThrough, embeddingModel } = server;
  process.send({ type: 'ready', port, documents, chunks, ingestedThrough, embeddingModel });
}
