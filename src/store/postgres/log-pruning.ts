// Pruning the change log: each replica reports how far it has applied each namespace's log, and the entries that the
// namespace's snapshot holds and every replica seen lately has applied are deleted. A replica silent for longer holds
// nothing back: when it returns it finds its next entries gone and loads the snapshot again (see PostgresStorage).
import type { Pool } from 'pg';

export interface AppliedPosition {
  readonly namespaceId: string;
  readonly seq: number;
}

/** Records how far `replica` has applied each namespace's log. */
export async function reportPositions(pool: Pool, replica: string, positions: readonly AppliedPosition[]): Promise<void> {
  if (positions.length === 0) return;
  await pool.query(
    `INSERT INTO knowledge_replicas (replica, namespace_id, applied_seq, seen_at)
     SELECT $1, p.namespace_id, p.seq, now() FROM unnest($2::bigint[], $3::bigint[]) AS p(namespace_id, seq)
     ON CONFLICT (replica, namespace_id) DO UPDATE SET applied_seq = excluded.applied_seq, seen_at = excluded.seen_at`,
    [replica, positions.map((position) => position.namespaceId), positions.map((position) => position.seq)],
  );
}

/**
 * Forgets the replicas silent for longer than `liveWithinMs`, then deletes the log entries each namespace's snapshot
 * holds that every remaining replica has applied; the number of entries deleted.
 */
export async function pruneLog(pool: Pool, liveWithinMs: number): Promise<number> {
  await pool.query('DELETE FROM knowledge_replicas WHERE seen_at < now() - make_interval(secs => $1::double precision / 1000)', [
    liveWithinMs,
  ]);
  // LEAST skips the null of a namespace no live replica holds: up to the snapshot, then. A snapshot replaced meanwhile
  // holds more than the one read here, so the bound stays safe.
  const pruned = await pool.query(
    `WITH bound AS (
       SELECT s.namespace_id, LEAST(s.seq, (SELECT min(r.applied_seq) FROM knowledge_replicas r WHERE r.namespace_id = s.namespace_id)) AS seq
       FROM knowledge_snapshots s WHERE s.pruned_seq < s.seq
     ), moved AS (
       UPDATE knowledge_snapshots s SET pruned_seq = b.seq FROM bound b WHERE s.namespace_id = b.namespace_id AND b.seq > s.pruned_seq
       RETURNING s.namespace_id, s.pruned_seq
     )
     DELETE FROM knowledge_log l USING moved m WHERE l.namespace_id = m.namespace_id AND l.seq <= m.pruned_seq`,
  );
  return pruned.rowCount ?? 0;
}
