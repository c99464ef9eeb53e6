// One namespace: its Markdown documents and index.json on disk, and the in-memory indexes built from them.
// Every change goes through one queue; changes that arrive together are committed with one index write.
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LexicalIndex } from '../search/lexical-index.js';
import { VectorIndex, type VectorHit } from '../search/vector-index.js';
import { createFileAtomic, writeFileAtomic } from './atomic-write.js';
import { DocumentFolder } from './document-folder.js';
import { renderDocument } from './front-matter.js';
import { encodeIndex, indexFileName, type IndexContents } from './index-file.js';
import { uniqueFileName } from './slug.js';
import { chunkId, fileOfChunk, type DocumentDraft, type StoredChunk, type StoredDocument } from './stored-document.js';

export interface NamespaceOptions {
  readonly name: string;
  readonly directory: string;
  /** The embedding model in use; vectors recorded under another model are dropped and re-embedded. */
  readonly embeddingModel: string | null;
  /** Chunks a Markdown body (used for documents placed in the folder by hand). */
  readonly chunkBody: (body: string) => readonly { text: string; headingPath: readonly string[] }[];
  readonly warn: (message: string) => void;
}

/** `updated`: the draft replaced the document that came from the same source (same file name, new content). */
export type CommitOutcome = { readonly status: 'saved' | 'updated' | 'skipped'; readonly document: StoredDocument };

/** What identifies "the same source" for upserts: the URL, file path or upload name; the title for text. */
function sourceIdentity(document: { readonly source: string; readonly title: string }): string {
  return document.source === 'text' ? `text:${document.title}` : document.source;
}

type EmbeddingInfo = IndexContents['embedding'];

/** The state a batch of changes works on; it replaces the live state only once index.json is written. */
interface Staging {
  documents: Map<string, StoredDocument>;
  embedding: EmbeddingInfo;
  readonly writtenFiles: string[];
  /** Files overwritten by this batch, with their previous bytes, restored if the batch fails. */
  readonly overwrittenFiles: { readonly path: string; readonly content: Buffer }[];
  readonly changes: { before: StoredDocument | undefined; after: StoredDocument | undefined }[];
}

interface QueuedChange {
  readonly apply: (staging: Staging) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
}

export class Namespace {
  private documentsByFile = new Map<string, StoredDocument>();
  private readonly chunksById = new Map<string, StoredChunk>();
  private embedding: EmbeddingInfo = null;
  private vectors: VectorIndex | null = null;
  private readonly lexical = new LexicalIndex();
  private readonly folder: DocumentFolder;
  private readonly queue: QueuedChange[] = [];
  /** Modification time of the folder when its file names were last read. */
  private seenFolderModifiedMs = 0;
  private draining = false;

  private constructor(private readonly options: NamespaceOptions) {
    this.folder = new DocumentFolder(options);
  }

  get name(): string {
    return this.options.name;
  }

  get directory(): string {
    return this.options.directory;
  }

  /** Opens the folder, reconciling index.json with the Markdown files actually there. */
  static async open(options: NamespaceOptions): Promise<Namespace> {
    const namespace = new Namespace(options);
    await namespace.load();
    return namespace;
  }

  get documents(): readonly StoredDocument[] {
    return [...this.documentsByFile.values()];
  }

  get chunkCount(): number {
    return this.chunksById.size;
  }

  get embeddingModel(): string | null {
    return this.embedding?.model ?? null;
  }

  /** One human-readable warning per file left out of the index because it could not be read. */
  get warnings(): string[] {
    return this.folder.warnings;
  }

  document(file: string): StoredDocument | undefined {
    return this.documentsByFile.get(file);
  }

  chunk(id: string): StoredChunk | undefined {
    return this.chunksById.get(id);
  }

  findByHash(hash: string): StoredDocument | undefined {
    for (const document of this.documentsByFile.values()) if (document.hash === hash) return document;
    return undefined;
  }

  /** Chunks that have no vector from the current embedding model yet. */
  pendingChunks(): StoredChunk[] {
    return [...this.chunksById.values()].filter((chunk) => this.vectors?.has(chunk.id) !== true);
  }

  /** How many chunks pendingChunks() would list, without walking them (checked on every embedding search). */
  get pendingChunkCount(): number {
    return this.chunksById.size - (this.vectors?.size ?? 0);
  }

  searchVectors(query: Float32Array, limit: number): VectorHit[] {
    return this.vectors?.search(query, limit) ?? [];
  }

  searchLexical(query: string, limit: number): { key: string; score: number }[] {
    return this.lexical.search(query, limit);
  }

  matchedTerms(query: string): string[] {
    return this.lexical.matchedTerms(query);
  }

  /** Resolves once every change queued so far is written. */
  async settle(): Promise<void> {
    await this.enqueue(async () => undefined);
  }

  /** Saves each draft as a new document, or reports it `skipped` when the same content is already stored. */
  commitDocuments(drafts: readonly DocumentDraft[]): Promise<CommitOutcome[]> {
    return this.enqueue(async (staging) => {
      const outcomes: CommitOutcome[] = [];
      for (const draft of drafts) {
        const documents = [...staging.documents.values()];
        const identical = documents.find((document) => document.hash === draft.hash);
        if (identical !== undefined) {
          outcomes.push({ status: 'skipped', document: identical });
          continue;
        }
        const previous = documents.find((document) => sourceIdentity(document) === sourceIdentity(draft));
        const document = await this.writeDraft(staging, draft, previous);
        outcomes.push({ status: previous === undefined ? 'saved' : 'updated', document });
      }
      return outcomes;
    });
  }

  /** Records vectors for chunks (by id) produced by `model`; chunks changed meanwhile are left alone. */
  storeEmbeddings(model: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    return this.enqueue(async (staging) => {
      const dimensions = vectors.values().next().value?.length;
      if (dimensions === undefined) return;
      this.adoptModel(staging, model, dimensions);
      const byFile = new Map<string, StoredDocument>();
      for (const id of vectors.keys()) {
        const document = staging.documents.get(fileOfChunk(id));
        if (document !== undefined) byFile.set(document.file, document);
      }
      for (const document of byFile.values()) {
        this.replaceStaged(
          staging,
          document,
          document.chunks.map((chunk) => ({ ...chunk, embedding: vectors.get(chunk.id) ?? chunk.embedding })),
        );
      }
    });
  }

  /** A new model or vector size invalidates every existing vector: they are dropped and re-embedded later. */
  private adoptModel(staging: Staging, model: string, dimensions: number): void {
    if (staging.embedding?.model === model && staging.embedding.dimensions === dimensions) return;
    for (const document of staging.documents.values()) {
      if (document.chunks.some((chunk) => chunk.embedding !== null)) {
        this.replaceStaged(staging, document, document.chunks.map((chunk) => ({ ...chunk, embedding: null })));
      }
    }
    staging.embedding = { model, dimensions };
  }

  private replaceStaged(staging: Staging, before: StoredDocument, chunks: StoredChunk[]): void {
    const after: StoredDocument = { ...before, chunks };
    staging.documents.set(before.file, after);
    staging.changes.push({ before, after });
  }

  /** Writes a new document, or replaces `previous` (same source) in its file, keeping the file name. */
  private async writeDraft(staging: Staging, draft: DocumentDraft, previous: StoredDocument | undefined): Promise<StoredDocument> {
    const dimensions = draft.chunks.find((chunk) => chunk.embedding !== null)?.embedding?.length;
    if (draft.embeddingModel !== null && dimensions !== undefined) this.adoptModel(staging, draft.embeddingModel, dimensions);
    const ingestedAt = new Date().toISOString();
    const content = renderDocument({ title: draft.title, source: draft.source, hash: draft.hash, ingestedAt }, draft.body);
    const file = previous === undefined ? await this.createDocumentFile(staging, draft.title, content) : previous.file;
    const path = join(this.directory, file);
    if (previous !== undefined) {
      staging.overwrittenFiles.push({ path, content: await readFile(path) });
      await writeFileAtomic(path, content);
    }
    const written = await stat(path);
    const document: StoredDocument = {
      file,
      title: draft.title,
      source: draft.source,
      hash: draft.hash,
      ingestedAt,
      fileSize: written.size,
      fileModifiedMs: written.mtimeMs,
      chunks: draft.chunks.map((chunk, ordinal) => ({
        id: chunkId(file, ordinal),
        file,
        headingPath: chunk.headingPath,
        text: chunk.text,
        embedding: draft.embeddingModel === staging.embedding?.model && chunk.embedding?.length === staging.embedding?.dimensions ? chunk.embedding : null,
      })),
    };
    staging.documents.set(file, document);
    staging.changes.push({ before: previous, after: document });
    return document;
  }

  /** Creates the file of a new document under a free name: no document holds it and no file (one placed by hand, say) is there. */
  private async createDocumentFile(staging: Staging, title: string, content: string): Promise<string> {
    const taken = new Set<string>();
    for (;;) {
      const file = uniqueFileName(title, (name) => staging.documents.has(name) || taken.has(name) || this.folder.unreadableFiles.has(name));
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

  /** Removes the documents whose file name or source matches; their files, chunks and vectors go at once. */
  deleteDocuments(match: { readonly file?: string; readonly source?: string }): Promise<StoredDocument[]> {
    return this.enqueue(async (staging) => {
      const doomed = [...staging.documents.values()].filter((document) => document.file === match.file || document.source === match.source);
      for (const document of doomed) {
        const path = join(this.directory, document.file);
        staging.overwrittenFiles.push({ path, content: await readFile(path) });
        await rm(path, { force: true });
        staging.documents.delete(document.file);
        staging.changes.push({ before: document, after: undefined });
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

  /** Applies every queued change to one staging copy, writes index.json once, then makes it live. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0);
        const staging: Staging = { documents: new Map(this.documentsByFile), embedding: this.embedding, writtenFiles: [], overwrittenFiles: [], changes: [] };
        // The folder may have been removed by hand since it was opened.
        await mkdir(this.directory, { recursive: true });
        const settled: { change: QueuedChange; value: unknown }[] = [];
        for (const change of batch) {
          try {
            settled.push({ change, value: await change.apply(staging) });
          } catch (error) {
            change.reject(error);
          }
        }
        try {
          await this.persist(staging);
        } catch (error) {
          await Promise.all(staging.writtenFiles.map((path) => rm(path, { force: true })));
          await Promise.all(staging.overwrittenFiles.map(({ path, content }) => writeFileAtomic(path, content)));
          for (const { change } of settled) change.reject(error);
          continue;
        }
        this.makeLive(staging);
        for (const { change, value } of settled) change.resolve(value);
      }
    } finally {
      this.draining = false;
    }
  }

  private async persist(staging: Staging): Promise<void> {
    if (staging.changes.length === 0 && staging.embedding === this.embedding) return;
    await this.writeIndex(staging.embedding, staging.documents);
  }

  private async writeIndex(embedding: EmbeddingInfo, documents: ReadonlyMap<string, StoredDocument>): Promise<void> {
    await writeFileAtomic(join(this.directory, indexFileName), encodeIndex({ embedding, documents: [...documents.values()] }));
  }

  private makeLive(staging: Staging): void {
    if (staging.embedding !== this.embedding) {
      // Every vector of the old model is among the staged changes (replaced by null), so start afresh.
      this.embedding = staging.embedding;
      this.vectors = null;
    }
    this.documentsByFile = staging.documents;
    for (const { before, after } of staging.changes) {
      const sameContent = before !== undefined && after !== undefined && before.hash === after.hash;
      if (before !== undefined && !sameContent) for (const chunk of before.chunks) this.forgetChunk(chunk.id);
      for (const chunk of after?.chunks ?? []) this.indexChunk(chunk, after as StoredDocument, !sameContent);
    }
  }

  private indexChunk(chunk: StoredChunk, document: StoredDocument, withText: boolean): void {
    this.chunksById.set(chunk.id, chunk);
    if (withText) this.lexical.add(chunk.id, { title: document.title, headings: chunk.headingPath.join(' '), body: chunk.text });
    if (chunk.embedding !== null && chunk.embedding.length === this.embedding?.dimensions) {
      this.vectors ??= new VectorIndex(this.embedding.dimensions);
      this.vectors.add(chunk.id, chunk.embedding);
    } else {
      this.vectors?.remove(chunk.id);
    }
  }

  private forgetChunk(id: string): void {
    this.chunksById.delete(id);
    this.lexical.remove(id);
    this.vectors?.remove(id);
  }

  /**
   * Picks up documents added to or removed from the folder by hand since it was last read. Costs one stat
   * when nothing changed; adding or removing a file changes the folder's modification time.
   */
  async syncWithFolder(): Promise<void> {
    const folder = await stat(this.directory).catch(() => undefined);
    // A folder removed by hand takes its documents with it.
    if (folder === undefined ? this.documentsByFile.size === 0 : folder.mtimeMs === this.seenFolderModifiedMs) return;
    await this.enqueue(async (staging) => {
      // Recorded first, so a change made while the folder is read is noticed next time.
      this.seenFolderModifiedMs = folder?.mtimeMs ?? 0;
      const names = new Set(folder === undefined ? [] : await this.folder.fileNames());
      for (const file of names) {
        if (staging.documents.has(file) || this.folder.unreadableFiles.has(file)) continue;
        const document = await this.folder.readDocument(file, undefined);
        if (document === undefined) continue;
        staging.documents.set(file, document);
        staging.changes.push({ before: undefined, after: document });
      }
      for (const [file, document] of staging.documents) {
        if (names.has(file)) continue;
        staging.documents.delete(file);
        staging.changes.push({ before: document, after: undefined });
      }
      for (const file of this.folder.unreadableFiles.keys()) if (!names.has(file)) this.folder.unreadableFiles.delete(file);
    });
  }

  private async load(): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const contents = await this.folder.readIndex();
    // With no embedding model configured, stored vectors are kept for when one is.
    const modelMatches = contents.embedding !== null && (this.options.embeddingModel === null || contents.embedding.model === this.options.embeddingModel);
    const indexed = new Map(contents.documents.map((document) => [document.file, document]));
    let changed = contents.documents.length > 0 && !modelMatches && contents.embedding !== null;

    this.seenFolderModifiedMs = (await stat(this.directory)).mtimeMs;
    const documents = new Map<string, StoredDocument>();
    for (const file of await this.folder.fileNames()) {
      const known = indexed.get(file);
      const document = await this.folder.readDocument(file, known);
      if (document === undefined) continue;
      documents.set(file, document);
      if (document !== known) changed = true;
    }
    if (documents.size !== indexed.size || [...indexed.keys()].some((file) => !documents.has(file))) changed = true;

    this.embedding = modelMatches ? contents.embedding : null;
    this.documentsByFile = documents;
    for (const document of documents.values()) {
      for (const chunk of document.chunks) {
        if (!modelMatches) chunk.embedding = null;
        this.indexChunk(chunk, document, true);
      }
    }
    if (changed) await this.writeIndex(this.embedding, documents);
  }
}
