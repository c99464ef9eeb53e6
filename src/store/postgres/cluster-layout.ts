// Cluster mode: the namespaces live in PostgreSQL, shared by any number of replicas. Each replica holds every
// namespace's index in memory and keeps it current from the change log: a NOTIFY on every commit wakes it up, and a
// poll (each few seconds, and at once after a lost connection) catches up by sequence number on whatever a lost
// notification left out. The replica that owns background work keeps a snapshot of each namespace in the database, so
// that a replica opening it replays only the log after it, and prunes the log every live replica has applied.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { LayoutEvents, NamespaceCounts, StorageLayout } from '../storage-layout.js';
import { isNamespaceName, sanitizeNamespace, type NamespaceName } from '../namespace-name.js';
import { backgroundWorkerLock, changeChannel, createSchema } from './cluster-schema.js';
import { pruneLog, reportPositions } from './log-pruning.js';
import { PostgresQuestionLog } from './postgres-question-log.js';
import { PostgresSourceRegistry } from './postgres-source-registry.js';
import { PostgresStorage } from './postgres-storage.js';

export interface ClusterLayoutOptions {
  readonly databaseUrl: string;
  /** The embedding model of this replica; vectors recorded under another model are not used (see PostgresStorage.load). */
  readonly embeddingModel: string | null;
  readonly warn: (message: string) => void;
  /** How often the log is checked without a notification (a safety net: notifications are lost while disconnected). */
  readonly pollIntervalMs?: number;
  /** A namespace changed since its snapshot gets a new one once the snapshot is this old (ms). */
  readonly snapshotIntervalMs?: number;
  /** A replica that has not reported for this long holds no log back from pruning (ms). */
  readonly replicaTimeoutMs?: number;
}

/** Connections each replica keeps at most: a few commits and document reads at once. */
const poolSize = 8;
/** A write or read never waits longer than this for the database: it answers storage_unavailable instead. */
const connectTimeoutMs = 3_000;
const queryTimeoutMs = 10_000;
const defaultPollIntervalMs = 3_000;
/**
 * A snapshot of 100,000 chunks costs the replica writing it about a second of CPU (copied out of the index, encoded,
 * stored); the log entries since the last one are what a joining replica replays (tokenizing their chunks).
 */
const defaultSnapshotIntervalMs = 30_000;
const defaultReplicaTimeoutMs = 60_000;
/** Wait before reconnecting the listening connection, doubled up to the maximum while the database stays away. */
const reconnectDelayMs = { first: 200, max: 2_000 };

export class ClusterLayout implements StorageLayout {
  readonly opensInBackground = true;
  private readonly pool: pg.Pool;
  readonly questionLog: PostgresQuestionLog;
  readonly sources: PostgresSourceRegistry;
  private readonly storages = new Map<NamespaceName, PostgresStorage>();
  /** The namespaces the database held when last read (with the last sequence each had). */
  private known = new Map<NamespaceName, number>();
  private listener: pg.Client | undefined;
  private events: LayoutEvents | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private reconnectDelay = reconnectDelayMs.first;
  private closed = false;
  private holdsBackgroundLock = false;
  /** This process among the replicas, for the positions it reports. */
  private readonly replica = randomUUID();
  /** The snapshots being stored and the log being pruned (one pass at a time, beside the polls). */
  private upkeep: Promise<void> | undefined;

  constructor(private readonly options: ClusterLayoutOptions) {
    this.pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: poolSize,
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: queryTimeoutMs,
    });
    // An idle connection dropped by the server (a restart) must not end the process; the next use reconnects.
    this.pool.on('error', (error) => options.warn(`database connection lost (${error.message})`));
    this.questionLog = new PostgresQuestionLog(this.pool);
    this.sources = new PostgresSourceRegistry(this.pool);
  }

  get ownsBackgroundWork(): boolean {
    return this.holdsBackgroundLock;
  }

  async start(events: LayoutEvents): Promise<NamespaceName[]> {
    this.events = events;
    await createSchema(this.pool);
    await this.listen();
    await this.poll();
    this.pollTimer = setInterval(() => void this.poll().catch(() => undefined), this.options.pollIntervalMs ?? defaultPollIntervalMs);
    this.pollTimer.unref();
    return [...this.known.keys()].sort();
  }

  async namespaceNames(): Promise<NamespaceName[]> {
    // From memory: listings keep working while the database is away.
    return [
      ...new Set([
        ...this.known.keys(),
        ...[...this.storages.values()].filter((storage) => storage.appliedSequence > 0).map((storage) => storage.name),
      ]),
    ].sort();
  }

  holds(name: NamespaceName): boolean {
    return this.known.has(name) || (this.storages.get(name)?.appliedSequence ?? 0) > 0;
  }

  storageFor(name: NamespaceName): PostgresStorage {
    const storage = new PostgresStorage({
      name,
      pool: this.pool,
      embeddingModel: this.options.embeddingModel,
      onRemoved: () => {
        this.known.delete(name);
        this.forget(name, storage);
      },
      onOutrun: () => {
        this.forget(name, storage);
        this.events?.changed(name);
      },
      warn: this.options.warn,
    });
    this.storages.set(name, storage);
    return storage;
  }

  /** Counted by the database, as PostgresStorage.load would find them. */
  async storedCounts(name: string): Promise<NamespaceCounts | undefined> {
    const found = await this.pool.query<{ model: string | null; documents: string; chunks: string; vectors: string }>(
      `SELECT n.embedding_model AS model,
         (SELECT count(*) FROM knowledge_documents d WHERE d.namespace_id = n.id) AS documents,
         (SELECT count(*) FROM knowledge_chunks c WHERE c.namespace_id = n.id) AS chunks,
         (SELECT count(c.vector) FROM knowledge_chunks c WHERE c.namespace_id = n.id) AS vectors
       FROM knowledge_namespaces n WHERE n.name = $1`,
      [name],
    );
    const row = found.rows[0];
    if (row === undefined) return undefined;
    return { documents: Number(row.documents), chunks: Number(row.chunks), vectors: Number(row.vectors), embeddingModel: row.model };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.pollTimer);
    await this.upkeep;
    // Gone for good: its positions need not hold the log back until they time out.
    await this.pool.query('DELETE FROM knowledge_replicas WHERE replica = $1', [this.replica]).catch(() => undefined);
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  /**
   * Reads every namespace's last sequence: a namespace behind it (or new here) is brought up to date, one that is
   * gone is forgotten. Also reports how far this replica has applied each namespace, retries for the background work's
   * lock, and (holding it) starts storing the snapshots that are due and pruning the log.
   */
  private async poll(): Promise<void> {
    const found = await this.pool.query<{ name: string; last_seq: string; snapshot_seq: string | null; snapshot_age_ms: number | null }>(
      `SELECT n.name, n.last_seq, s.seq AS snapshot_seq, extract(epoch FROM now() - s.written_at) * 1000 AS snapshot_age_ms
       FROM knowledge_namespaces n LEFT JOIN knowledge_snapshots s ON s.namespace_id = n.id`,
    );
    const known = new Map(found.rows.map((row) => [sanitizeNamespace(row.name), Number(row.last_seq)]));
    const previous = this.known;
    this.known = known;
    for (const [name, seq] of known) {
      const storage = this.storages.get(name);
      if (storage === undefined || storage.appliedSequence < seq) this.events?.changed(name);
    }
    for (const name of previous.keys()) if (!known.has(name)) this.forget(name, this.storages.get(name));
    await reportPositions(
      this.pool,
      this.replica,
      [...this.storages.values()].flatMap((storage) => storage.position ?? []),
    );
    if (!this.holdsBackgroundLock && this.listener !== undefined) await this.claimBackgroundWork(this.listener);
    if (this.holdsBackgroundLock && this.upkeep === undefined) {
      const interval = this.options.snapshotIntervalMs ?? defaultSnapshotIntervalMs;
      const due = found.rows.flatMap((row) => {
        const storage = this.storages.get(sanitizeNamespace(row.name));
        const stale =
          row.snapshot_seq === null || (Number(row.snapshot_age_ms) >= interval && Number(row.snapshot_seq) < Number(row.last_seq));
        return storage !== undefined && (stale || storage.wantsSnapshot) ? [storage] : [];
      });
      this.upkeep = this.keepUp(due).finally(() => (this.upkeep = undefined));
    }
  }

  /** Stores the snapshots that are due, one at a time (each holds a copy of its index), then prunes the log. */
  private async keepUp(due: readonly PostgresStorage[]): Promise<void> {
    for (const storage of due) {
      if (this.closed) return;
      await storage.storeSnapshot().catch((error: unknown) => {
        this.options.warn(
          `the snapshot of namespace ${storage.name} could not be stored (${(error as Error).message}); trying again later`,
        );
      });
    }
    await pruneLog(this.pool, this.options.replicaTimeoutMs ?? defaultReplicaTimeoutMs).catch((error: unknown) => {
      this.options.warn(`the change log could not be pruned (${(error as Error).message}); trying again later`);
    });
  }

  private forget(name: NamespaceName, storage: PostgresStorage | undefined): void {
    if (storage === undefined || this.storages.get(name) !== storage) return;
    this.storages.delete(name);
    this.events?.removed(name);
  }

  /** One connection listens for commits; when it is lost it is made again, and a poll catches up on what was missed. */
  private async listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.databaseUrl,
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: queryTimeoutMs,
    });
    let lost = false;
    const reconnect = (error?: Error) => {
      if (lost || this.closed) return;
      lost = true;
      this.listener = undefined;
      this.holdsBackgroundLock = false;
      this.options.warn(`the database connection that listens for changes was lost (${error?.message ?? 'closed'}); reconnecting`);
      void client.end().catch(() => undefined);
      setTimeout(() => void this.relisten(), this.reconnectDelay).unref();
    };
    // Until it listens, a failure is thrown to the caller (which retries); from then on it reconnects by itself.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query(`LISTEN ${changeChannel}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    client.on('error', reconnect);
    client.on('end', () => reconnect());
    client.on('notification', (message) => {
      // A notification is a hint: the namespace reads the log itself, so a replica's own commits cost one query.
      // Anything else on the channel (another client's NOTIFY) is not ours to act on.
      if (message.payload !== undefined && isNamespaceName(message.payload)) this.events?.changed(message.payload);
    });
    this.listener = client;
    this.reconnectDelay = reconnectDelayMs.first;
    await this.claimBackgroundWork(client);
  }

  private async relisten(): Promise<void> {
    if (this.closed) return;
    try {
      await this.listen();
      await this.poll();
    } catch (error) {
      this.reconnectDelay = Math.min(this.reconnectDelay * 2, reconnectDelayMs.max);
      this.options.warn(`the database is still unreachable (${(error as Error).message}); retrying in ${this.reconnectDelay} ms`);
      setTimeout(() => void this.relisten(), this.reconnectDelay).unref();
    }
  }

  /** The session lock is held as long as the listening connection lives: a replica that dies hands the work on. */
  private async claimBackgroundWork(client: pg.Client): Promise<void> {
    const claimed = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [...backgroundWorkerLock]);
    this.holdsBackgroundLock = claimed.rows[0]?.locked === true;
  }
}
