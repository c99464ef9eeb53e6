// The journal: an append-only file of commits made since the last snapshot, so a write costs O(change), not O(namespace).
// Each record is [u32 payload length][u32 CRC-32 of the payload][payload]; a record cut short by a crash fails its
// length or checksum and is dropped, with everything after it (nothing after it was acknowledged).
// Payload: [u32 JSON length][JSON {ops}][float32 rows of the `vectors` ops, in order]. Little-endian throughout.
import { open, truncate, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import type { IndexOp } from '../index-ops.js';
import { toPersistedDocument, toStoredDocument } from '../persisted-document.js';
import { withPath } from '../storage-full.js';

const recordHeaderBytes = 8;

const embeddingSchema = z.object({ model: z.string(), dimensions: z.number().int().positive() }).nullable();

const journalOpSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('model'), embedding: embeddingSchema }),
  // The document is checked by toStoredDocument, as in the snapshot.
  z.object({ op: z.literal('put'), document: z.unknown() }),
  z.object({ op: z.literal('remove'), file: z.string() }),
  z.object({ op: z.literal('vectors'), dimensions: z.number().int().positive(), ids: z.array(z.string()) }),
]);

const recordSchema = z.object({ ops: z.array(journalOpSchema) });

/**
 * One record as the parts it is written in: its header, the JSON, and views of the vector rows. Nothing is copied
 * into one buffer: a 6 MB document's record (10,000 chunks, their vectors) took two copies of tens of megabytes on the
 * event loop; the checksum is computed part by part instead.
 */
export function encodeRecord(ops: readonly IndexOp[]): Buffer[] {
  const rows: Float32Array[] = [];
  const json = JSON.stringify({
    ops: ops.map((op) => {
      switch (op.op) {
        case 'put':
          return { op: 'put', document: toPersistedDocument(op.document) };
        case 'vectors':
          rows.push(op.rows);
          return { op: 'vectors', dimensions: op.ids.length === 0 ? 1 : op.rows.length / op.ids.length, ids: op.ids };
        default:
          return op;
      }
    }),
  });
  const jsonBytes = Buffer.from(json, 'utf8');
  const payload = [
    u32(jsonBytes.length),
    jsonBytes,
    ...rows.map((vectors) => Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength)),
  ];
  const payloadBytes = payload.reduce((sum, part) => sum + part.length, 0);
  const checksum = payload.reduce((crc, part) => crc32(part, crc), 0);
  return [u32(payloadBytes), u32(checksum), ...payload];
}

/** Chunks (texts or vectors) an op carries: what sizes its record's JSON. */
function chunksOf(op: IndexOp): number {
  if (op.op === 'put') return op.document.chunks.length;
  return op.op === 'vectors' ? op.ids.length : 1;
}

/**
 * `ops` in consecutive slices of at most `chunksPerRecord` chunks (an op with more is a slice of its own), for ops that
 * need not be replayed together: a record's JSON is one string, and V8 holds none past about 512 MB.
 */
export function recordSlices(ops: readonly IndexOp[], chunksPerRecord = 20_000): IndexOp[][] {
  const slices: IndexOp[][] = [];
  let slice: IndexOp[] = [];
  let chunks = 0;
  for (const op of ops) {
    const size = chunksOf(op);
    if (slice.length > 0 && chunks + size > chunksPerRecord) {
      slices.push(slice);
      slice = [];
      chunks = 0;
    }
    slice.push(op);
    chunks += size;
  }
  if (slice.length > 0) slices.push(slice);
  return slices;
}

/** The ops of one record's payload; throws when it does not decode. */
function decodePayload(payload: Buffer): IndexOp[] {
  const jsonLength = payload.readUInt32LE(0);
  const { ops } = recordSchema.parse(JSON.parse(payload.toString('utf8', 4, 4 + jsonLength)));
  let offset = 4 + jsonLength;
  return ops.map((op): IndexOp => {
    switch (op.op) {
      case 'put':
        return { op: 'put', document: toStoredDocument(op.document) };
      case 'vectors': {
        const byteLength = op.ids.length * op.dimensions * 4;
        if (offset + byteLength > payload.length) throw new Error('vector rows run past the record');
        // Copied into an aligned buffer: the payload may start at any byte offset.
        const rows = new Float32Array(op.ids.length * op.dimensions);
        new Uint8Array(rows.buffer).set(payload.subarray(offset, offset + byteLength));
        offset += byteLength;
        return { op: 'vectors', ids: op.ids, rows };
      }
      default:
        return op;
    }
  });
}

export interface JournalContents {
  /** The commits, oldest first. */
  readonly records: IndexOp[][];
  /** Bytes of intact records; anything after is a cut-short or damaged tail. */
  readonly intactBytes: number;
  readonly totalBytes: number;
}

export async function readJournal(path: string): Promise<JournalContents> {
  let bytes: Buffer;
  try {
    const file = await open(path, 'r');
    try {
      bytes = await file.readFile();
    } finally {
      await file.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], intactBytes: 0, totalBytes: 0 };
    throw error;
  }
  const records: IndexOp[][] = [];
  let offset = 0;
  while (offset + recordHeaderBytes <= bytes.length) {
    const length = bytes.readUInt32LE(offset);
    const end = offset + recordHeaderBytes + length;
    if (end > bytes.length) break;
    const payload = bytes.subarray(offset + recordHeaderBytes, end);
    if (crc32(payload) !== bytes.readUInt32LE(offset + 4)) break;
    try {
      records.push(decodePayload(payload));
    } catch {
      break;
    }
    offset = end;
  }
  return { records, intactBytes: offset, totalBytes: bytes.length };
}

/**
 * Appends one record after the first `validBytes` bytes of the journal and makes it durable before resolving; returns
 * the journal's length after it. A failed append (a full disk fails the write or its fsync part-way) is cut back at
 * once: a torn record would hide every record appended after it at the next start-up, although those were
 * acknowledged. Should the cut itself fail, the next append makes it first (bytes past `validBytes`).
 */
export async function appendRecord(path: string, record: readonly Buffer[], validBytes: number): Promise<number> {
  let file: FileHandle;
  try {
    file = await open(path, 'a', 0o644);
  } catch (error) {
    throw withPath(error, path);
  }
  try {
    // Never more than the file holds: a journal removed by hand is started afresh, never padded with zeros.
    const { size } = await file.stat();
    const keptBytes = Math.min(validBytes, size);
    if (size > keptBytes) await file.truncate(keptBytes);
    try {
      for (const part of record) await file.writeFile(part);
      await file.datasync();
    } catch (error) {
      await file
        .truncate(keptBytes)
        .then(() => file.datasync())
        .catch(() => undefined);
      throw error;
    }
    return keptBytes + record.reduce((sum, part) => sum + part.length, 0);
  } catch (error) {
    throw withPath(error, path);
  } finally {
    await file.close();
  }
}

/** Cuts the journal to `length` bytes (a damaged tail, or everything once a snapshot holds it), durably. */
export async function truncateJournal(path: string, length: number): Promise<void> {
  await truncate(path, length).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  const file = await open(path, 'r+').catch(() => undefined);
  if (file === undefined) return;
  try {
    await file.datasync();
  } finally {
    await file.close();
  }
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value >>> 0);
  return buffer;
}
