// Where a namespace persists: the seam between the commit logic every namespace shares (Namespace: the queue, dedupe
// by hash, upsert by source, model adoption, undo) and the place its documents and committed ops are kept (a folder
// of Markdown files with index files, or PostgreSQL). Searches and routes see only Namespace.
import type { IndexOp } from './index-ops.js';
import type { NamespaceIndex } from './namespace-index.js';
import type { StagedDocuments } from './staged-documents.js';

/** What storing a document's Markdown left, recorded in its StoredDocument to notice hand edits. */
export interface WrittenDocument {
  readonly file: string;
  readonly size: number;
  readonly modifiedMs: number;
}

/**
 * One batch of changes being written. Until `commit` resolves nothing of it is visible to searches; a failed change is
 * undone alone (`undo` back to its `mark`), a failed commit undoes the whole batch.
 */
export interface StorageBatch {
  /** Stores the Markdown of a new document under a free file name derived from `slug`; `taken` says which are held. */
  createDocument(slug: string, content: string, taken: (file: string) => boolean): Promise<WrittenDocument>;
  /** Replaces the Markdown of a stored document. */
  replaceDocument(file: string, content: string): Promise<WrittenDocument>;
  removeDocument(file: string): Promise<void>;
  /** How far the batch has got, for `undo`. */
  mark(): number;
  undo(since: number): Promise<void>;
  /** Makes the batch durable together with its ops, then applies the ops to `index`: nothing is live before it is stored. */
  commit(ops: readonly IndexOp[], index: NamespaceIndex): Promise<void>;
  /** Gives the batch up (nothing was committed): what it wrote goes. */
  abort(): Promise<void>;
}

export interface OutsideChanges {
  /** The ops that bring `documents` (the namespace's, changed in place) up to date with the storage. */
  stage(documents: StagedDocuments): Promise<IndexOp[]>;
  /** The ops could not be committed (a full disk): look again next time. */
  retryLater(): void;
}

export interface NamespaceStorage {
  /** One human-readable warning per stored document left out of the index because it could not be read. */
  readonly warnings: string[];
  /** The index as stored, with whatever changed outside the service since (ops through `record`, kept durable by it). */
  load(): Promise<NamespaceIndex>;
  /**
   * Starts a batch. Before it resolves, changes committed elsewhere (other replicas) are applied to `index`, and no
   * other writer of the namespace can commit until the batch is committed or aborted: staging sees the latest state.
   */
  beginBatch(index: NamespaceIndex): Promise<StorageBatch>;
  /** Applies changes committed elsewhere (other replicas) since the index last saw the storage. */
  refresh(index: NamespaceIndex): Promise<void>;
  /** The stored Markdown of a document (with its front matter), or undefined when there is none. */
  readDocument(file: string): Promise<string | undefined>;
  /**
   * Changes made outside the service's commits that the namespace should pick up, or undefined when there are none
   * (checked cheaply before every search). They are staged like any change, so they are journalled and can be undone.
   */
  outsideChanges(documentCount: number): OutsideChanges | undefined;
  /** After the namespace's queue is settled, on shutdown (folds a journal, releases connections). */
  close(index: NamespaceIndex): Promise<void>;
  /** Removes everything the namespace stored. */
  destroy(): Promise<void>;
  /** After a batch went live: housekeeping that may fail without losing anything (a folder's snapshot, say). */
  afterCommit(index: NamespaceIndex): Promise<void>;
}
