// A namespace's index kept in PostgreSQL as the folder layout's binary snapshot (../index-snapshot.ts), in parts, as of
// one log entry: a replica that opens the namespace restores it without tokenizing anything and replays only the log
// after it. The bytes pass through a temporary file, so neither side holds a whole snapshot in memory.
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool, PoolClient } from 'pg';
import type { ArrayInPieces } from '../../indexes/lexical-index.js';
import { readSnapshot, writeSnapshot, type SnapshotContents, type SnapshotSource } from '../index-snapshot.js';
import type { NamespaceIndex } from '../namespace-index.js';
import { snapshotLockClass } from './cluster-schema.js';

/** Bytes of one stored part: a 100,000-chunk namespace is a few dozen rows, each cheap to hold while it is copied. */
const partBytes = 8 << 20;

export interface StoredSnapshot {
  /** The last log entry the snapshot holds. */
  readonly seq: number;
  readonly contents: SnapshotContents;
}

/**
 * What a snapshot of `index` is written from, copied out of it (synchronously, so no op lands halfway): the index
 * goes on changing while the copy is written and stored. The documents are immutable and shared, not copied.
 */
export function detachedSnapshot(index: NamespaceIndex): SnapshotSource {
  const live = index.toSnapshot();
  const arrays = Object.fromEntries(Object.entries(live.lexical.arrays).map(([name, array]) => [name, materialized(array)]));
  return {
    ...live,
    lexical: { ...live.lexical, lengthTotals: [...live.lexical.lengthTotals], arrays },
    vectors: live.vectors === null ? null : { keys: live.vectors.keys, rows: live.vectors.rows.slice() },
    derivedFrom: null,
  };
}

function materialized(array: ArrayInPieces): ArrayInPieces {
  const whole = array.type === 'f32' ? new Float32Array(array.length) : new Uint32Array(array.length);
  let filled = 0;
  for (const piece of array.pieces()) {
    whole.set(piece, filled);
    filled += piece.length;
  }
  return { type: array.type, length: array.length, pieces: () => [whole] };
}

/**
 * Stores `source` as the namespace's snapshot at log entry `seq`, replacing the one there in the same transaction (a
 * replica reading meanwhile sees one or the other whole). False when another replica is writing one, or a more recent
 * one is there already.
 */
export async function storeSnapshot(pool: Pool, name: string, namespaceId: string, seq: number, source: SnapshotSource): Promise<boolean> {
  return withTemporaryFile(async (path) => {
    await writeSnapshot(path, source);
    const file = await open(path);
    const client = await pool.connect().catch(async (error: unknown) => {
      await file.close();
      throw error;
    });
    try {
      await client.query('BEGIN');
      const locked = await client.query<{ locked: boolean }>(
        `SELECT pg_try_advisory_xact_lock(${snapshotLockClass}, hashtext($1)) AS locked`,
        [name],
      );
      const head = await client.query<{ seq: string }>('SELECT seq FROM knowledge_snapshots WHERE namespace_id = $1', [namespaceId]);
      if (locked.rows[0]?.locked !== true || Number(head.rows[0]?.seq ?? -1) > seq) {
        await client.query('ROLLBACK');
        return false;
      }
      await client.query('DELETE FROM knowledge_snapshot_parts WHERE namespace_id = $1', [namespaceId]);
      const buffer = Buffer.allocUnsafe(partBytes);
      let bytes = 0;
      let parts = 0;
      for (;;) {
        const { bytesRead } = await file.read(buffer, 0, partBytes, bytes);
        if (bytesRead === 0) break;
        await client.query('INSERT INTO knowledge_snapshot_parts (namespace_id, seq, part, bytes) VALUES ($1, $2, $3, $4)', [
          namespaceId,
          seq,
          parts++,
          buffer.subarray(0, bytesRead),
        ]);
        bytes += bytesRead;
      }
      await client.query(
        `INSERT INTO knowledge_snapshots (namespace_id, seq, bytes, parts) VALUES ($1, $2, $3, $4)
         ON CONFLICT (namespace_id) DO UPDATE SET seq = excluded.seq, bytes = excluded.bytes, parts = excluded.parts, written_at = now()`,
        [namespaceId, seq, bytes, parts],
      );
      await client.query('COMMIT');
      client.release();
      return true;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw error;
    } finally {
      await file.close();
    }
  });
}

/**
 * The namespace's snapshot, read within the caller's transaction (so the log it reads next is the one after it), or
 * undefined when there is none; throws when it is damaged or incomplete.
 */
export async function readStoredSnapshot(client: PoolClient, namespaceId: string): Promise<StoredSnapshot | undefined> {
  const head = await client.query<{ seq: string; bytes: string; parts: number }>(
    'SELECT seq, bytes, parts FROM knowledge_snapshots WHERE namespace_id = $1',
    [namespaceId],
  );
  const row = head.rows[0];
  if (row === undefined) return undefined;
  return withTemporaryFile(async (path) => {
    const file = await open(path, 'w');
    try {
      let bytes = 0;
      // One part at a time: the rows of the whole snapshot at once would be held in memory twice (as hex, then bytes).
      for (let part = 0; part < row.parts; part++) {
        const found = await client.query<{ bytes: Buffer }>(
          'SELECT bytes FROM knowledge_snapshot_parts WHERE namespace_id = $1 AND seq = $2 AND part = $3',
          [namespaceId, row.seq, part],
        );
        const partBytes = found.rows[0]?.bytes;
        if (partBytes === undefined) throw new Error(`part ${part} of ${row.parts} is missing`);
        await file.write(partBytes, 0, partBytes.byteLength, bytes);
        bytes += partBytes.byteLength;
      }
      if (bytes !== Number(row.bytes)) throw new Error(`${bytes} bytes where the snapshot's row says ${row.bytes}`);
    } finally {
      await file.close();
    }
    const contents = await readSnapshot(path);
    if (contents === undefined) throw new Error('the snapshot vanished');
    return { seq: Number(row.seq), contents };
  });
}

async function withTemporaryFile<T>(use: (path: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), 'knowledge-agent-snapshot-'));
  try {
    return await use(join(folder, 'index.snapshot'));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
