// A chunk's distinct term ids, ascending, stored as the gaps between them in varints (varint.ts). Terms interned
// early, the common words, have small ids close together, so most gaps fit in a byte: at a million chunks the lists
// took 1.28 bytes a term instead of a u32's 4 (docs/performance.md). Each value is the gap less one (ids are
// distinct), the first one the id itself.
import { grown } from './growable-array.js';
import { continues, VarintReader, varintLength, writeVarint } from './varint.js';

/** Bytes that ascending, distinct `ids` take. */
export function encodedLength(ids: ArrayLike<number>): number {
  let length = 0;
  let previous = -1;
  for (let index = 0; index < ids.length; index++) {
    const id = ids[index] as number;
    length += varintLength(id - previous - 1);
    previous = id;
  }
  return length;
}

/** Writes ascending, distinct `ids` into `target` at `offset`; the offset after them. */
export function encodeIds(ids: ArrayLike<number>, target: Uint8Array, offset: number): number {
  let previous = -1;
  for (let index = 0; index < ids.length; index++) {
    const id = ids[index] as number;
    offset = writeVarint(id - previous - 1, target, offset);
    previous = id;
  }
  return offset;
}

/** Calls `visit` with each id of the list in bytes[start, end), ascending. */
export function forEachId(bytes: Uint8Array, start: number, end: number, visit: (id: number) => void): void {
  const reader = new VarintReader(bytes, start);
  for (let id = -1; reader.offset < end; ) {
    id += reader.next() + 1;
    visit(id);
  }
}

/**
 * Writes the list in bytes[start, end) with every id replaced by `newIdOf[id]` (which must keep their order) into
 * `target` at `offset`, or only measures it without a target; the bytes it takes either way.
 */
export function renumberedIds(bytes: Uint8Array, start: number, end: number, newIdOf: Int32Array, target?: Uint8Array, offset = 0): number {
  let previous = -1;
  let written = 0;
  forEachId(bytes, start, end, (id) => {
    const renumbered = newIdOf[id] as number;
    const gap = renumbered - previous - 1;
    written += target === undefined ? varintLength(gap) : writeVarint(gap, target, offset + written) - offset - written;
    previous = renumbered;
  });
  return written;
}

/** How many ids the lists in `bytes` hold together: one per byte that ends a varint. */
export function idCount(bytes: Uint8Array): number {
  // Four bytes at a time where they are aligned (a snapshot's arrays are): the high bits of a word, counted as a
  // population count, are the bytes that continue a number: 40 ms for 90 MB, 240 ms a byte at a time.
  const aligned = (4 - (bytes.byteOffset % 4)) % 4;
  const head = Math.min(bytes.length, aligned);
  const words = head < aligned ? new Uint32Array(0) : new Uint32Array(bytes.buffer, bytes.byteOffset + head, (bytes.length - head) >>> 2);
  let continuing = 0;
  for (let index = 0; index < words.length; index++) {
    let bits = (words[index] as number) & 0x80808080;
    bits = (bits >>> 7) + (bits >>> 15) + (bits >>> 23) + (bits >>> 31);
    continuing += bits & 0xff;
  }
  for (let offset = 0; offset < head; offset++) if ((bytes[offset] as number) & continues) continuing++;
  for (let offset = head + 4 * words.length; offset < bytes.length; offset++) if ((bytes[offset] as number) & continues) continuing++;
  return bytes.length - continuing;
}

/**
 * Lists of ids in any order, list s being ids[offsets[s], offsets[s + 1]] (how snapshots of formats 2 to 5 kept them),
 * sorted and encoded: the bytes and each list's byte offsets, in the same layout.
 */
export function encodedLists(ids: Uint32Array, offsets: Uint32Array): { bytes: Uint8Array; offsets: Uint32Array } {
  const byteOffsets = new Uint32Array(offsets.length);
  let bytes = new Uint8Array(Math.max(16, 2 * ids.length));
  let scratch = new Uint32Array(256);
  let used = 0;
  for (let list = 0; list + 1 < offsets.length; list++) {
    const [start, end] = [offsets[list] as number, offsets[list + 1] as number];
    if (end - start > scratch.length) scratch = new Uint32Array(2 * (end - start));
    // A typed array sorts numbers without a comparator: a million chunks' lists took 8.5 s of a load of 19 s as
    // arrays sorted with one, and the load 10.5 s this way.
    const sorted = scratch.subarray(0, end - start);
    sorted.set(ids.subarray(start, end));
    sorted.sort();
    const length = encodedLength(sorted);
    if (used + length > bytes.length) bytes = grown(bytes, Math.max(used + length, Math.ceil(bytes.length * 1.5)));
    used = encodeIds(sorted, bytes, used);
    byteOffsets[list + 1] = used;
  }
  return { bytes: bytes.subarray(0, used), offsets: byteOffsets };
}
