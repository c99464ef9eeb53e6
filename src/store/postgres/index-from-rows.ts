// A namespace's index built from its rows (documents, chunks, vectors): how a namespace without a usable stored
// snapshot is loaded. It tokenizes every chunk, so it is the slow way: at 100,000 chunks most of a minute.
import type { PoolClient } from 'pg';
import type { EmbeddingInfo } from '../index-ops.js';
import { NamespaceIndex } from '../namespace-index.js';
import type { StoredDocument } from '../stored-document.js';
import { bytesToFloats } from './index-op-codec.js';

/** Reads within the caller's transaction, so the index is the one of the log position read in it. */
export async function indexFromRows(client: PoolClient, namespaceId: string, embedding: EmbeddingInfo | null): Promise<NamespaceIndex> {
  const index = NamespaceIndex.empty();
  const documents = await client.query<{
    file: string;
    title: string;
    source: string;
    hash: string;
    ingested_at: string;
    file_size: number;
  }>('SELECT file, title, source, hash, ingested_at, file_size FROM knowledge_documents WHERE namespace_id = $1', [namespaceId]);
  const chunks = await client.query<{ id: string; file: string; heading_path: string[]; text: string; vector: Buffer | null }>(
    'SELECT id, file, heading_path, text, vector FROM knowledge_chunks WHERE namespace_id = $1 ORDER BY file, ordinal',
    [namespaceId],
  );
  index.apply({ op: 'model', embedding });
  const chunksByFile = new Map<string, StoredDocument['chunks'][number][]>();
  const vectorIds: string[] = [];
  const vectorRows: Buffer[] = [];
  for (const chunk of chunks.rows) {
    const list = chunksByFile.get(chunk.file) ?? [];
    list.push({ id: chunk.id, file: chunk.file, headingPath: chunk.heading_path, text: chunk.text });
    chunksByFile.set(chunk.file, list);
    if (chunk.vector !== null && embedding !== null && chunk.vector.byteLength === embedding.dimensions * 4) {
      vectorIds.push(chunk.id);
      vectorRows.push(chunk.vector);
    }
  }
  for (const document of documents.rows) {
    index.apply({
      op: 'put',
      document: {
        file: document.file,
        title: document.title,
        origin: document.source,
        hash: document.hash,
        ingestedAt: document.ingested_at,
        fileSize: document.file_size,
        fileModifiedMs: Date.parse(document.ingested_at),
        chunks: chunksByFile.get(document.file) ?? [],
      },
    });
  }
  if (vectorIds.length > 0) index.apply({ op: 'vectors', ids: vectorIds, rows: bytesToFloats(Buffer.concat(vectorRows)) });
  return index;
}
