// index.json as versions before the snapshot and journal wrote it (format 1): the whole index on one line, each chunk
// with its vector. Read once, to carry its documents and vectors over; the next write replaces it with the current format.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { normalize } from '../../indexes/cosine.js';
import type { IndexContents } from '../index-contents.js';
import { chunkId, type StoredDocument } from '../stored-document.js';

/** How JSON.stringify began every such file. */
export const legacyIndexJsonPrefix = '{"format":1,';

const legacySchema = z.object({
  format: z.literal(1),
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
      chunks: z.array(z.object({ headingPath: z.array(z.string()), text: z.string(), embedding: z.string().nullable() })),
    }),
  ),
});

/** Throws (with the reason) when the file is not a whole index.json of format 1. */
export async function readLegacyIndexJson(path: string): Promise<IndexContents> {
  // Read whole, as it was written: these files were made by one JSON.stringify, so they fit in a string.
  const { embedding, documents: stored } = legacySchema.parse(JSON.parse(await readFile(path, 'utf8')));
  const keys: string[] = [];
  const unitRows: Float32Array[] = [];
  const documents = stored.map(
    ({ chunks, source, ...document }): StoredDocument => ({
      ...document,
      origin: source,
      chunks: chunks.map((chunk, ordinal) => {
        const id = chunkId(document.file, ordinal);
        const bytes = chunk.embedding === null ? undefined : Buffer.from(chunk.embedding, 'base64');
        // A vector of another size than the model's was never searched: its chunk waits to be embedded again.
        if (bytes !== undefined && embedding !== null && bytes.byteLength === embedding.dimensions * 4) {
          // Copied to an aligned buffer (a Buffer may start at any byte), then made a unit vector as the index keeps them.
          const vector = new Float32Array(embedding.dimensions);
          new Uint8Array(vector.buffer).set(bytes);
          keys.push(id);
          unitRows.push(normalize(vector));
        }
        return { id, file: document.file, headingPath: chunk.headingPath, text: chunk.text };
      }),
    }),
  );
  if (embedding === null || keys.length === 0) return { embedding, documents, vectors: null };
  const rows = new Float32Array(keys.length * embedding.dimensions);
  unitRows.forEach((row, position) => rows.set(row, position * embedding.dimensions));
  return { embedding, documents, vectors: { keys, rows } };
}
