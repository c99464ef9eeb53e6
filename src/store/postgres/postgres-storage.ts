// A namespace kept in PostgreSQL (cluster mode). A commit is one transaction under the namespace's advisory lock: it
// first applies the log entries other replicas committed, the batch is staged against that up-to-date state, then
// the tables and one log entry are written, committed, announced (NOTIFY) and applied here before the write is
// acknowledged. Other replicas apply the entry from the log, in sequence order, when woken or when polling. A replica
// opening the namespace restores its stored snapshot and replays only the log after it (see stored-snapshot.ts).
import pg, { type Pool, type PoolClient } from 'pg';
import { KnowledgeError } from '../../errors.js';
import type { IndexOp } from '../index-ops.js';
import { NamespaceIndex } from '../namespace-index.js';
import type { NamespaceStorage, StorageBatch, WrittenDocument } from '../namespace-storage.js';
import { uniqueFileName } from '../slug.js';
import type { NamespaceName } from '../namespace-name.js';
import type { StoredDocument } from '../stored-document.js';
import { changeChannel, namespaceLockSql } from './cluster-schema.js';
import { asStorageError, isDatabaseUnavailable } from './database-errors.js';
import { indexFromRows } from './index-from-rows.js';
import { decodeOps, encodeOps, floatsToBytes } from './index-op-codec.js';
import type { AppliedPosition } from './log-pruning.js';
import { detachedSnapshot, readStoredSnapshot, storeSnapshot } from './stored-snapshot.js';

export interface PostgresStorageOptions {
  readonly name: NamespaceName;
  readonly pool: Pool;
  /** The embedding model of this replica; null keeps whatever vectors are stored (migration). */
  readonly embeddingModel: string | null;
  /** Another replica removed the namespace (or removed and created it again): this copy is stale. */
  readonly onRemoved: () => void;
  /** The log entries this copy still lacks were pruned (it was away too long): it must be opened again, from the snapshot. */
  readonly onOutrun: () => void;
  readonly warn: (message: string) => void;
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
  /** The index load() made, while the namespace is open: what a snapshot is taken of. */
  private index: NamespaceIndex | undefined;
  /** False while the index holds less than the tables (vectors of another model dropped at load): no snapshot of it. */
  private faithful = true;
  /** Loaded without a usable stored snapshot: one is due at once (when this replica owns background work). */
  private snapshotMissing = false;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;

  constructor(private readonly options: PostgresStorageOptions) {}

  get name(): NamespaceName {
    return this.options.name;
  }

  get warnings(): string[] {
    return [];
  }

  /** Log position applied so far: a replica whose namespaces are all at the last_seq of their rows is caught up. */
  get appliedSequence(): number {
    return this.appliedSeq;
  }

  /**
   * The namespace as of its last commit, read in one database snapshot: its stored snapshot and the log after it, or
   * its rows when it has no usable snapshot (a database of an earlier version: the replica owning background work
   * writes one).
   */
  async load(): Promise<NamespaceIndex> {
    const index = await this.withClient(async (client) => {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const found = await client.query<NamespaceRow & { embedding_model: string | null; embedding_dimensions: number | null }>(
        'SELECT id, last_seq, embedding_model, embedding_dimensions FROM knowledge_namespaces WHERE name = $1',
        [this.name],
      );
      const row = found.rows[0];
      if (row === undefined) {
        await client.query('COMMIT');
        return NamespaceIndex.empty();
      }
      const embedding =
        row.embedding_model === null || row.embedding_dimensions === null
          ? null
          : { model: row.embedding_model, dimensions: row.embedding_dimensions };
      const restored = await this.fromSnapshot(client, row.id);
      this.snapshotMissing = restored === undefined;
      const loaded = restored ?? (await indexFromRows(client, row.id, embedding));
      await client.query('COMMIT');
      // Vectors of another model are never compared with this replica's queries: dropped here (in memory only), their
      // chunks are pending, and the replica that owns background work re-embeds them and commits the new vectors.
      const model = loaded.embedding?.model;
      this.faithful = model === undefined || this.options.embeddingModel === null || model === this.options.embeddingModel;
      if (!this.faithful) loaded.apply({ op: 'model', embedding: null });
      this.namespaceId = row.id;
      this.appliedSeq = Number(row.last_seq);
      return loaded;
    });
    this.index = index;
    return index;
  }

  /** The stored snapshot with the log after it applied; undefined when there is none or it is unusable (damaged, say). */
  private async fromSnapshot(client: PoolClient, namespaceId: string): Promise<NamespaceIndex | undefined> {
    try {
      const snapshot = await readStoredSnapshot(client, namespaceId);
      if (snapshot === undefined) return undefined;
      const index = NamespaceIndex.fromSnapshot(snapshot.contents);
      const entries = await client.query<{ ops: string }>(
        'SELECT ops FROM knowledge_log WHERE namespace_id = $1 AND seq > $2 ORDER BY seq',
        [namespaceId, snapshot.seq],
      );
      for (const entry of entries.rows) for (const op of decodeOps(entry.ops)) index.apply(op);
      return index;
    } catch (error) {
      // A failed query ended the transaction: nothing more can be read in it, the load is tried again.
      if (error instanceof pg.DatabaseError || isDatabaseUnavailable(error)) throw error;
      this.options.warn(
        `the stored snapshot of namespace ${this.name} is unusable (${(error as Error).message}); loading its rows instead`,
      );
      return undefined;
    }
  }

  /** How far this replica has applied the log, while the namespace is open. */
  get position(): AppliedPosition | undefined {
    return this.index === undefined || this.namespaceId === undefined ? undefined : { namespaceId: this.namespaceId, seq: this.appliedSeq };
  }

  /**
   * Stores a snapshot of the index as it stands; false when it cannot be taken or another replica stored one as recent.
   * Writes go on meanwhile: the snapshot is copied out of the index at once, then written and stored in the background.
   */
  async storeSnapshot(): Promise<boolean> {
    if (this.index === undefined || this.namespaceId === undefined || this.appliedSeq === 0 || !this.faithful) return false;
    const stored = await storeSnapshot(this.options.pool, this.name, this.namespaceId, this.appliedSeq, detachedSnapshot(this.index));
    if (stored) this.snapshotMissing = false;
    return stored;
  }

  /** Whether this replica found no usable snapshot when it loaded the namespace (and has stored none since). */
  get wantsSnapshot(): boolean {
    return this.snapshotMissing;
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
    // A new model's vectors are the tables' again.
    if (ops.some((op) => op.op === 'model')) this.faithful = true;
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
    this.index = undefined;
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
    // With how far the log was pruned, in one statement: entries pruned after it was read cannot go unnoticed.
    const entries = await client.query<{ pruned_seq: string; seq: string | null; ops: string | null }>(
      `SELECT p.pruned_seq, l.seq, l.ops FROM (SELECT coalesce(max(pruned_seq), 0) AS pruned_seq FROM knowledge_snapshots WHERE namespace_id = $1) AS p
       LEFT JOIN knowledge_log l ON l.namespace_id = $1 AND l.seq > $2 ORDER BY l.seq`,
      [row.id, this.appliedSeq],
    );
    if (Number(entries.rows[0]?.pruned_seq) > this.appliedSeq) {
      this.options.onOutrun();
      throw new KnowledgeError(
        'storage_unavailable',
        `namespace "${this.name}" is being opened again on this replica (it was away while the log was pruned); send the write again`,
        { temporary: true },
      );
    }
    for (const entry of entries.rows)
      if (entry.seq !== null && entry.ops !== null) this.applyEntry(Number(entry.seq), decodeOps(entry.ops), index);
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
