// A namespace's index kept in PostgreSQL as the folder layout's binary snapshot (../index-snapshot.ts), in parts, as of
// one log entry: a replica that opens the namespace restores it without tokenizing anything and replays only the log
// after it. The bytes pass through a temporary file, so neither side holds a whole snapshot in memory, and are stored
// gzip-compressed (level 1): chunk texts shrink several times, which is what a joining replica waits for.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { Pool, PoolClient } from 'pg';
import { detachedArray } from '../../indexes/lexical-index.js';
import { joinedRows } from '../../indexes/unit-rows.js';
import { readSnapshot, writeSnapshot, type SnapshotContents, type SnapshotSource } from '../index-snapshot.js';
import type { NamespaceIndex } from '../namespace-index.js';
import { snapshotLockClass } from './cluster-schema.js';

/**
 * Bytes of one stored part (gzip-compressed). node-postgres reads a large value slowly (a bytea of 8 MB took three
 * times as long a byte as rows of 1 MB, read 8 at a time).
 */
const partBytes = 1 << 20;
const partsPerQuery = 8;

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
  const arrays = Object.fromEntries(Object.entries(live.lexical.arrays).map(([name, array]) => [name, detachedArray(array)]));
  return {
    ...live,
    lexical: { ...live.lexical, lengthTotals: [...live.lexical.lengthTotals], arrays },
    // The lists are copies already; the rows are read from the live index's.
    vectors:
      live.vectors === null
        ? null
        : {
            ...live.vectors,
            halves: detachedHalves(live.vectors.halves(), live.vectors.keys.length * (live.embedding?.dimensions ?? 0)),
          },
    derivedFrom: null,
  };
}

function detachedHalves(pieces: Iterable<Uint16Array>, length: number): () => Iterable<Uint16Array> {
  const halves = joinedRows(pieces, length, Uint16Array);
  return () => [halves];
}

/**
 * Stores `source` as the namespace's snapshot at log entry `seq`, replacing the one there in the same transaction (a
 * replica reading meanwhile sees one or the other whole). False when another replica is writing one, or a more recent
 * one is there already.
 */
export async function storeSnapshot(pool: Pool, name: string, namespaceId: string, seq: number, source: SnapshotSource): Promise<boolean> {
  return withTemporaryFile(async (path) => {
    await writeSnapshot(path, source);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const locked = await client.query<{ locked: boolean }>(
        `SELECT pg_try_advisory_xact_lock(${snapshotLockClass}, hashtext($1)) AS locked`,
        [name],
      );
      const head = await client.query<{ seq: string }>('SELECT seq FROM knowledge_snapshots WHERE namespace_id = $1', [namespaceId]);
      if (locked.rows[0]?.locked !== true || Number(head.rows[0]?.seq ?? -1) > seq) {
        await client.query('ROLLBACK');
        client.release();
        return false;
      }
      await client.query('DELETE FROM knowledge_snapshot_parts WHERE namespace_id = $1', [namespaceId]);
      let bytes = 0;
      let parts = 0;
      const insert = async (part: Buffer) => {
        await client.query('INSERT INTO knowledge_snapshot_parts (namespace_id, seq, part, bytes) VALUES ($1, $2, $3, $4)', [
          namespaceId,
          seq,
          parts++,
          part,
        ]);
        bytes += part.byteLength;
      };
      await pipeline(createReadStream(path), createGzip({ level: 1 }), async (compressed: AsyncIterable<Buffer>) => {
        let pending = Buffer.alloc(0);
        for await (const piece of compressed) {
          pending = Buffer.concat([pending, piece]);
          while (pending.byteLength >= partBytes) {
            await insert(pending.subarray(0, partBytes));
            pending = pending.subarray(partBytes);
          }
        }
        if (pending.byteLength > 0) await insert(pending);
      });
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
  let bytes = 0;
  // A few parts a query: the whole snapshot at once would be held in memory twice (as hex, then bytes).
  async function* parts(): AsyncGenerator<Buffer> {
    for (let first = 0; first < (row as { parts: number }).parts; first += partsPerQuery) {
      const found = await client.query<{ part: number; bytes: Buffer }>(
        'SELECT part, bytes FROM knowledge_snapshot_parts WHERE namespace_id = $1 AND seq = $2 AND part >= $3 AND part < $4 ORDER BY part',
        [namespaceId, row?.seq, first, first + partsPerQuery],
      );
      for (let offset = 0; offset < Math.min(partsPerQuery, (row as { parts: number }).parts - first); offset++) {
        const part = found.rows[offset];
        if (part?.part !== first + offset) throw new Error(`part ${first + offset} of ${row?.parts} is missing`);
        bytes += part.bytes.byteLength;
        yield part.bytes;
      }
    }
  }
  return withTemporaryFile(async (path) => {
    await pipeline(parts, createGunzip(), createWriteStream(path));
    if (bytes !== Number(row.bytes)) throw new Error(`${bytes} bytes where the snapshot's row says ${row.bytes}`);
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
