// How a document and its chunks are written in the index files (snapshot and journal); vectors travel separately.
import { z } from 'zod';
import { chunkId, type StoredDocument } from './stored-document.js';

export const persistedDocumentSchema = z.object({
  file: z.string().regex(/^[^/\\]+\.md$/),
  title: z.string(),
  source: z.string(),
  hash: z.string(),
  ingestedAt: z.string(),
  fileSize: z.number(),
  fileModifiedMs: z.number(),
  /** [heading path, text] per chunk, in order: chunk ids are derived from the file name and the position. */
  chunks: z.array(z.tuple([z.array(z.string()), z.string()])),
});

export type PersistedDocument = z.infer<typeof persistedDocumentSchema>;

export function toPersistedDocument(document: StoredDocument): PersistedDocument {
  const { file, title, source, hash, ingestedAt, fileSize, fileModifiedMs } = document;
  return { file, title, source, hash, ingestedAt, fileSize, fileModifiedMs, chunks: document.chunks.map((chunk) => [[...chunk.headingPath], chunk.text]) };
}

/** Throws a ZodError when `value` is not a persisted document. */
export function toStoredDocument(value: unknown): StoredDocument {
  const { chunks, ...document } = persistedDocumentSchema.parse(value);
  return {
    ...document,
    chunks: chunks.map(([headingPath, text], ordinal) => ({ id: chunkId(document.file, ordinal), file: document.file, headingPath, text })),
  };
}
