// One namespace: its documents and index in memory, over a storage that keeps them (a folder, or PostgreSQL).
// Every change goes through one queue; changes that arrive together are committed as one batch.
import { isKnowledgeError } from '../errors.js';
import type { ScoredHit } from '../indexes/scored-hit.js';
import { parseDocument, renderDocument } from './front-matter.js';
import type { EmbeddingInfo, IndexOp } from './index-ops.js';
import { estimateIndexBytes } from './memory-estimate.js';
import { type NamespaceIndex } from './namespace-index.js';
import type { NamespaceStorage, StorageBatch } from './namespace-storage.js';
import type { NamespaceName } from './namespace-name.js';
import { documentSlug } from './slug.js';
import { StagedDocuments } from './staged-documents.js';
import { describeFileError, isStorageFull, storageFullError } from './storage-full.js';
import { chunkId, originIdentity, type DocumentDraft, type StoredChunk, type StoredDocument } from './stored-document.js';

/** `updated`: the draft replaced `replaced`, the document that came from the same origin (same file name, new content). */
export type CommitOutcome =
  | { readonly status: 'saved' | 'skipped'; readonly document: StoredDocument }
  | { readonly status: 'updated'; readonly document: StoredDocument; readonly replaced: StoredDocument };

/** A vector computed for a chunk; stored only if the chunk is still there with the same text. */
export interface ChunkVector {
  readonly chunk: StoredChunk;
  readonly vector: Float32Array;
}

/** The state a batch of changes works on; its ops reach the live index only once the storage holds them. */
interface Staging {
  documents: StagedDocuments;
  embedding: EmbeddingInfo | null;
  readonly ops: IndexOp[];
  readonly batch: StorageBatch;
}

/** How far a change had got when it started, to undo just that change when it fails. */
interface StagingMark {
  readonly ops: number;
  readonly batch: number;
  readonly embedding: EmbeddingInfo | null;
}

interface QueuedChange {
  readonly apply: (staging: Staging) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
}

export class Namespace {
  private readonly queue: QueuedChange[] = [];
  private draining = false;

  private constructor(
    readonly name: NamespaceName,
    private readonly storage: NamespaceStorage,
    private readonly index: NamespaceIndex,
    private readonly warn: (message: string) => void,
  ) {}

  /** Opens a namespace over its storage, with the index as the storage holds it. */
  static async over(name: NamespaceName, storage: NamespaceStorage, warn: (message: string) => void): Promise<Namespace> {
    return new Namespace(name, storage, await storage.load(), warn);
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

  /** Whether no change is queued or being written (only an idle namespace may be closed to free memory). */
  get idle(): boolean {
    return !this.draining && this.queue.length === 0;
  }

  /** Bytes the namespace is estimated to hold in memory (see estimateIndexBytes). */
  get estimatedBytes(): number {
    return estimateIndexBytes({
      chunks: this.index.chunkCount,
      textLength: this.index.textLength,
      textLengthInMemory: this.index.textLengthInMemory,
      vectors: this.index.vectorCount,
      vectorsInMemory: this.index.vectorsInMemory,
      dimensions: this.index.embedding?.dimensions ?? 0,
    });
  }

  /** One human-readable warning per file left out of the index because it could not be read. */
  get warnings(): string[] {
    return this.storage.warnings;
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
    const stored = await this.storage.readDocument(file);
    return stored === undefined ? undefined : parseDocument(stored).body;
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

  /** How many chunks hold an index term (see tokenize). */
  chunksWithTerm(term: string): number {
    return this.index.chunksWithTerm(term);
  }

  /** How many index terms start with `prefix`, counted up to `atMost`. */
  termsStartingWith(prefix: string, atMost: number): number {
    return this.index.termsStartingWith(prefix, atMost);
  }

  /** Which of `terms` (index terms) the chunk holds in its title, headings or text. */
  termsHeld(chunkId: string, terms: readonly string[]): boolean[] {
    return this.index.termsHeld(chunkId, terms);
  }

  /** Resolves once every change queued so far is written. */
  async settle(): Promise<void> {
    await this.enqueue(async () => undefined);
  }

  /** Lets queued changes finish, then closes the storage (a folder folds its journal into index.json, which is then complete on its own). */
  async close(): Promise<void> {
    // Settled first: a change batched together with the fold would reach the index only after the fold ran (it
    // would stay in the journal, which is safe, but the fold is meant to leave nothing to replay).
    await this.settle();
    // Inside the queue, so no change runs while the index files are written.
    await this.enqueue(async () => this.storage.close(this.index));
  }

  /** Applies the changes other replicas committed since this one last looked (cluster mode). */
  refresh(): Promise<void> {
    return this.storage.refresh(this.index);
  }

  /** Closes the files the index reads from: for a namespace dropped from memory, which is not used after this. */
  release(): void {
    this.index.close();
  }

  /** Lets queued changes finish, then removes everything the namespace stored. */
  async destroy(): Promise<void> {
    await this.settle();
    await this.storage.destroy();
  }

  /** Saves each draft as a new document, or reports it `skipped` when the same content is already stored. */
  commitDocuments(drafts: readonly DocumentDraft[]): Promise<CommitOutcome[]> {
    return this.enqueue(async (staging) => {
      const outcomes: CommitOutcome[] = [];
      for (const draft of drafts) {
        const identical = staging.documents.withHash(draft.hash);
        if (identical !== undefined) {
          outcomes.push({ status: 'skipped', document: identical });
          continue;
        }
        const previous = staging.documents.withOrigin(originIdentity(draft));
        const document = await this.writeDraft(staging, draft, previous);
        outcomes.push(previous === undefined ? { status: 'saved', document } : { status: 'updated', document, replaced: previous });
      }
      return outcomes;
    });
  }

  /** Records vectors computed by `model`; a chunk changed or removed meanwhile is left alone. */
  storeEmbeddings(model: string, vectors: readonly ChunkVector[]): Promise<void> {
    return this.enqueue(async (staging) => {
      const current = vectors.filter(({ chunk }) =>
        staging.documents.get(chunk.file)?.chunks.some((other) => other.id === chunk.id && other.text === chunk.text),
      );
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
    const written =
      previous === undefined
        ? await staging.batch.createDocument(draft.file?.replace(/\.md$/, '') ?? documentSlug(draft.title, draft.folder), content, (file) =>
            staging.documents.has(file),
          )
        : await staging.batch.replaceDocument(previous.file, content);
    const file = written.file;
    const document: StoredDocument = {
      file,
      title: draft.title,
      origin: draft.origin,
      hash: draft.hash,
      ingestedAt,
      fileSize: written.size,
      fileModifiedMs: written.modifiedMs,
      chunks: draft.chunks.map((chunk, ordinal) => ({
        id: chunkId(file, ordinal),
        file,
        headingPath: chunk.headingPath,
        text: chunk.text,
      })),
    };
    staging.documents.set(document);
    staging.ops.push({ op: 'put', document });
    if (draft.embeddingModel === staging.embedding?.model) {
      const embedded = draft.chunks.flatMap((chunk, ordinal) =>
        chunk.embedding?.length === staging.embedding?.dimensions && chunk.embedding !== null
          ? [{ id: chunkId(file, ordinal), vector: chunk.embedding }]
          : [],
      );
      if (embedded.length > 0) staging.ops.push(vectorsOp(embedded));
    }
    return document;
  }

  /** Removes the documents whose file name or origin matches; their files, chunks and vectors go at once. */
  deleteDocuments(match: { readonly file?: string; readonly origin?: string }): Promise<StoredDocument[]> {
    return this.enqueue(async (staging) => {
      const doomed = staging.documents.matching(match);
      for (const document of doomed) {
        await staging.batch.removeDocument(document.file);
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
   * Applies every queued change to one staging copy, commits them as one batch, then makes them live. A change that
   * fails is undone alone (its writes and ops); a failed commit undoes the whole batch, so the index in memory only
   * ever shows what the storage holds.
   */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const queued = this.queue.splice(0);
        let batch: StorageBatch;
        try {
          batch = await this.storage.beginBatch(this.index);
        } catch (error) {
          const failure = this.reportFailure(error);
          for (const change of queued) change.reject(failure);
          continue;
        }
        const staging: Staging = { documents: new StagedDocuments(this.index), embedding: this.index.embedding, ops: [], batch };
        const settled: { change: QueuedChange; value: unknown }[] = [];
        // A failed change is answered once the batch is over, so that its caller finds the storage as it will stay
        // (a new namespace's folder removed when nothing was committed).
        const failed: { change: QueuedChange; failure: unknown }[] = [];
        for (const change of queued) {
          const before = mark(staging);
          try {
            settled.push({ change, value: await change.apply(staging) });
          } catch (error) {
            await this.undo(staging, before);
            failed.push({ change, failure: this.reportFailure(error) });
          }
        }
        try {
          await batch.commit(staging.ops, this.index);
        } catch (error) {
          await batch.abort();
          const failure = this.reportFailure(error);
          for (const { change } of settled) change.reject(failure);
          continue;
        } finally {
          for (const { change, failure } of failed) change.reject(failure);
        }
        for (const { change, value } of settled) change.resolve(value);
        if (staging.ops.length > 0) await this.storage.afterCommit(this.index);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Undoes what the batch did after `since`. */
  private async undo(staging: Staging, since: StagingMark): Promise<void> {
    await staging.batch.undo(since.batch);
    staging.ops.length = since.ops;
    staging.embedding = since.embedding;
    staging.documents = StagedDocuments.replaying(this.index, staging.ops);
  }

  /** A full disk becomes storage_full, logged with its errno and file; anything else is passed on as it is. */
  private reportFailure(error: unknown): unknown {
    if (!isStorageFull(error)) return error;
    this.warn(
      `namespace ${this.name}: the storage volume is full (${describeFileError(error)}); the change was undone and not acknowledged`,
    );
    return storageFullError(error);
  }

  /**
   * Picks up documents changed outside the service's commits (added to or removed from the folder by hand) since
   * last checked; costs one stat when nothing changed, and the service's own commits are no such change.
   */
  async syncWithFolder(): Promise<void> {
    const changes = this.storage.outsideChanges(this.index.documentCount);
    if (changes === undefined) return;
    await this.enqueue(async (staging) => {
      staging.ops.push(...(await changes.stage(staging.documents)));
    }).catch((error: unknown) => {
      if (!isKnowledgeError(error) || error.code !== 'storage_full') throw error;
      // A full disk (already logged) does not fail the search that asked: it runs over the index as it was, and the
      // folder is read again next time.
      changes.retryLater();
    });
  }
}

function mark(staging: Staging): StagingMark {
  return { ops: staging.ops.length, batch: staging.batch.mark(), embedding: staging.embedding };
}

function vectorsOp(entries: readonly { id: string; vector: Float32Array }[]): IndexOp {
  const dimensions = entries[0]?.vector.length ?? 0;
  const rows = new Float32Array(entries.length * dimensions);
  entries.forEach(({ vector }, row) => rows.set(vector, row * dimensions));
  return { op: 'vectors', ids: entries.map(({ id }) => id), rows };
}
