// The registered sources in cluster mode: one table for every namespace, so any replica can list, refresh or remove
// a source, and a lease in the source's row keeps one refresh at a time across replicas. Rows go with their namespace
// (ON DELETE CASCADE).
//
// Times are the process's clock: claimDue is given `now` by the scheduler, which also computes nextRunAt, and
// acquire reads the same clock, so due times and leases are compared on one clock (clock skew between replicas only
// moves a lease's end by the skew, small beside leases of seconds to minutes).
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { namespaceLockSql } from './cluster-schema.js';
import { asStorageError } from './database-errors.js';
import {
  emptySourceState,
  type RefreshSummary,
  type RegisteredSource,
  type SourceDefinition,
  type SourceRegistry,
  type SourceState,
} from '../source-registry.js';
import { sanitizeNamespace } from '../namespace-name.js';

interface SourceRow {
  namespace: string;
  id: string;
  definition: SourceDefinition;
  last_refresh: RefreshSummary | null;
  next_run_at: Date | null;
  created_at: Date;
}

/** The columns a RegisteredSource is read from, with `n` the namespace and `s` the source. */
const sourceColumns = 'n.name AS namespace, s.id, s.definition, s.last_refresh, s.next_run_at, s.created_at';

export class PostgresSourceRegistry implements SourceRegistry {
  constructor(
    private readonly pool: Pool,
    /** The clock acquire measures leases with; claimDue is given its time. */
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async list(namespace: string): Promise<RegisteredSource[]> {
    const result = await this.query<SourceRow>(
      `SELECT ${sourceColumns} FROM knowledge_sources s JOIN knowledge_namespaces n ON n.id = s.namespace_id
       WHERE n.name = $1 ORDER BY s.created_at, s.id`,
      [namespace],
    );
    return result.rows.map(toSource);
  }

  async save(source: RegisteredSource): Promise<void> {
    const { id, namespace, createdAt, lastRefresh, nextRunAt, ...definition } = source;
    await this.transaction(async (client) => {
      const namespaceId = await this.namespaceId(client, namespace);
      // State and lease stay as they are: a refresh saves its summary while it holds the lease.
      await client.query(
        `INSERT INTO knowledge_sources (namespace_id, id, definition, last_refresh, next_run_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (namespace_id, id) DO UPDATE SET definition = excluded.definition, last_refresh = excluded.last_refresh,
           next_run_at = excluded.next_run_at, created_at = excluded.created_at`,
        [namespaceId, id, JSON.stringify(definition), lastRefresh === null ? null : JSON.stringify(lastRefresh), nextRunAt, createdAt],
      );
    });
  }

  async remove(namespace: string, id: string): Promise<boolean> {
    const removed = await this.query(
      `DELETE FROM knowledge_sources s USING knowledge_namespaces n WHERE n.id = s.namespace_id AND n.name = $1 AND s.id = $2`,
      [namespace, id],
    );
    return (removed.rowCount ?? 0) > 0;
  }

  async readState(namespace: string, id: string): Promise<SourceState> {
    const result = await this.query<{ state: SourceState }>(
      `SELECT s.state FROM knowledge_sources s JOIN knowledge_namespaces n ON n.id = s.namespace_id WHERE n.name = $1 AND s.id = $2`,
      [namespace, id],
    );
    return result.rows[0]?.state ?? emptySourceState;
  }

  async writeState(namespace: string, id: string, state: SourceState): Promise<void> {
    // A source removed while it was refreshed keeps no state: the update finds no row.
    await this.query(
      `UPDATE knowledge_sources s SET state = $3 FROM knowledge_namespaces n WHERE n.id = s.namespace_id AND n.name = $1 AND s.id = $2`,
      [namespace, id, JSON.stringify(state)],
    );
  }

  async acquire(namespace: string, id: string, owner: string, leaseMs: number): Promise<boolean> {
    const now = this.clock();
    // One statement: the row lock makes a second replica's attempt see the first one's lease.
    const taken = await this.query(
      `UPDATE knowledge_sources s SET lease_owner = $3, lease_until = $5
       FROM knowledge_namespaces n
       WHERE n.id = s.namespace_id AND n.name = $1 AND s.id = $2
         AND (s.lease_until IS NULL OR s.lease_until < $4 OR s.lease_owner = $3)`,
      [namespace, id, owner, now, new Date(now.getTime() + leaseMs)],
    );
    return (taken.rowCount ?? 0) > 0;
  }

  async release(namespace: string, id: string, owner: string): Promise<void> {
    await this.query(
      `UPDATE knowledge_sources s SET lease_owner = NULL, lease_until = NULL
       FROM knowledge_namespaces n
       WHERE n.id = s.namespace_id AND n.name = $1 AND s.id = $2 AND s.lease_owner = $3`,
      [namespace, id, owner],
    );
  }

  async claimDue(now: Date, owner: string, leaseMs: number, limit: number): Promise<RegisteredSource[]> {
    // SKIP LOCKED passes over the rows another replica is claiming at this moment; one it claimed just before is
    // re-checked by PostgreSQL against its new lease, so no source is claimed twice.
    const claimed = await this.query<SourceRow>(
      `WITH claimed AS (
         UPDATE knowledge_sources s SET lease_owner = $2, lease_until = $3
         FROM knowledge_namespaces n
         WHERE n.id = s.namespace_id AND (s.namespace_id, s.id) IN (
           SELECT namespace_id, id FROM knowledge_sources
           WHERE next_run_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
           ORDER BY next_run_at LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING ${sourceColumns})
       SELECT * FROM claimed ORDER BY next_run_at, namespace, id`,
      [now, owner, new Date(now.getTime() + leaseMs), limit],
    );
    return claimed.rows.map(toSource);
  }

  /**
   * The namespace's row id, inserting the row for a namespace that has none yet (sources are added before its first
   * documents). Under the namespace's lock, as commits are: a commit that found no row inserts one without a conflict.
   */
  private async namespaceId(client: PoolClient, namespace: string): Promise<string> {
    const select = 'SELECT id FROM knowledge_namespaces WHERE name = $1';
    const found = await client.query<{ id: string }>(select, [namespace]);
    if (found.rows[0] !== undefined) return found.rows[0].id;
    await client.query(namespaceLockSql, [namespace]);
    await client.query('INSERT INTO knowledge_namespaces (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [namespace]);
    const created = await client.query<{ id: string }>(select, [namespace]);
    if (created.rows[0] === undefined) throw new Error(`the namespace "${namespace}" has no row after inserting it`);
    return created.rows[0].id;
  }

  private async query<Row extends QueryResultRow>(text: string, values: readonly unknown[]) {
    try {
      return await this.pool.query<Row>(text, [...values]);
    } catch (error) {
      throw asStorageError(error);
    }
  }

  private async transaction(use: (client: PoolClient) => Promise<void>): Promise<void> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw asStorageError(error);
    }
    try {
      await client.query('BEGIN');
      await use(client);
      await client.query('COMMIT');
      client.release();
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw asStorageError(error);
    }
  }
}

function toSource(row: SourceRow): RegisteredSource {
  return {
    ...row.definition,
    id: row.id,
    namespace: sanitizeNamespace(row.namespace),
    createdAt: row.created_at.toISOString(),
    lastRefresh: row.last_refresh,
    nextRunAt: row.next_run_at?.toISOString() ?? null,
  };
}
