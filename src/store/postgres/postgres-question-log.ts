// The question log in cluster mode: one table for every namespace, written by every replica, so a report reads the
// questions all replicas answered. Rows go with their namespace (ON DELETE CASCADE).
import type { Pool } from 'pg';
import { parseQuestionLogRecord, type QuestionLog, type QuestionLogRecord } from '../question-log.js';

export class PostgresQuestionLog implements QuestionLog {
  constructor(private readonly pool: Pool) {}

  async append(namespace: string, records: readonly QuestionLogRecord[]): Promise<boolean> {
    // One statement for the batch; a namespace that is not in the database inserts nothing.
    const inserted = await this.pool.query(
      `INSERT INTO knowledge_questions (namespace_id, run_id, recorded_at, record)
       SELECT n.id, r.run_id, r.recorded_at, r.record
       FROM knowledge_namespaces n, unnest($2::text[], $3::timestamptz[], $4::jsonb[]) AS r (run_id, recorded_at, record)
       WHERE n.name = $1`,
      [
        namespace,
        records.map((record) => record.runId),
        records.map((record) => record.at),
        records.map((record) => JSON.stringify(record)),
      ],
    );
    return (inserted.rowCount ?? 0) > 0;
  }

  async read(namespace: string, since: Date, signal?: AbortSignal): Promise<QuestionLogRecord[]> {
    signal?.throwIfAborted();
    // The record as text: JSON.parse here is faster than pg's per-row parse of jsonb, and lets bad rows be skipped.
    const result = await this.pool.query<{ record: string }>(
      `SELECT q.record::text AS record FROM knowledge_questions q JOIN knowledge_namespaces n ON n.id = q.namespace_id
       WHERE n.name = $1 AND q.recorded_at >= $2 ORDER BY q.recorded_at, q.id`,
      [namespace, since.toISOString()],
    );
    return result.rows.flatMap((row) => {
      const record = parseQuestionLogRecord(JSON.parse(row.record));
      return record === undefined ? [] : [record];
    });
  }

  async namespaceOfRun(runId: string): Promise<string | undefined> {
    const result = await this.pool.query<{ name: string }>(
      `SELECT n.name FROM knowledge_questions q JOIN knowledge_namespaces n ON n.id = q.namespace_id
       WHERE q.run_id = $1 AND q.record->>'kind' = 'question' ORDER BY q.recorded_at DESC LIMIT 1`,
      [runId],
    );
    return result.rows[0]?.name;
  }

  async prune(before: Date): Promise<void> {
    await this.pool.query('DELETE FROM knowledge_questions WHERE recorded_at < $1', [before.toISOString()]);
  }
}
