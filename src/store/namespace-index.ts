// A namespace's index in memory: documents, chunks, the lexical index and the vectors, changed only by applying IndexOps
// (the same ops the journal records), so what is replayed at start-up is exactly what happened while running.
import { openSync } from 'node:fs';
import { LexicalIndex } from '../indexes/lexical-index.js';
import type { ScoredHit } from '../indexes/scored-hit.js';
import { type LiveRows, VectorIndex } from '../indexes/vector-index.js';
import { FilesByKey } from './files-by-key.js';
import type { IndexContents, StoredVectors } from './index-contents.js';
import type { IndexJsonSource } from './folder/index-json.js';
import type { EmbeddingInfo, IndexOp } from './index-ops.js';
import type { SnapshotContents, SnapshotSource, WrittenSnapshot } from './index-snapshot.js';
import {
  EncodedTextChunk,
  encodedLength,
  originIdentity,
  type StoredChunk,
  type StoredDocument,
  textSize,
  textSizeInMemory,
} from './stored-document.js';
import { TextsInFile } from './texts-in-file.js';

/** A snapshot's contents read from the live index (see NamespaceIndex.toSnapshot). */
export type LiveSnapshot = Omit<SnapshotSource, 'derivedFrom' | 'vectors'> & { readonly vectors: LiveRows | null };

export class NamespaceIndex {
  private readonly documentsByFile = new Map<string, StoredDocument>();
  private readonly chunksById = new Map<string, StoredChunk>();
  private readonly filesByHash = new FilesByKey();
  /** Files by origin identity (see originIdentity): what an ingest from the same origin replaces. */
  private readonly filesByOrigin = new FilesByKey();
  private currentEmbedding: EmbeddingInfo | null = null;
  private vectors: VectorIndex | null = null;
  /** Characters of every chunk's text, and of those held in memory (see TextsInFile), kept for the memory estimate. */
  private characters = 0;
  private charactersInMemory = 0;
  /**
   * The files chunks read their texts from: the latest snapshot's, and earlier ones while a chunk of theirs lives on
   * (see TextsInFile). Weak, so that an earlier file is closed once it is collected; close() closes what is left.
   */
  private textFiles: WeakRef<TextsInFile>[] = [];

  private constructor(private readonly lexical: LexicalIndex) {}

  static empty(): NamespaceIndex {
    return new NamespaceIndex(new LexicalIndex());
  }

  /** Throws when the parts of the snapshot do not agree with each other (the caller rebuilds instead). */
  static fromSnapshot(snapshot: SnapshotContents): NamespaceIndex {
    try {
      const index = new NamespaceIndex(LexicalIndex.fromSnapshot(snapshot.lexical));
      if (snapshot.textsFile !== undefined) index.textFiles.push(new WeakRef(snapshot.textsFile));
      index.currentEmbedding = snapshot.embedding;
      for (const document of snapshot.documents) index.addDocument(document);
      if (index.lexical.size !== index.chunksById.size || snapshot.lexical.keys.some((key) => !index.chunksById.has(key))) {
        throw new Error('the lexical index does not cover the same chunks as the documents');
      }
      index.adoptVectors(snapshot.vectors);
      return index;
    } catch (error) {
      // Not kept: the file its texts would have been read from is closed now, not when collected.
      snapshot.textsFile?.close();
      throw error;
    }
  }

  /** Builds the index from documents and vectors alone, tokenizing every chunk; throws when the vectors do not fit. */
  static fromContents(contents: IndexContents): NamespaceIndex {
    const index = NamespaceIndex.empty();
    index.currentEmbedding = contents.embedding;
    for (const document of contents.documents) index.put(document);
    index.adoptVectors(contents.vectors);
    return index;
  }

  /** Everything a snapshot holds, read from the live index as it is written: write it before the next change. */
  toSnapshot(): LiveSnapshot {
    return {
      embedding: this.currentEmbedding,
      documents: [...this.documentsByFile.values()],
      lexical: this.lexical.toSnapshotInPieces(),
      vectors: this.vectors === null ? null : this.vectors.liveRows(),
    };
  }

  /** What index.json is written from; the vectors are views of the live rows, so write it before the next change. */
  toIndexJsonSource(): IndexJsonSource {
    return {
      embedding: this.currentEmbedding,
      documents: [...this.documentsByFile.values()],
      halvesOf: (id) => this.vectors?.halfView(id),
    };
  }

  /**
   * Once a snapshot of `snapshot` (this index's `toSnapshot()`) is written to `path`: the chunks' texts and the vector
   * rows are read from there from now on instead of held in memory, except those of documents or vectors changed
   * meanwhile (they stay in memory until the next snapshot).
   */
  readFromSnapshot(path: string, written: WrittenSnapshot, snapshot: LiveSnapshot): void {
    const texts = TextsInFile.open(path);
    this.textFiles = [...this.textFiles.filter((file) => file.deref() !== undefined), new WeakRef(texts)];
    this.readTextsFrom(texts, written.textsOffset, snapshot.documents);
    if (this.vectors !== null && snapshot.vectors !== null && written.rows !== undefined) {
      this.vectors.readRowsFrom({ fd: openSync(path, 'r'), ...written.rows }, snapshot.vectors.version);
    }
  }

  /** Moves the texts of `documents` (written one after another from `offset`) to `file`, those still current. */
  private readTextsFrom(file: TextsInFile, offset: number, documents: readonly StoredDocument[]): void {
    let start = offset;
    for (const document of documents) {
      const current = this.documentsByFile.get(document.file) === document;
      const chunks: StoredChunk[] = [];
      let replaced = false;
      for (const chunk of document.chunks) {
        const byteLength = encodedLength(chunk);
        if (current) {
          this.countText(chunk, -1);
          if (chunk instanceof EncodedTextChunk) chunk.moveTo(file, start);
          // A chunk whose text is a string becomes one that reads it.
          const moved =
            chunk instanceof EncodedTextChunk
              ? chunk
              : new EncodedTextChunk(chunk.id, chunk.file, chunk.headingPath, file, start, byteLength);
          replaced ||= moved !== chunk;
          this.countText(moved, 1);
          chunks.push(moved);
        }
        start += byteLength;
      }
      if (replaced) {
        this.documentsByFile.set(document.file, { ...document, chunks });
        for (const chunk of chunks) this.chunksById.set(chunk.id, chunk);
      }
    }
  }

  /** Closes the files the texts and vector rows are read from, if any: the index is not used after this. */
  close(): void {
    for (const file of this.textFiles) file.deref()?.close();
    this.textFiles = [];
    this.vectors?.close();
  }

  apply(op: IndexOp): void {
    switch (op.op) {
      case 'model':
        this.currentEmbedding = op.embedding;
        this.vectors?.close();
        this.vectors = null;
        return;
      case 'put':
        this.put(op.document);
        return;
      case 'remove':
        this.removeDocument(op.file);
        return;
      case 'vectors':
        this.addVectors(op.ids, op.rows);
        return;
    }
  }

  get embedding(): EmbeddingInfo | null {
    return this.currentEmbedding;
  }

  get documents(): StoredDocument[] {
    return [...this.documentsByFile.values()];
  }

  /** Every document's file name, in the order the documents were last added. */
  files(): IterableIterator<string> {
    return this.documentsByFile.keys();
  }

  /** The files holding content of `hash`, oldest first. */
  filesWithHash(hash: string): readonly string[] {
    return this.filesByHash.files(hash);
  }

  /** The files of documents of origin identity `identity` (see originIdentity), oldest first. */
  filesWithOrigin(identity: string): readonly string[] {
    return this.filesByOrigin.files(identity);
  }

  get documentCount(): number {
    return this.documentsByFile.size;
  }

  get chunkCount(): number {
    return this.chunksById.size;
  }

  document(file: string): StoredDocument | undefined {
    return this.documentsByFile.get(file);
  }

  chunk(id: string): StoredChunk | undefined {
    return this.chunksById.get(id);
  }

  findByHash(hash: string): StoredDocument | undefined {
    const file = this.filesByHash.files(hash)[0];
    return file === undefined ? undefined : this.documentsByFile.get(file);
  }

  /** Chunks that have no vector from the current embedding model yet. */
  pendingChunks(): StoredChunk[] {
    return [...this.chunksById.values()].filter((chunk) => this.vectors?.has(chunk.id) !== true);
  }

  get pendingChunkCount(): number {
    return this.chunksById.size - (this.vectors?.size ?? 0);
  }

  get vectorCount(): number {
    return this.vectors?.size ?? 0;
  }

  /** Vectors whose float32 rows are held in memory, not read from the snapshot's file. */
  get vectorsInMemory(): number {
    return this.vectors?.rowsInMemory ?? 0;
  }

  /** Characters of text in the namespace's chunks. */
  get textLength(): number {
    return this.characters;
  }

  /** Characters of text held in memory, not read from the snapshot's file. */
  get textLengthInMemory(): number {
    return this.charactersInMemory;
  }

  vectorOf(id: string): Float32Array | undefined {
    return this.vectors?.vector(id);
  }

  searchVectors(query: Float32Array, limit: number): ScoredHit[] {
    return this.vectors?.search(query, limit) ?? [];
  }

  searchLexical(query: string, limit: number): ScoredHit[] {
    return this.lexical.search(query, limit);
  }

  matchedTerms(query: string): string[] {
    return this.lexical.matchedTerms(query);
  }

  chunksWithTerm(term: string): number {
    return this.lexical.chunksWithTerm(term);
  }

  termsStartingWith(prefix: string, atMost: number): number {
    return this.lexical.termsStartingWith(prefix, atMost);
  }

  termsHeld(chunkId: string, terms: readonly string[]): boolean[] {
    return this.lexical.termsHeld(chunkId, terms);
  }

  private put(document: StoredDocument): void {
    const before = this.documentsByFile.get(document.file);
    if (before !== undefined && before.hash === document.hash && before.chunks.length === document.chunks.length) {
      // Same content (a file touched by hand, say): new metadata, and the chunks keep their terms and vectors.
      this.documentsByFile.set(document.file, document);
      if (originIdentity(before) !== originIdentity(document)) {
        this.filesByOrigin.remove(originIdentity(before), document.file);
        this.filesByOrigin.add(originIdentity(document), document.file);
      }
      for (const chunk of before.chunks) this.countText(chunk, -1);
      for (const chunk of document.chunks) {
        this.chunksById.set(chunk.id, chunk);
        this.countText(chunk, 1);
      }
      return;
    }
    if (before !== undefined) this.removeDocument(before.file);
    this.addDocument(document);
    for (const chunk of document.chunks) {
      this.lexical.add(chunk.id, { title: document.title, headings: chunk.headingPath.join(' '), body: chunk.text });
    }
  }

  /** Records the document and its chunks, without touching the lexical index (a snapshot restores that whole). */
  private addDocument(document: StoredDocument): void {
    this.documentsByFile.set(document.file, document);
    for (const chunk of document.chunks) {
      this.chunksById.set(chunk.id, chunk);
      this.countText(chunk, 1);
    }
    this.filesByHash.add(document.hash, document.file);
    this.filesByOrigin.add(originIdentity(document), document.file);
  }

  private removeDocument(file: string): void {
    const document = this.documentsByFile.get(file);
    if (document === undefined) return;
    this.documentsByFile.delete(file);
    for (const chunk of document.chunks) {
      this.chunksById.delete(chunk.id);
      this.countText(chunk, -1);
      this.lexical.remove(chunk.id);
      this.vectors?.remove(chunk.id);
    }
    this.filesByHash.remove(document.hash, file);
    this.filesByOrigin.remove(originIdentity(document), file);
  }

  private countText(chunk: StoredChunk, sign: 1 | -1): void {
    this.characters += sign * textSize(chunk);
    this.charactersInMemory += sign * textSizeInMemory(chunk);
  }

  /** Takes over rows read from a file, as they are (unit vectors), without copying them. */
  private adoptVectors(vectors: StoredVectors | null): void {
    if (vectors === null || this.currentEmbedding === null || vectors.keys.length === 0) return;
    if (vectors.keys.some((key) => !this.chunksById.has(key))) throw new Error('vectors of chunks that no document has');
    this.vectors = VectorIndex.fromRows(this.currentEmbedding.dimensions, vectors.keys, vectors.rows, vectors.lists);
  }

  private addVectors(ids: readonly string[], rows: Float32Array): void {
    const dimensions = this.currentEmbedding?.dimensions;
    if (dimensions === undefined || ids.length === 0 || rows.length !== ids.length * dimensions) return;
    ids.forEach((id, row) => {
      if (!this.chunksById.has(id)) return;
      this.vectors ??= new VectorIndex(dimensions);
      this.vectors.add(id, rows.subarray(row * dimensions, (row + 1) * dimensions));
    });
  }
}
