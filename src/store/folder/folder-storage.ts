// A namespace kept in a folder: one Markdown file per document, the index files beside them (index.json, the journal
// of commits since it was written, and a binary snapshot that caches it).
// Files placed, edited or removed by hand are reconciled with the index at start-up and before searches.
import { statSync, type Stats } from 'node:fs';
import { link, mkdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { forEachConcurrently } from '../../concurrency.js';
import { backupFilePrefix, createFileAtomic, writeFileAtomic } from '../atomic-write.js';
import { DocumentFolder, type DocumentFolderOptions } from './document-folder.js';
import { IndexFiles } from './index-files.js';
import type { IndexOp } from '../index-ops.js';
import { NamespaceIndex } from '../namespace-index.js';
import type { NamespaceStorage, OutsideChanges, StorageBatch, WrittenDocument } from '../namespace-storage.js';
import { uniqueFileName } from '../slug.js';
import { describeFileError, isStorageFull, withPath } from '../storage-full.js';

/** Changed files read at once when the folder is reconciled at start-up. */
const readConcurrency = 32;

/** How long after the service's own writes the folder is checked for a change by hand they hid (see ownWritesDone). */
const ownWritesCheckDelayMs = 1_000;

export interface FolderStorageOptions extends DocumentFolderOptions {
  /** The embedding model in use; vectors recorded under another model are dropped and re-embedded. */
  readonly embeddingModel: string | null;
}

export class FolderStorage implements NamespaceStorage {
  private readonly folder: DocumentFolder;
  private readonly indexFiles: IndexFiles;
  /**
   * Modification time of the folder when its file names were last read, or as the service's own writes left it: any
   * other is a change by hand (see outsideChanges).
   */
  private seenFolderModifiedMs = 0;
  /** A check that the service's own writes hid no change by hand, waiting to run (see checkOwnWritesLater). */
  private ownWritesCheck: NodeJS.Timeout | undefined;
  /** Incremented as each of the service's own writes starts and ends, so a check that overlapped one runs again. */
  private ownWrites = 0;
  private ownWritesUnderWay = 0;
  private closed = false;

  constructor(private readonly options: FolderStorageOptions) {
    this.folder = new DocumentFolder(options);
    this.indexFiles = new IndexFiles(options.directory, `namespace ${options.name}`, options.warn);
  }

  get directory(): string {
    return this.options.directory;
  }

  get warnings(): string[] {
    return this.folder.warnings;
  }

  async readDocument(file: string): Promise<string | undefined> {
    return readFile(join(this.directory, file), 'utf8');
  }

  async beginBatch(index: NamespaceIndex): Promise<StorageBatch> {
    const unchangedByHand = this.unchangedByHand();
    // Created by the first commit rather than when the namespace is opened, so a failed ingest leaves no folder
    // (the folder may also have been removed by hand since).
    const createdFolder = await mkdir(this.directory, { recursive: true });
    this.ownWritesStart();
    return new FolderBatch(this.directory, this.indexFiles, this.folder, createdFolder !== undefined, this.options.warn, () =>
      this.ownWritesDone(unchangedByHand || (createdFolder !== undefined && index.documentCount === 0), index),
    );
  }

  async refresh(): Promise<void> {
    // One process owns the folder: there is no other writer to catch up with (hand edits are outsideChanges).
  }

  async afterCommit(index: NamespaceIndex): Promise<void> {
    this.ownWritesStart();
    try {
      await this.indexFiles.compactIfDue(index);
    } finally {
      // Runs after the changes were acknowledged, so a file placed by hand right after an ingest could be written
      // meanwhile: the change a compaction makes to the folder is left to the next search to look at (it is rare).
      this.ownWritesDone(false, index);
    }
  }

  async close(index: NamespaceIndex): Promise<void> {
    this.stopChecks();
    await this.indexFiles.foldJournal(index);
  }

  async destroy(): Promise<void> {
    this.stopChecks();
    await rm(this.directory, { recursive: true, force: true });
  }

  /** Closed or destroyed: a namespace opened again gets a storage of its own, which reconciles as it loads. */
  private stopChecks(): void {
    this.closed = true;
    clearTimeout(this.ownWritesCheck);
  }

  /** Whether the folder is as the service last saw it: nothing was added to or removed from it by hand since. */
  private unchangedByHand(): boolean {
    return folderStats(this.directory)?.mtimeMs === this.seenFolderModifiedMs;
  }

  /**
   * After the service's own writes (a commit, a compaction). A commit changes the folder's modification time too, and
   * is no change by hand: when the folder was as last seen before it ran, the time it left is taken as seen, so the
   * next search does not read the folder's file names again and wait behind the write queue to find nothing (at
   * 100,000 chunks that took a lexical search right after an ingest from 1.5 to 12 ms). A commit is over before its
   * changes are acknowledged, so only a file placed by hand by someone else while it ran can be hidden that way: a
   * check shortly after, off the search's path, compares the folder's file names with the index and has the next
   * search reconcile when they differ.
   */
  private ownWritesDone(unchangedByHand: boolean, index: NamespaceIndex): void {
    this.ownWrites++;
    this.ownWritesUnderWay--;
    if (!unchangedByHand) return;
    this.seenFolderModifiedMs = folderStats(this.directory)?.mtimeMs ?? 0;
    this.checkOwnWritesLater(index);
  }

  private ownWritesStart(): void {
    this.ownWrites++;
    this.ownWritesUnderWay++;
  }

  /** Checks the folder once the service's own writes pause (see checkOwnWrites). */
  private checkOwnWritesLater(index: NamespaceIndex): void {
    if (this.ownWritesCheck !== undefined || this.closed) return;
    this.ownWritesCheck = setTimeout(() => void this.checkOwnWrites(index), ownWritesCheckDelayMs);
    this.ownWritesCheck.unref();
  }

  /** A check that overlaps one of the service's own writes counts for nothing (the write may be half done): it runs again. */
  private async checkOwnWrites(index: NamespaceIndex): Promise<void> {
    const writes = this.ownWrites;
    const hidden = this.ownWritesUnderWay === 0 ? await this.hidesChangeByHand(index) : undefined;
    this.ownWritesCheck = undefined;
    if (hidden === undefined || this.ownWrites !== writes) this.checkOwnWritesLater(index);
    else if (hidden) this.seenFolderModifiedMs = 0;
  }

  /** Whether the folder's document files differ from the index's (a folder that cannot be read holds none). */
  private async hidesChangeByHand(index: NamespaceIndex): Promise<boolean> {
    const names = await this.folder.currentFileNames().catch((): string[] => []);
    const { unreadableFiles } = this.folder;
    return (
      names.length !== index.documentCount + unreadableFiles.size ||
      names.some((file) => index.document(file) === undefined && !unreadableFiles.has(file))
    );
  }

  /**
   * Documents added to or removed from the folder by hand since it was last read. Costs one stat when nothing
   * changed; adding or removing a file changes the folder's modification time. The stat is synchronous: it runs
   * before every search, and a folder's inode is cached, so the call takes microseconds where the thread-pool round
   * trip of an asynchronous one cost ~0.3 ms per search (measured at 100k chunks).
   */
  outsideChanges(documentCount: number): OutsideChanges | undefined {
    const folder = folderStats(this.directory);
    // A folder removed by hand takes its documents with it.
    if (folder === undefined ? documentCount === 0 : folder.mtimeMs === this.seenFolderModifiedMs) return undefined;
    return {
      stage: async (documents) => {
        // Recorded first, so a change made while the folder is read is noticed next time.
        this.seenFolderModifiedMs = folder?.mtimeMs ?? 0;
        const ops: IndexOp[] = [];
        const names = new Set(folder === undefined ? [] : await this.folder.fileNames());
        for (const file of names) {
          if (documents.has(file) || this.folder.unreadableFiles.has(file)) continue;
          const document = await this.folder.readDocument(file, undefined);
          if (document === undefined) continue;
          documents.set(document);
          ops.push({ op: 'put', document });
        }
        for (const file of documents.files()) {
          if (names.has(file)) continue;
          documents.delete(file);
          ops.push({ op: 'remove', file });
        }
        for (const file of this.folder.unreadableFiles.keys()) if (!names.has(file)) this.folder.unreadableFiles.delete(file);
        return ops;
      },
      retryLater: () => {
        this.seenFolderModifiedMs = 0;
      },
    };
  }

  /** index.json (or its snapshot), then the journal, then whatever changed in the folder since: each step through the same ops. */
  async load(): Promise<NamespaceIndex> {
    // A namespace nothing was stored in yet has no folder: the first commit creates it.
    if (folderStats(this.directory) === undefined) return NamespaceIndex.empty();
    const restored = await this.indexFiles.restore();
    const index = restored.index;
    const ops: IndexOp[] = [];
    const stored = index.embedding;
    // With no embedding model configured, stored vectors are kept for when one is.
    if (stored !== null && this.options.embeddingModel !== null && stored.model !== this.options.embeddingModel)
      ops.push({ op: 'model', embedding: null });

    this.seenFolderModifiedMs = (await stat(this.directory)).mtimeMs;
    await this.folder.removeBackups();
    const files = await this.folder.fileNames();
    const onDisk = new Set(files);
    await forEachConcurrently(files, readConcurrency, async (file) => {
      const known = index.document(file);
      if (known !== undefined && this.folder.isUnchanged(file, known)) return;
      const document = await this.folder.readDocument(file, known);
      if (document === undefined) onDisk.delete(file);
      else if (document !== known) ops.push({ op: 'put', document });
    });
    for (const document of index.documents) if (!onDisk.has(document.file)) ops.push({ op: 'remove', file: document.file });

    try {
      await this.indexFiles.appendInRecords(ops);
    } catch (error) {
      if (!isStorageFull(error)) throw error;
      // The ops only restate what the folder holds, so they are applied anyway: on a full disk the namespace still
      // opens and answers searches, and the next start-up reconciles the same way.
      this.options.warn(
        `namespace ${this.options.name}: the storage volume is full (${describeFileError(error)}); the changes found in the folder are not journalled`,
      );
    }
    for (const op of ops) index.apply(op);
    // Not writing them (a full disk, say) costs only time: the next start-up rewrites them again.
    if (restored.rewrite) await this.indexFiles.compact(index);
    else await this.indexFiles.compactIfDue(index);
    return index;
  }
}

/** What a batch did to the folder, undone in reverse order. */
type FolderAction =
  | { readonly kind: 'created'; readonly path: string }
  /**
   * A file the batch replaced or removed, kept under a backup name until the batch is committed (the backup is
   * removed) or undone (renamed back). A hard link, not a copy: undoing needs no space, which a full disk lacks.
   */
  | { readonly kind: 'replaced'; readonly path: string; readonly backup: string };

class FolderBatch implements StorageBatch {
  private readonly actions: FolderAction[] = [];

  constructor(
    private readonly directory: string,
    private readonly indexFiles: IndexFiles,
    private readonly folder: DocumentFolder,
    private readonly createdFolder: boolean,
    private readonly warn: (message: string) => void,
    /** Called once the batch has written all it will (committed or aborted). */
    private readonly finished: () => void,
  ) {}

  /** Creates the file under a free name: no document holds it and no file (one placed by hand, say) is there. */
  async createDocument(slug: string, content: string, taken: (file: string) => boolean): Promise<WrittenDocument> {
    const existing = new Set<string>();
    for (;;) {
      const file = uniqueFileName(slug, (name) => taken(name) || existing.has(name) || this.folder.unreadableFiles.has(name));
      const path = join(this.directory, file);
      try {
        await createFileAtomic(path, content);
        this.actions.push({ kind: 'created', path });
        return written(file, await stat(path));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        existing.add(file);
      }
    }
  }

  async replaceDocument(file: string, content: string): Promise<WrittenDocument> {
    const path = join(this.directory, file);
    await this.keepBackup(path);
    await writeFileAtomic(path, content);
    return written(file, await stat(path));
  }

  async removeDocument(file: string): Promise<void> {
    const path = join(this.directory, file);
    await this.keepBackup(path);
    await rm(path, { force: true });
  }

  mark(): number {
    return this.actions.length;
  }

  /** Its new files go, the files it replaced or removed come back. */
  async undo(since: number): Promise<void> {
    for (const action of this.actions.splice(since).reverse()) {
      if (action.kind === 'created') {
        await rm(action.path, { force: true }).catch(() => undefined);
        continue;
      }
      await rename(action.backup, action.path).catch((error: unknown) => {
        this.warn(
          `could not put back ${action.path} after a failed write (${describeFileError(error)}); it is reconciled with the index at the next start-up`,
        );
      });
    }
  }

  async commit(ops: readonly IndexOp[], index: NamespaceIndex): Promise<void> {
    if (ops.length === 0) {
      await this.abort();
      return;
    }
    // A failed commit is aborted by its caller, which finishes the batch.
    await this.indexFiles.append(ops);
    for (const op of ops) index.apply(op);
    await this.indexFiles.writeFirstIndexJson(index);
    await Promise.all(
      this.actions.flatMap((action) => (action.kind === 'replaced' ? [rm(action.backup, { force: true }).catch(() => undefined)] : [])),
    );
    this.finished();
  }

  async abort(): Promise<void> {
    try {
      await this.undo(0);
      // Nothing was committed: a folder this batch created goes again, with the journal a failed append left in it
      // (rmdir removes only an empty folder: a file placed there by hand meanwhile stays).
      if (this.createdFolder) {
        await this.indexFiles.removeEmptyJournal().catch(() => undefined);
        await rmdir(this.directory).catch(() => undefined);
      }
    } finally {
      this.finished();
    }
  }

  /** Keeps the current file at `path` under a backup name (a hard link) before the batch replaces or removes it. */
  private async keepBackup(path: string): Promise<void> {
    const backup = join(this.directory, `${backupFilePrefix}${randomBytes(6).toString('hex')}`);
    await link(path, backup).catch((error: unknown) => {
      throw withPath(error, path);
    });
    this.actions.push({ kind: 'replaced', path, backup });
  }
}

function written(file: string, stats: Stats): WrittenDocument {
  return { file, size: stats.size, modifiedMs: stats.mtimeMs };
}

/** The folder's stats, or undefined when it cannot be read (removed by hand, say). */
function folderStats(directory: string): Stats | undefined {
  try {
    return statSync(directory);
  } catch {
    return undefined;
  }
}
