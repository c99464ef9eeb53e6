// The folder layout: a storage root with one folder per namespace, its question log and registered sources kept in
// dot-folders beside each namespace's documents. The layout KnowledgeStore uses unless it is given another.
import { statSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isNamespaceName, type NamespaceName } from '../namespace-name.js';
import type { NamespaceStorage } from '../namespace-storage.js';
import type { QuestionLog } from '../question-log.js';
import type { SourceRegistry } from '../source-registry.js';
import type { NamespaceCounts, StorageLayout } from '../storage-layout.js';
import { FolderQuestionLog } from './folder-question-log.js';
import { FolderSourceRegistry } from './folder-source-registry.js';
import { FolderStorage, type FolderStorageOptions } from './folder-storage.js';
import { journalFileName } from './index-files.js';
import { indexJsonFileName, readIndexJsonCounts } from './index-json.js';

export type FolderLayoutOptions = Omit<FolderStorageOptions, 'name' | 'directory'> & {
  /** Absolute storage root. */
  readonly root: string;
};

/** One folder per namespace under the storage root. */
export class FolderLayout implements StorageLayout {
  readonly opensInBackground = false;
  readonly ownsBackgroundWork = true;
  readonly questionLog: QuestionLog;
  readonly sources: SourceRegistry;

  constructor(private readonly options: FolderLayoutOptions) {
    this.questionLog = new FolderQuestionLog(options.root, () => this.namespaceNames());
    this.sources = new FolderSourceRegistry(options.root, () => this.namespaceNames());
  }

  async start(): Promise<NamespaceName[]> {
    await mkdir(this.options.root, { recursive: true });
    return this.namespaceNames();
  }

  async namespaceNames(): Promise<NamespaceName[]> {
    const entries = await readdir(this.options.root, { withFileTypes: true });
    // Folders whose name is not a namespace name (another character, over 64 long) are not namespaces.
    return entries.flatMap((entry) => (entry.isDirectory() && isNamespaceName(entry.name) ? [entry.name] : [])).sort();
  }

  /**
   * Whether the folder exists. That holds for a namespace opened earlier whose folder was removed by hand too:
   * reading it would write its folder back (its next ingest does, and the reconciliation with the folder then drops
   * what is gone). The check is synchronous: it runs before every search.
   */
  holds(name: NamespaceName): boolean {
    try {
      return statSync(join(this.options.root, name)).isDirectory();
    } catch {
      return false;
    }
  }

  storageFor(name: NamespaceName): NamespaceStorage {
    return new FolderStorage({ ...this.options, name, directory: join(this.options.root, name) });
  }

  /** From index.json's header line, which is current when there is no journal to replay over it (after a clean close). */
  async storedCounts(name: NamespaceName): Promise<NamespaceCounts | undefined> {
    const directory = join(this.options.root, name);
    const journalBytes = await stat(join(directory, journalFileName)).then(
      (stats) => stats.size,
      () => 0,
    );
    if (journalBytes > 0) return undefined;
    const counts = await readIndexJsonCounts(join(directory, indexJsonFileName)).catch(() => undefined);
    if (counts === undefined) return undefined;
    // Vectors of another model than the one configured are dropped when the namespace is loaded (see FolderStorage.load).
    const model = counts.embedding?.model;
    const kept = model !== undefined && (this.options.embeddingModel === null || model === this.options.embeddingModel);
    return { documents: counts.documentCount, chunks: counts.chunkCount, vectors: undefined, embeddingModel: kept ? model : null };
  }

  async close(): Promise<void> {
    // Nothing held beyond the namespaces' own files.
  }
}
