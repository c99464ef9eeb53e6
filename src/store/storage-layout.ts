// Where the namespaces live: a storage root with one folder each (folder/folder-layout.ts), or a PostgreSQL database
// shared by replicas (postgres/cluster-layout.ts).
// KnowledgeStore opens namespaces through a layout and never knows which one it has.
import type { NamespaceName } from './namespace-name.js';
import type { NamespaceStorage } from './namespace-storage.js';
import type { QuestionLog } from './question-log.js';
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
