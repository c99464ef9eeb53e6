// IndexOps as the text of a log entry: JSON, with vector rows as base64 float32 (little-endian, as on every
// platform Node runs on).
import type { IndexOp } from '../index-ops.js';

type EncodedOp = Exclude<IndexOp, { op: 'vectors' }> | { readonly op: 'vectors'; readonly ids: readonly string[]; readonly rows: string };

export function encodeOps(ops: readonly IndexOp[]): string {
  const encoded: EncodedOp[] = ops.map((op) =>
    op.op === 'vectors' ? { op: 'vectors', ids: op.ids, rows: floatsToBytes(op.rows).toString('base64') } : op,
  );
  return JSON.stringify(encoded);
}

export function decodeOps(text: string): IndexOp[] {
  return (JSON.parse(text) as EncodedOp[]).map((op) =>
    op.op === 'vectors' ? { op: 'vectors', ids: op.ids, rows: bytesToFloats(Buffer.from(op.rows, 'base64')) } : op,
  );
}

export function floatsToBytes(values: Float32Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

/** A copy, aligned for Float32Array whatever the offset of `bytes` in its pool. */
export function bytesToFloats(bytes: Buffer): Float32Array {
  const floats = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(floats.buffer).set(bytes);
  return floats;
}
