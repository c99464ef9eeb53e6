// One namespace: its Markdown documents on disk, the index files beside them (index.json, its journal and snapshot), and the index in memory.
// Every change goes through one queue; changes that arrive together are committed with one journal append.
import { statSync, type Stats } from 'node:fs';
import { link, mkdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { forEachConcurrently } from '../concurrency.js';
import { isKnowledgeError } from '../errors.js';
import type { ScoredHit } from '../indexes/scored-hit.js';
import { backupFilePrefix, createFileAtomic, writeFileAtomic } from './atomic-write.js';
import { DocumentFolder } from './document-folder.js';
import { parseDocument, renderDocument } from './front-matter.js';
import { IndexFiles } from './index-files.js';
import type { EmbeddingInfo, IndexOp } from './index-ops.js';
import { NamespaceIndex } from './namespace-index.js';
import { documentSlug, uniqueFileName } from './slug.js';
import { describeFileError, isStorageFull, storageFullError, withPath } from './storage-full.js';
import { chunkId, type DocumentDraft, type StoredChunk, type StoredDocument } from './stored-document.js';

/** Changed files read at once when the folder is reconciled at start-up. */
const readConcurrency = 32;

export interface NamespaceOptions {
  readonly name: string;
  readonly directory: string;
  /** The embedding model in use; vectors recorded under another model are dropped and re-embedded. */
  readonly embeddingModel: string | null;
  /** Chunks a Markdown body (used for documents placed in the folder by hand). */
  readonly chunkBody: (body: string) => readonly { text: string; headingPath: readonly string[] }[];
  readonly warn: (message: string) => void;
}

/** `updated`: the draft replaced `replaced`, the document that came from the same origin (same file name, new content). */
export type CommitOutcome =
  | { readonly status: 'saved' | 'skipped'; readonly document: StoredDocument }
  | { readonly status: 'updated'; readonly document: StoredDocument; readonly replaced: StoredDocument };

/** A vector computed for a chunk; stored only if the chunk is still there with the same text. */
export interface ChunkVector {
  readonly chunk: StoredChunk;
  readonly vector: Float32Array;
}

/**
 * What identifies "the same origin" for upserts: the URL, the file path, the upload's path with its folders (an upload
 * stored before folders were kept has its bare name, and that same bare name still updates it); the title for text.
 */
function originIdentity(document: { readonly origin: string; readonly title: string }): string {
  return document.origin === 'text' ? `text:${document.title}` : document.origin;
}

/** The state a batch of changes works on; its ops reach the live index only once the journal holds them. */
interface Staging {
  documents: Map<string, StoredDocument>;
  embedding: EmbeddingInfo | null;
  readonly ops: IndexOp[];
  readonly writtenFiles: string[];
  /**
   * Files this batch replaced or removed, each kept under a backup name until the batch is committed (the backup is
   * removed) or undone (renamed back). A hard link, not a copy: undoing needs no space, which a full disk lacks.
   */
  readonly replacedFiles: { readonly path: string; readonly backup: string }[];
}

/** How far a change had got when it started, to undo just that change when it fails. */
interface StagingMark {
  readonly ops: number;
  readonly writtenFiles: number;
  readonly replacedFiles: number;
  readonly embedding: EmbeddingInfo | null;
}

interface QueuedChange {
  readonly apply: (staging: Staging) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
}

export class Namespace {
  private index = NamespaceIndex.empty();
  private readonly folder: DocumentFolder;
  private readonly queue: QueuedChange[] = [];
  /** Modification time of the folder when its file names were last read. */
  private seenFolderModifiedMs = 0;
  private draining = false;
  private readonly indexFiles: IndexFiles;

  private constructor(private readonly options: NamespaceOptions) {
    this.folder = new DocumentFolder(options);
    this.indexFiles = new IndexFiles(options.directory, `namespace ${options.name}`, options.warn);
  }

  get name(): string {
    return this.options.name;
  }

  get directory(): string {
    return this.options.directory;
  }

  /** Opens the folder, reconciling the stored index with the Markdown files actually there. */
  static async open(options: NamespaceOptions): Promise<Namespace> {
    const namespace = new Namespace(options);
    await namespace.load();
    return namespace;
  }

  /** A new array of every document: for listings, not for hot paths (see documentCount). */
  get documents(): readonly StoredDocument[] {
    return this.index.documents;
  }

  get documentCount(): number {
    return this.index.documentCount;
  }

  get chunkCount(): number {
    return this.index.chunkCount;
  }

  get vectorCount(): number {
    return this.index.vectorCount;
  }

  get embeddingModel(): string | null {
    return this.index.embedding?.model ?? null;
  }

  /** One human-readable warning per file left out of the index because it could not be read. */
  get warnings(): string[] {
    return this.folder.warnings;
  }

  document(file: string): StoredDocument | undefined {
    return this.index.document(file);
  }

  chunk(id: string): StoredChunk | undefined {
    return this.index.chunk(id);
  }

  /** The Markdown of a stored document, without its front matter; undefined when the namespace has no such document. */
  async documentBody(file: string): Promise<string | undefined> {
    if (this.index.document(file) === undefined) return undefined;
    return parseDocument(await readFile(join(this.directory, file), 'utf8')).body;
  }

  findByHash(hash: string): StoredDocument | undefined {
    return this.index.findByHash(hash);
  }

  /** Chunks that have no vector from the current embedding model yet. */
  pendingChunks(): StoredChunk[] {
    return this.index.pendingChunks();
  }

  /** How many chunks pendingChunks() would list, without walking them (checked on every embedding search). */
  get pendingChunkCount(): number {
    return this.index.pendingChunkCount;
  }

  /** The stored unit vector of a chunk. */
  vectorOf(id: string): Float32Array | undefined {
    return this.index.vectorOf(id);
  }

  searchVectors(query: Float32Array, limit: number): ScoredHit[] {
    return this.index.searchVectors(query, limit);
  }

  searchLexical(query: string, limit: number): ScoredHit[] {
    return this.index.searchLexical(query, limit);
  }

  matchedTerms(query: string): string[] {
    return this.index.matchedTerms(query);
  }

  /** Resolves once every change queued so far is written. */
  async settle(): Promise<void> {
    await this.enqueue(async () => undefined);
  }

  /** Lets queued changes finish, then folds the journal into index.json, so that index.json alone is complete. */
  async close(): Promise<void> {
    // Settled first: a change batched together with the fold would reach the index only after the fold ran (it
    // would stay in the journal, which is safe, but the fold is meant to leave nothing to replay).
    await this.settle();
    // Inside the queue, so no change runs while the index files are written.
    await this.enqueue(async () => this.indexFiles.foldJournal(this.index));
  }

  /** Saves each draft as a new document, or reports it `skipped` when the same content is already stored. */
  commitDocuments(drafts: readonly DocumentDraft[]): Promise<CommitOutcome[]> {
    return this.enqueue(async (staging) => {
      const outcomes: CommitOutcome[] = [];
      for (const draft of drafts) {
        const identical = find(staging.documents.values(), (document) => document.hash === draft.hash);
        if (identical !== undefined) {
          outcomes.push({ status: 'skipped', document: identical });
          continue;
        }
        const previous = find(staging.documents.values(), (document) => originIdentity(document) === originIdentity(draft));
        const document = await this.writeDraft(staging, draft, previous);
        outcomes.push(previous === undefined ? { status: 'saved', document } : { status: 'updated', document, replaced: previous });
      }
      return outcomes;
    });
  }

  /** Records vectors computed by `model`; a chunk changed or removed meanwhile is left alone. */
  storeEmbeddings(model: string, vectors: readonly ChunkVector[]): Promise<void> {
    return this.enqueue(async (staging) => {
      const current = vectors.filter(({ chunk }) => staging.documents.get(chunk.file)?.chunks.some((other) => other.id === chunk.id && other.text === chunk.text));
      const dimensions = current[0]?.vector.length;
      if (dimensions === undefined) return;
      this.adoptModel(staging, model, dimensions);
      staging.ops.push(vectorsOp(current.map(({ chunk, vector }) => ({ id: chunk.id, vector }))));
    });
  }

  /** A new model or vector size invalidates every existing vector: they are dropped and re-embedded later. */
  private adoptModel(staging: Staging, model: string, dimensions: number): void {
    if (staging.embedding?.model === model && staging.embedding.dimensions === dimensions) return;
    staging.embedding = { model, dimensions };
    staging.ops.push({ op: 'model', embedding: staging.embedding });
  }

  /** Writes a new document, or replaces `previous` (same origin) in its file, keeping the file name. */
  private async writeDraft(staging: Staging, draft: DocumentDraft, previous: StoredDocument | undefined): Promise<StoredDocument> {
    const dimensions = draft.chunks.find((chunk) => chunk.embedding !== null)?.embedding?.length;
    if (draft.embeddingModel !== null && dimensions !== undefined) this.adoptModel(staging, draft.embeddingModel, dimensions);
    const ingestedAt = new Date().toISOString();
    const content = renderDocument({ title: draft.title, origin: draft.origin, hash: draft.hash, ingestedAt }, draft.body);
    const file = previous === undefined ? await this.createDocumentFile(staging, documentSlug(draft.title, draft.folder), content) : previous.file;
    const path = join(this.directory, file);
    if (previous !== undefined) {
      await this.keepBackup(staging, path);
      await writeFileAtomic(path, content);
    }
    const written = await stat(path);
    const document: StoredDocument = {
      file,
      title: draft.title,
      origin: draft.origin,
      hash: draft.hash,
      ingestedAt,
      fileSize: written.size,
      fileModifiedMs: written.mtimeMs,
      chunks: draft.chunks.map((chunk, ordinal) => ({ id: chunkId(file, ordinal), file, headingPath: chunk.headingPath, text: chunk.text })),
    };
    staging.documents.set(file, document);
    staging.ops.push({ op: 'put', document });
    if (draft.embeddingModel === staging.embedding?.model) {
      const embedded = draft.chunks.flatMap((chunk, ordinal) =>
        chunk.embedding?.length === staging.embedding?.dimensions && chunk.embedding !== null ? [{ id: chunkId(file, ordinal), vector: chunk.embedding }] : [],
      );
      if (embedded.length > 0) staging.ops.push(vectorsOp(embedded));
    }
    return document;
  }

  /** Creates the file of a new document under a free name: no document holds it and no file (one placed by hand, say) is there. */
  private async createDocumentFile(staging: Staging, slug: string, content: string): Promise<string> {
    const taken = new Set<string>();
    for (;;) {
      const file = uniqueFileName(slug, (name) => staging.documents.has(name) || taken.has(name) || this.folder.unreadableFiles.has(name));
      try {
        await createFileAtomic(join(this.directory, file), content);
        staging.writtenFiles.push(join(this.directory, file));
        return file;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        taken.add(file);
      }
    }
  }

  /** Removes the documents whose file name or origin matches; their files, chunks and vectors go at once. */
  deleteDocuments(match: { readonly file?: string; readonly origin?: string }): Promise<StoredDocument[]> {
    return this.enqueue(async (staging) => {
      const doomed = [...staging.documents.values()].filter((document) => document.file === match.file || document.origin === match.origin);
      for (const document of doomed) {
        const path = join(this.directory, document.file);
        await this.keepBackup(staging, path);
        await rm(path, { force: true });
        staging.documents.delete(document.file);
        staging.ops.push({ op: 'remove', file: document.file });
      }
      return doomed;
    });
  }

  private enqueue<T>(apply: (staging: Staging) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ apply, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  /**
   * Applies every queued change to one staging copy, appends one journal record, then makes it live. A change that
   * fails is undone alone (its files and ops); a failed append undoes the whole batch, so the index in memory and the
   * folder only ever show what the journal holds.
   */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0);
        const staging: Staging = { documents: this.index.documentsMap(), embedding: this.index.embedding, ops: [], writtenFiles: [], replacedFiles: [] };
        let createdFolder: string | undefined;
        try {
          // Created by the first commit rather than when the namespace is opened, so a failed ingest leaves no folder
          // (the folder may also have been removed by hand since).
          createdFolder = await mkdir(this.directory, { recursive: true });
        } catch (error) {
          const failure = this.reportFailure(error);
          for (const change of batch) change.reject(failure);
          continue;
        }
        const start = mark(staging);
        const settled: { change: QueuedChange; value: unknown }[] = [];
        for (const change of batch) {
          const before = mark(staging);
          try {
            settled.push({ change, value: await change.apply(staging) });
          } catch (error) {
            await this.undo(staging, before);
            change.reject(this.reportFailure(error));
          }
        }
        let appended = true;
        try {
          await this.indexFiles.append(staging.ops);
        } catch (error) {
          appended = false;
          await this.undo(staging, start);
          const failure = this.reportFailure(error);
          for (const { change } of settled) change.reject(failure);
        }
        if (!appended || staging.ops.length === 0) {
          // Nothing was committed: a folder this batch created goes again (rmdir removes only an empty one).
          if (createdFolder !== undefined) await rmdir(this.directory).catch(() => undefined);
          if (appended) for (const { change, value } of settled) change.resolve(value);
          continue;
        }
        for (const op of staging.ops) this.index.apply(op);
        await Promise.all(staging.replacedFiles.map(({ backup }) => rm(backup, { force: true }).catch(() => undefined)));
        for (const { change, value } of settled) change.resolve(value);
        await this.indexFiles.compactIfDue(this.index);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Keeps the current file at `path` under a backup name (a hard link) before the batch replaces or removes it. */
  private async keepBackup(staging: Staging, path: string): Promise<void> {
    const backup = join(this.directory, `${backupFilePrefix}${randomBytes(6).toString('hex')}`);
    await link(path, backup).catch((error: unknown) => {
      throw withPath(error, path);
    });
    staging.replacedFiles.push({ path, backup });
  }

  /** Undoes what the batch did after `since`: its new files go, the files it replaced or removed come back. */
  private async undo(staging: Staging, since: StagingMark): Promise<void> {
    for (const path of staging.writtenFiles.splice(since.writtenFiles)) await rm(path, { force: true }).catch(() => undefined);
    for (const { path, backup } of staging.replacedFiles.splice(since.replacedFiles).reverse()) {
      await rename(backup, path).catch((error: unknown) => {
        this.options.warn(`namespace ${this.name}: could not put back ${path} after a failed write (${describeFileError(error)}); it is reconciled with the index at the next start-up`);
      });
    }
    staging.ops.length = since.ops;
    staging.embedding = since.embedding;
    // Rebuilt from the live index and the ops that stay: changes are rare to fail, so this copy is paid only then.
    staging.documents = this.index.documentsMap();
    for (const op of staging.ops) {
      if (op.op === 'put') staging.documents.set(op.document.file, op.document);
      else if (op.op === 'remove') staging.documents.delete(op.file);
    }
  }

  /** A full disk becomes storage_full, logged with its errno and file; anything else is passed on as it is. */
  private reportFailure(error: unknown): unknown {
    if (!isStorageFull(error)) return error;
    this.options.warn(`namespace ${this.name}: the storage volume is full (${describeFileError(error)}); the change was undone and not acknowledged`);
    return storageFullError(error);
  }

  /**
   * Picks up documents added to or removed from the folder by hand since it was last read. Costs one stat
   * when nothing changed; adding or removing a file changes the folder's modification time. The stat is synchronous:
   * it runs before every search, and a folder's inode is cached, so the call takes microseconds where the
   * thread-pool round trip of an asynchronous one cost ~0.3 ms per search (measured at 100k chunks).
   */
  async syncWithFolder(): Promise<void> {
    const folder = folderStats(this.directory);
    // A folder removed by hand takes its documents with it.
    if (folder === undefined ? this.index.documentCount === 0 : folder.mtimeMs === this.seenFolderModifiedMs) return;
    await this.enqueue(async (staging) => {
      // Recorded first, so a change made while the folder is read is noticed next time.
      this.seenFolderModifiedMs = folder?.mtimeMs ?? 0;
      const names = new Set(folder === undefined ? [] : await this.folder.fileNames());
      for (const file of names) {
        if (staging.documents.has(file) || this.folder.unreadableFiles.has(file)) continue;
        const document = await this.folder.readDocument(file, undefined);
        if (document === undefined) continue;
        staging.documents.set(file, document);
        staging.ops.push({ op: 'put', document });
      }
      for (const file of staging.documents.keys()) {
        if (names.has(file)) continue;
        staging.documents.delete(file);
        staging.ops.push({ op: 'remove', file });
      }
      for (const file of this.folder.unreadableFiles.keys()) if (!names.has(file)) this.folder.unreadableFiles.delete(file);
    }).catch((error: unknown) => {
      if (!isKnowledgeError(error) || error.code !== 'storage_full') throw error;
      // A full disk (already logged) does not fail the search that asked: it runs over the index as it was, and the
      // folder is read again next time.
      this.seenFolderModifiedMs = 0;
    });
  }

  /** index.json (or its snapshot), then the journal, then whatever changed in the folder since: each step through the same ops. */
  private async load(): Promise<void> {
    // A namespace nothing was stored in yet has no folder: the first commit creates it.
    if (folderStats(this.directory) === undefined) return;
    const restored = await this.indexFiles.restore();
    this.index = restored.index;
    const ops: IndexOp[] = [];
    const stored = this.index.embedding;
    // With no embedding model configured, stored vectors are kept for when one is.
    if (stored !== null && this.options.embeddingModel !== null && stored.model !== this.options.embeddingModel) ops.push({ op: 'model', embedding: null });

    this.seenFolderModifiedMs = (await stat(this.directory)).mtimeMs;
    await this.folder.removeBackups();
    const files = await this.folder.fileNames();
    const onDisk = new Set(files);
    await forEachConcurrently(files, readConcurrency, async (file) => {
      const known = this.index.document(file);
      if (known !== undefined && this.folder.isUnchanged(file, known)) return;
      const document = await this.folder.readDocument(file, known);
      if (document === undefined) onDisk.delete(file);
      else if (document !== known) ops.push({ op: 'put', document });
    });
    for (const document of this.index.documents) if (!onDisk.has(document.file)) ops.push({ op: 'remove', file: document.file });

    try {
      await this.indexFiles.append(ops);
    } catch (error) {
      if (!isStorageFull(error)) throw error;
      // The ops only restate what the folder holds, so they are applied anyway: on a full disk the namespace still
      // opens and answers searches, and the next start-up reconciles the same way.
      this.options.warn(`namespace ${this.name}: the storage volume is full (${describeFileError(error)}); the changes found in the folder are not journalled`);
    }
    for (const op of ops) this.index.apply(op);
    // Not writing them (a full disk, say) costs only time: the next start-up rewrites them again.
    if (restored.rewrite) await this.indexFiles.compact(this.index);
    else await this.indexFiles.compactIfDue(this.index);
  }

}

/** The folder's stats, or undefined when it cannot be read (removed by hand, say). */
function folderStats(directory: string): Stats | undefined {
  try {
    return statSync(directory);
  } catch {
    return undefined;
  }
}

function mark(staging: Staging): StagingMark {
  return { ops: staging.ops.length, writtenFiles: staging.writtenFiles.length, replacedFiles: staging.replacedFiles.length, embedding: staging.embedding };
}

function find<T>(items: Iterable<T>, matches: (item: T) => boolean): T | undefined {
  for (const item of items) if (matches(item)) return item;
  return undefined;
}

function vectorsOp(entries: readonly { id: string; vector: Float32Array }[]): IndexOp {
  const dimensions = entries[0]?.vector.length ?? 0;
  const rows = new Float32Array(entries.length * dimensions);
  entries.forEach(({ vector }, row) => rows.set(vector, row * dimensions));
  return { op: 'vectors', ids: entries.map(({ id }) => id), rows };
}
