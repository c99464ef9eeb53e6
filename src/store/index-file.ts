// Encoding of a namespace's index.json: documents with their chunks, embeddings as base64 little-endian float32.
import { z } from 'zod';
import type { StoredDocument } from './stored-document.js';

export const indexFileName = 'index.json';
const formatVersion = 1;

const indexFileSchema = z.object({
  format: z.literal(formatVersion),
  embedding: z.object({ model: z.string(), dimensions: z.number().int().positive() }).nullable(),
  documents: z.array(
    z.object({
      file: z.string().regex(/^[^/\\]+\.md$/),
      title: z.string(),
      source: z.string(),
      hash: z.string(),
      ingestedAt: z.string(),
      fileSize: z.number(),
      fileModifiedMs: z.number(),
      chunks: z.array(
        z.object({
          id: z.string(),
          headingPath: z.array(z.string()),
          text: z.string(),
          embedding: z.string().nullable(),
        }),
      ),
    }),
  ),
});

export interface IndexContents {
  readonly embedding: { readonly model: string; readonly dimensions: number } | null;
  readonly documents: readonly StoredDocument[];
}

function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}

function decodeVector(text: string, dimensions: number | undefined): Float32Array | null {
  const bytes = Buffer.from(text, 'base64');
  if (dimensions === undefined || bytes.byteLength !== dimensions * 4) return null;
  // Copy into an aligned buffer: Buffer slices may start at any offset.
  const vector = new Float32Array(dimensions);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}

export function encodeIndex(contents: IndexContents): string {
  return JSON.stringify({
    format: formatVersion,
    embedding: contents.embedding,
    documents: contents.documents.map((document) => ({
      file: document.file,
      title: document.title,
      source: document.source,
      hash: document.hash,
      ingestedAt: document.ingestedAt,
      fileSize: document.fileSize,
      fileModifiedMs: document.fileModifiedMs,
      chunks: document.chunks.map((chunk) => ({
        id: chunk.id,
        headingPath: chunk.headingPath,
        text: chunk.text,
        embedding: chunk.embedding === null ? null : encodeVector(chunk.embedding),
      })),
    })),
  });
}

/** Throws when the text is not a valid index (the caller rebuilds from the Markdown files). */
export function decodeIndex(text: string): IndexContents {
  const parsed = indexFileSchema.parse(JSON.parse(text));
  const dimensions = parsed.embedding?.dimensions;
  return {
    embedding: parsed.embedding,
    documents: parsed.documents.map((document) => ({
      ...document,
      chunks: document.chunks.map((chunk) => ({
        id: chunk.id,
        file: document.file,
        headingPath: chunk.headingPath,
        text: chunk.text,
        embedding: chunk.embedding === null ? null : decodeVector(chunk.embedding, dimensions),
      })),
    })),
  };
}
