// How a document and its chunks are written in the snapshot and the journal; vectors travel separately.
import { chunkId, EncodedTextChunk, encodedLength, type StoredDocument } from './stored-document.js';
import type { TextsInFile } from './texts-in-file.js';

export type DocumentMetadata = Omit<StoredDocument, 'chunks'>;

/** The origin keeps the field name `source` that the index files have always used. */
export type PersistedDocument = Omit<StoredDocument, 'chunks' | 'origin'> & {
  readonly source: string;
  /** [heading path, text] per chunk, in order: chunk ids are derived from the file name and the position. */
  readonly chunks: readonly (readonly [readonly string[], string])[];
};

const documentFileName = /^[^/\\]+\.md$/;

/** A document's metadata as the index files write it: everything but its chunks, the origin under `source`. */
export function persistedMetadata(document: StoredDocument): Omit<PersistedDocument, 'chunks'> {
  const { file, title, origin, hash, ingestedAt, fileSize, fileModifiedMs } = document;
  return { file, title, source: origin, hash, ingestedAt, fileSize, fileModifiedMs };
}

export function toPersistedDocument(document: StoredDocument): PersistedDocument {
  return { ...persistedMetadata(document), chunks: document.chunks.map((chunk) => [[...chunk.headingPath], chunk.text]) };
}

/**
 * A document as the snapshot writes it: each chunk is [heading path, the UTF-8 bytes of its text], the texts themselves
 * lying in the snapshot's texts section, in order (so that a load decodes none of them).
 */
export type SnapshotDocument = Omit<PersistedDocument, 'chunks'> & { readonly chunks: readonly (readonly [readonly string[], number])[] };

export function toSnapshotDocument(document: StoredDocument): SnapshotDocument {
  return { ...persistedMetadata(document), chunks: document.chunks.map((chunk) => [[...chunk.headingPath], encodedLength(chunk)]) };
}

/** A snapshot's document line, checked: the document's metadata, its chunks, and the bytes their texts take in all. */
export interface SnapshotDocumentLine {
  readonly metadata: DocumentMetadata;
  readonly chunks: SnapshotDocument['chunks'];
  readonly textBytes: number;
}

/** The document line `value` (parsed JSON) of a snapshot; throws when it is not one. */
export function parseSnapshotDocument(value: unknown): SnapshotDocumentLine {
  const metadata = toDocumentMetadata(value);
  const { chunks } = value as { chunks?: unknown };
  if (!Array.isArray(chunks)) throw new Error(`not a persisted document: ${metadata.file} lacks its chunks`);
  let textBytes = 0;
  for (const [ordinal, chunk] of chunks.entries()) {
    const [headingPath, byteLength] = Array.isArray(chunk) ? (chunk as unknown[]) : [];
    if (!Number.isSafeInteger(byteLength) || (byteLength as number) < 0 || !isHeadingPath(headingPath)) {
      throw new Error(`not a persisted document: chunk ${ordinal} of ${metadata.file} is not [heading path, text length]`);
    }
    textBytes += byteLength as number;
  }
  return { metadata, chunks: chunks as SnapshotDocument['chunks'], textBytes };
}

/**
 * The stored document of a snapshot's document line, its chunks' texts kept as `texts` (their bytes, in order, from
 * `start`), or read from the snapshot's file (from the document's offset in it).
 */
export function fromSnapshotDocument({ metadata, chunks }: SnapshotDocumentLine, texts: Buffer | TextsInFile, start = 0): StoredDocument {
  // Chunks of one section share one heading path (each line parses a copy per chunk): fewer objects kept after a load.
  let shared: readonly string[] = [];
  let offset = start;
  return {
    ...metadata,
    chunks: chunks.map(([headingPath, byteLength], ordinal) => {
      if (!samePath(headingPath, shared)) shared = headingPath;
      const chunk = new EncodedTextChunk(chunkId(metadata.file, ordinal), metadata.file, shared, texts, offset, byteLength);
      offset += byteLength;
      return chunk;
    }),
  };
}

const samePath = (left: readonly string[], right: readonly string[]): boolean =>
  left.length === right.length && left.every((heading, index) => heading === right[index]);

/**
 * The stored document that `value` (parsed JSON) describes; throws when it is not a persisted document. Checked by
 * hand rather than with a zod schema: start-up reads ~100,000 chunks this way, and a schema's copy of each is
 * measurable garbage (the files are CRC-checked as well).
 */
export function toStoredDocument(value: unknown): StoredDocument {
  const metadata = toDocumentMetadata(value);
  const { chunks } = value as { chunks?: unknown };
  if (!Array.isArray(chunks)) throw new Error(`not a persisted document: ${metadata.file} lacks its chunks`);
  return {
    ...metadata,
    chunks: chunks.map((chunk: unknown, ordinal) => {
      const [headingPath, text] = Array.isArray(chunk) ? (chunk as unknown[]) : [];
      if (typeof text !== 'string' || !isHeadingPath(headingPath)) {
        throw new Error(`not a persisted document: chunk ${ordinal} of ${metadata.file} is not [heading path, text]`);
      }
      return { id: chunkId(metadata.file, ordinal), file: metadata.file, headingPath, text };
    }),
  };
}

/**
 * A document's fields other than its chunks, from parsed JSON with the origin written `source` (a persisted
 * document, or a document line of index.json).
 */
export function toDocumentMetadata(value: unknown): DocumentMetadata {
  const document = value as Partial<Record<keyof PersistedDocument, unknown>> | null;
  const { file, title, source, hash, ingestedAt, fileSize, fileModifiedMs } = document ?? {};
  if (typeof file !== 'string' || !documentFileName.test(file)) throw new Error(`not a persisted document: file ${JSON.stringify(file)}`);
  if (typeof title !== 'string' || typeof source !== 'string' || typeof hash !== 'string' || typeof ingestedAt !== 'string') {
    throw new Error(`not a persisted document: ${file} lacks its title, source, hash or ingest time`);
  }
  if (typeof fileSize !== 'number' || typeof fileModifiedMs !== 'number')
    throw new Error(`not a persisted document: ${file} lacks its file size or modification time`);
  return { file, title, origin: source, hash, ingestedAt, fileSize, fileModifiedMs };
}

export function isHeadingPath(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((heading) => typeof heading === 'string');
}
