// A namespace kept in PostgreSQL (cluster mode). A commit is one transaction under the namespace's advisory lock: it
// first applies the log entries other replicas committed, the batch is staged against that up-to-date state, then
// the tables and one log entry are written, committed, announced (NOTIFY) and applied here before the write is
// acknowledged. Other replicas apply the entry from the log, in sequence order, when woken or when polling.
import type { Pool, PoolClient } from 'pg';
import { KnowledgeError } from '../../errors.js';
import type { IndexOp } from '../index-ops.js';
import { NamespaceIndex } from '../namespace-index.js';
import type { NamespaceStorage, StorageBatch, WrittenDocument } from '../namespace-storage.js';
import { uniqueFileName } from '../slug.js';
import type { StoredDocument } from '../stored-document.js';
import { changeChannel, namespaceLockSql } from './cluster-schema.js';
import { asStorageError } from './database-errors.js';
import { bytesToFloats, decodeOps, encodeOps, floatsToBytes } from './index-op-codec.js';

export interface PostgresStorageOptions {
  readonly name: string;
  readonly pool: Pool;
  /** The embedding model of this replica; null keeps whatever vectors are stored (migration). */
  readonly embeddingModel: string | null;
  /** Another replica removed the namespace (or removed and created it again): this copy is stale. */
  readonly onRemoved: () => void;
}

interface NamespaceRow {
  readonly id: string;
  readonly last_seq: string;
}

export class PostgresStorage implements NamespaceStorage {
  /** The namespace's row id once it exists (its first commit creates it). */
  private namespaceId: string | undefined;
  /** The last log entry applied to the index. */
  private appliedSeq = 0;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;

  constructor(private readonly options: PostgresStorageOptions) {}

  get name(): string {
    return this.options.name;
  }

  get warnings(): string[] {
    return [];
  }

  /** Log position applied so far: a replica whose namespaces are all at the last_seq of their rows is caught up. */
  get appliedSequence(): number {
    return this.appliedSeq;
  }

  /** The tables, read in one snapshot with the log position they correspond to. */
  async load(): Promise<NamespaceIndex> {
    const index = NamespaceIndex.empty();
    await this.withClient(async (client) => {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const found = await client.query<NamespaceRow & { embedding_model: string | null; embedding_dimensions: number | null }>(
        'SELECT id, last_seq, embedding_model, embedding_dimensions FROM knowledge_namespaces WHERE name = $1',
        [this.name],
      );
      const row = found.rows[0];
      if (row === undefined) {
        await client.query('COMMIT');
        return;
      }
      const documents = await client.query<{
        file: string;
        title: string;
        source: string;
        hash: string;
        ingested_at: string;
        file_size: number;
      }>('SELECT file, title, source, hash, ingested_at, file_size FROM knowledge_documents WHERE namespace_id = $1', [row.id]);
      const chunks = await client.query<{ id: string; file: string; heading_path: string[]; text: string; vector: Buffer | null }>(
        'SELECT id, file, heading_path, text, vector FROM knowledge_chunks WHERE namespace_id = $1 ORDER BY file, ordinal',
        [row.id],
      );
      await client.query('COMMIT');
      const embedding =
        row.embedding_model === null || row.embedding_dimensions === null
          ? null
          : { model: row.embedding_model, dimensions: row.embedding_dimensions };
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
      // Vectors of another model are never compared with this replica's queries: dropped here (in memory only), their
      // chunks are pending, and the replica that owns background work re-embeds them and commits the new vectors.
      if (embedding !== null && this.options.embeddingModel !== null && embedding.model !== this.options.embeddingModel) {
        index.apply({ op: 'model', embedding: null });
      }
      this.namespaceId = row.id;
      this.appliedSeq = Number(row.last_seq);
    });
    return index;
  }

  async readDocument(file: string): Promise<string | undefined> {
    if (this.namespaceId === undefined) return undefined;
    const id = this.namespaceId;
    return this.withClient(async (client) => {
      const found = await client.query<{ markdown: string }>(
        'SELECT markdown FROM knowledge_documents WHERE namespace_id = $1 AND file = $2',
        [id, file],
      );
      return found.rows[0]?.markdown;
    });
  }

  outsideChanges(): undefined {
    // There is no folder to place files in by hand: every change is a commit, and reaches replicas through the log.
    return undefined;
  }

  /**
   * Applies the log entries committed since the last one applied (woken by NOTIFY, or by the poll after a lost
   * connection). Refreshes that overlap are folded into one more pass, so a burst of notifications costs little.
   */
  refresh(index: NamespaceIndex): Promise<void> {
    if (this.refreshing !== undefined) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      try {
        do {
          this.refreshAgain = false;
          await this.withClient((client) => this.catchUp(client, index));
        } while (this.refreshAgain);
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  async beginBatch(index: NamespaceIndex): Promise<StorageBatch> {
    const client = await this.options.pool.connect().catch((error: unknown) => {
      throw asStorageError(error);
    });
    try {
      await client.query('BEGIN');
      await client.query(namespaceLockSql, [this.name]);
      await this.catchUp(client, index);
      return new PostgresBatch(this, client, index);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw asStorageError(error);
    }
  }

  /** Writes the ops of a batch into the tables and the log, inside the batch's transaction; returns the entry's sequence. */
  async writeCommit(
    client: PoolClient,
    ops: readonly IndexOp[],
    contents: ReadonlyMap<string, string>,
    index: NamespaceIndex,
  ): Promise<number> {
    if (this.namespaceId === undefined) {
      const created = await client.query<{ id: string }>('INSERT INTO knowledge_namespaces (name) VALUES ($1) RETURNING id', [this.name]);
      this.namespaceId = created.rows[0]?.id;
    }
    const id = this.namespaceId as string;
    // Documents as they stand before each op, to keep the vectors of a document put again with the same content.
    const current = new Map<string, StoredDocument | undefined>();
    const before = (file: string) => (current.has(file) ? current.get(file) : index.document(file));
    for (const op of ops) {
      switch (op.op) {
        case 'model':
          await client.query('UPDATE knowledge_namespaces SET embedding_model = $2, embedding_dimensions = $3 WHERE id = $1', [
            id,
            op.embedding?.model ?? null,
            op.embedding?.dimensions ?? null,
          ]);
          await client.query('UPDATE knowledge_chunks SET vector = NULL WHERE namespace_id = $1 AND vector IS NOT NULL', [id]);
          break;
        case 'put':
          await this.writeDocument(client, id, op.document, contents.get(op.document.file), before(op.document.file));
          current.set(op.document.file, op.document);
          break;
        case 'remove':
          await client.query('DELETE FROM knowledge_documents WHERE namespace_id = $1 AND file = $2', [id, op.file]);
          current.set(op.file, undefined);
          break;
        case 'vectors': {
          const dimensions = op.ids.length === 0 ? 0 : op.rows.length / op.ids.length;
          const rows = op.ids.map((_, row) => floatsToBytes(op.rows.subarray(row * dimensions, (row + 1) * dimensions)));
          await client.query(
            'UPDATE knowledge_chunks AS c SET vector = v.vector FROM unnest($2::text[], $3::bytea[]) AS v(id, vector) WHERE c.namespace_id = $1 AND c.id = v.id',
            [id, op.ids, rows],
          );
          break;
        }
      }
    }
    const logged = await client.query<{ seq: string }>('INSERT INTO knowledge_log (namespace_id, ops) VALUES ($1, $2) RETURNING seq', [
      id,
      encodeOps(ops),
    ]);
    const seq = Number(logged.rows[0]?.seq);
    await client.query('UPDATE knowledge_namespaces SET last_seq = $2 WHERE id = $1', [id, seq]);
    await client.query('SELECT pg_notify($1, $2)', [changeChannel, this.name]);
    return seq;
  }

  /** Applies a committed log entry, unless it was applied already (by a refresh that read it from the log first). */
  applyEntry(seq: number, ops: readonly IndexOp[], index: NamespaceIndex): void {
    if (seq <= this.appliedSeq) return;
    for (const op of ops) index.apply(op);
    this.appliedSeq = seq;
  }

  async destroy(): Promise<void> {
    await this.withClient(async (client) => {
      await client.query('BEGIN');
      await client.query(namespaceLockSql, [this.name]);
      await client.query('DELETE FROM knowledge_namespaces WHERE name = $1', [this.name]);
      await client.query('SELECT pg_notify($1, $2)', [changeChannel, this.name]);
      await client.query('COMMIT');
    });
    // Forgotten here at once, as the other replicas do when notified: a read right after finds no namespace.
    this.options.onRemoved();
  }

  async close(): Promise<void> {
    // The connections belong to the cluster's pool, closed with it.
  }

  async afterCommit(): Promise<void> {
    // Nothing to fold: the tables are the state, the log is what replicas replay.
  }

  /** Brings the index up to the namespace's last commit; notices a namespace removed (or replaced) meanwhile. */
  private async catchUp(client: PoolClient, index: NamespaceIndex): Promise<void> {
    const found = await client.query<NamespaceRow>('SELECT id, last_seq FROM knowledge_namespaces WHERE name = $1', [this.name]);
    const row = found.rows[0];
    if (this.namespaceId !== undefined && row?.id !== this.namespaceId) {
      this.options.onRemoved();
      throw new KnowledgeError(
        'storage_unavailable',
        `the namespace "${this.name}" was removed by another replica meanwhile; send the write again`,
        { temporary: true },
      );
    }
    if (row === undefined) return;
    this.namespaceId = row.id;
    if (Number(row.last_seq) <= this.appliedSeq) return;
    const entries = await client.query<{ seq: string; ops: string }>(
      'SELECT seq, ops FROM knowledge_log WHERE namespace_id = $1 AND seq > $2 ORDER BY seq',
      [row.id, this.appliedSeq],
    );
    for (const entry of entries.rows) this.applyEntry(Number(entry.seq), decodeOps(entry.ops), index);
  }

  private async writeDocument(
    client: PoolClient,
    id: string,
    document: StoredDocument,
    markdown: string | undefined,
    previous: StoredDocument | undefined,
  ): Promise<void> {
    if (markdown === undefined) throw new Error(`no Markdown was staged for ${document.file}`);
    await client.query(
      `INSERT INTO knowledge_documents (namespace_id, file, title, source, hash, ingested_at, file_size, markdown) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (namespace_id, file) DO UPDATE SET title = excluded.title, source = excluded.source, hash = excluded.hash,
         ingested_at = excluded.ingested_at, file_size = excluded.file_size, markdown = excluded.markdown`,
      [id, document.file, document.title, document.origin, document.hash, document.ingestedAt, document.fileSize, markdown],
    );
    // Same content, same chunks: they keep their vectors, as in NamespaceIndex.
    if (previous !== undefined && previous.hash === document.hash && previous.chunks.length === document.chunks.length) return;
    await client.query('DELETE FROM knowledge_chunks WHERE namespace_id = $1 AND file = $2', [id, document.file]);
    await client.query(
      `INSERT INTO knowledge_chunks (namespace_id, id, file, ordinal, heading_path, text)
       SELECT $1, c.id, $2, c.ordinal, c.heading_path, c.text FROM unnest($3::text[], $4::int[], $5::jsonb[], $6::text[]) AS c(id, ordinal, heading_path, text)`,
      [
        id,
        document.file,
        document.chunks.map((chunk) => chunk.id),
        document.chunks.map((_, ordinal) => ordinal),
        document.chunks.map((chunk) => JSON.stringify(chunk.headingPath)),
        document.chunks.map((chunk) => chunk.text),
      ],
    );
  }

  private async withClient<T>(use: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.options.pool.connect();
    } catch (error) {
      throw asStorageError(error);
    }
    try {
      const result = await use(client);
      client.release();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw asStorageError(error);
    }
  }
}

/** One transaction holding the namespace's lock; the Markdown it stores is kept here until the commit writes it. */
class PostgresBatch implements StorageBatch {
  /** Each document write in order; a null content removes the document. */
  private readonly writes: { readonly file: string; readonly content: string | null }[] = [];
  private finished = false;

  constructor(
    private readonly storage: PostgresStorage,
    private readonly client: PoolClient,
    private readonly index: NamespaceIndex,
  ) {}

  async createDocument(slug: string, content: string, taken: (file: string) => boolean): Promise<WrittenDocument> {
    return this.write(uniqueFileName(slug, taken), content);
  }

  async replaceDocument(file: string, content: string): Promise<WrittenDocument> {
    return this.write(file, content);
  }

  async removeDocument(file: string): Promise<void> {
    this.writes.push({ file, content: null });
  }

  mark(): number {
    return this.writes.length;
  }

  async undo(since: number): Promise<void> {
    this.writes.splice(since);
  }

  async commit(ops: readonly IndexOp[]): Promise<void> {
    if (ops.length === 0) {
      await this.abort();
      return;
    }
    const contents = new Map<string, string>();
    for (const { file, content } of this.writes) if (content !== null) contents.set(file, content);
    let seq: number;
    try {
      seq = await this.storage.writeCommit(this.client, ops, contents, this.index);
      await this.client.query('COMMIT');
    } catch (error) {
      throw asStorageError(error);
    }
    this.finished = true;
    this.client.release();
    this.storage.applyEntry(seq, ops, this.index);
  }

  async abort(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    try {
      await this.client.query('ROLLBACK');
      this.client.release();
    } catch {
      // A connection that cannot even roll back is broken: destroyed (PostgreSQL rolls back when it closes).
      this.client.release(true);
    }
  }

  private write(file: string, content: string): WrittenDocument {
    this.writes.push({ file, content });
    return { file, size: Buffer.byteLength(content), modifiedMs: Date.now() };
  }
}
