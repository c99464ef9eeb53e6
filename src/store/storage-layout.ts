// Where the namespaces live: a storage root with one folder each, or a PostgreSQL database shared by replicas.
// KnowledgeStore opens namespaces through a layout and never knows which one it has.
import { statSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FolderStorage, type FolderStorageOptions } from './folder-storage.js';
import { journalFileName } from './index-files.js';
import { indexJsonFileName, readIndexJsonCounts } from './index-json.js';
import { maxNamespaceLength, sanitizeNamespace, type NamespaceName } from './namespace-name.js';
import type { NamespaceStorage } from './namespace-storage.js';
import { FolderQuestionLog } from './folder-question-log.js';
import type { QuestionLog } from './question-log.js';
import { FolderSourceRegistry } from './folder-source-registry.js';
import type { SourceRegistry } from './source-registry.js';

/** What a layout tells the store about changes made elsewhere (by other replicas). */
export interface LayoutEvents {
  /** The namespace was created or changed elsewhere: bring it up to date (open it if it is new). */
  changed(name: NamespaceName): void;
  /** The namespace was removed elsewhere: forget it. */
  removed(name: NamespaceName): void;
}

/** What a namespace holds, in numbers. */
export interface NamespaceCounts {
  readonly documents: number;
  readonly chunks: number;
  /** Chunks embedded with the namespace's current model; undefined when the storage cannot tell without loading it. */
  readonly vectors: number | undefined;
  /** The model of the namespace's vectors, null while none are stored. */
  readonly embeddingModel: string | null;
}

export interface StorageLayout {
  /**
   * True when the namespaces are opened after start-up returns (the service answers /health with `starting` while
   * it catches up); false when they are opened before the first request.
   */
  readonly opensInBackground: boolean;
  /** Whether this process runs the work that must happen once across replicas (re-embedding after a model change). */
  readonly ownsBackgroundWork: boolean;
  /** Prepares the storage and lists the namespaces it holds. */
  start(events: LayoutEvents): Promise<NamespaceName[]>;
  /** Names of the namespaces held, sorted. */
  namespaceNames(): Promise<NamespaceName[]>;
  /** Whether a namespace of this (sanitized) name exists; synchronous, as it is asked before every search. */
  holds(name: NamespaceName): boolean;
  storageFor(name: NamespaceName): NamespaceStorage;
  /** What a namespace holds, read without loading it; undefined when it cannot be read cheaply (it is loaded instead). */
  storedCounts(name: NamespaceName): Promise<NamespaceCounts | undefined>;
  /** Where the namespaces' questions are kept. */
  readonly questionLog: QuestionLog;
  /** Where the namespaces' registered sources and their refresh state are kept. */
  readonly sources: SourceRegistry;
  close(): Promise<void>;
}

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
    return (
      entries
        // Folders whose name is not a namespace name (another character, over 64 long) are not namespaces.
        .filter((entry) => entry.isDirectory() && /^[A-Za-z0-9_-]+$/.test(entry.name) && entry.name.length <= maxNamespaceLength)
        .map((entry) => sanitizeNamespace(entry.name))
        .sort()
    );
  }

  /**
   * Whether the folder exists. That holds for a namespace opened earlier whose folder was removed by hand too:
   * reading it would write its folder back (its next ingest does, and the reconciliation with the folder then drops
   * what is gone). The check is synchronous: it runs before every search.
   */
  holds(name: string): boolean {
    try {
      return statSync(join(this.options.root, name)).isDirectory();
    } catch {
      return false;
    }
  }

  storageFor(name: string): NamespaceStorage {
    return new FolderStorage({ ...this.options, name, directory: join(this.options.root, name) });
  }

  /** From index.json's header line, which is current when there is no journal to replay over it (after a clean close). */
  async storedCounts(name: string): Promise<NamespaceCounts | undefined> {
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
