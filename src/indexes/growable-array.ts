// Typed arrays that grow: in place when their buffer has room beyond them (arrays read from a snapshot are given
// such headroom), else by copying into a larger one.

export type GrowableArray = Uint8Array | Uint16Array | Uint32Array | Float32Array | Float64Array;

/**
 * How far into each buffer the views made here have reached. Past that mark a buffer holds only zeros (a new
 * ArrayBuffer is zeroed), so widening a view into it needs neither a check nor a fill.
 */
const reachedBytes = new WeakMap<ArrayBufferLike, number>();

function reached<T extends GrowableArray>(array: T): T {
  const end = array.byteOffset + array.byteLength;
  if (end > (reachedBytes.get(array.buffer) ?? 0)) reachedBytes.set(array.buffer, end);
  return array;
}

/** `array` with room for `length` items (cut short if smaller); items past the old end are zero. */
export function grown<T extends GrowableArray>(array: T, length: number): T {
  const Type = array.constructor as { new (length: number): T; new (buffer: ArrayBufferLike, byteOffset: number, length: number): T };
  if (length > array.length && array.byteOffset + length * array.BYTES_PER_ELEMENT <= array.buffer.byteLength) {
    const widened = new Type(array.buffer, array.byteOffset, length);
    // The room may hold what an earlier, longer view left there: only that part is zeroed. Writing zeros into room
    // never touched makes it resident, which grew a loaded namespace of 100,000 chunks by 80 MB at its first commit;
    // checking it item by item took 4 s at the first commit into a million chunks.
    const mark = reachedBytes.get(array.buffer);
    if (mark === undefined) {
      // A buffer made elsewhere: what its other views wrote is not known.
      if (!isZeroFrom(widened, array.length)) widened.fill(0, array.length);
    } else {
      const dirtyEnd = Math.min(length, Math.ceil((mark - array.byteOffset) / array.BYTES_PER_ELEMENT));
      if (dirtyEnd > array.length) widened.fill(0, array.length, dirtyEnd);
    }
    return reached(widened);
  }
  // Copied into a buffer with as much room again: the next growths widen in place. Growing a large array by a quarter
  // at a time otherwise copies each item about four times into memory never touched before, and touching new memory is
  // what costs (~9 ms per MB on the 2-core VM: 5.7 s of a 100,000-chunk build went on growing the vector matrix).
  const next = new Type(new ArrayBuffer(2 * length * array.BYTES_PER_ELEMENT), 0, length);
  next.set(array.subarray(0, Math.min(array.length, length)));
  return reached(next);
}

function isZeroFrom(array: GrowableArray, start: number): boolean {
  for (let index = start; index < array.length; index++) if (array[index] !== 0) return false;
  return true;
}

/**
 * A zeroed array of `length` items in a buffer half as large again (the largest step by which the indexes grow their
 * arrays), for arrays read from disk that are likely to grow: the first growth then costs no copy (and no second copy
 * in memory), and room never touched costs no resident memory (large buffers are mapped lazily).
 */
export function withHeadroom<T extends GrowableArray>(
  Type: { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number },
  length: number,
): T {
  const roomy = Math.ceil(length * 1.5) + 16;
  return reached(new Type(new ArrayBuffer(roomy * Type.BYTES_PER_ELEMENT), 0, length));
}

/**
 * The capacity (rows of a vector index, chunks of the lexical index) to grow to: doubling while small, then a quarter
 * more, so a large index never doubles a 150 MB matrix and its first growths stay within the headroom of arrays read
 * from a snapshot.
 */
export function grownCapacity(capacity: number, needed: number): number {
  return Math.max(needed, capacity < 16_384 ? capacity * 2 : Math.ceil(capacity * 1.25));
}
