// A real KnowledgeStore on a temporary folder, composed as src/app.ts composes it, for unit tests of the services.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkMarkdown } from '../../src/ingest/chunk-markdown.js';
import { KnowledgeStore } from '../../src/store/knowledge-store.js';

export interface TempStore {
  readonly store: KnowledgeStore;
  readonly root: string;
  /** What the store warned about. */
  readonly warnings: string[];
  /** Closes the store and removes its folder. */
  dispose(): Promise<void>;
}

/** `embeddingModel`: the id of the model the service embeds with, or null without one. */
export async function createTempStore(embeddingModel: string | null): Promise<TempStore> {
  const root = await mkdtemp(join(tmpdir(), 'knowledge-agent-unit-'));
  const warnings: string[] = [];
  const store = new KnowledgeStore({
    root,
    embeddingModel,
    chunkBody: (body) => chunkMarkdown(body),
    warn: (message) => warnings.push(message),
  });
  await store.initialize();
  return {
    store,
    root,
    warnings,
    async dispose() {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
