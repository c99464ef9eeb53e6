// How much memory a loaded namespace holds, estimated from its counts: the memory budget adds these up to decide
// which namespaces stay loaded. Counting real bytes would mean walking the heap; the constants below were measured
// instead (bench/namespaces.ts prints the estimate beside the heap and array-buffer growth of loading a namespace).

export interface IndexSize {
  readonly chunks: number;
  /** Characters of chunk text. */
  readonly textLength: number;
  readonly vectors: number;
  /** Vectors whose float32 rows are in memory; the others' rows are read from a file. */
  readonly vectorsInMemory: number;
  readonly dimensions: number;
}

/** A chunk's objects, ids, map entries and lexical postings, its text aside (measured: see the header). */
const bytesPerChunk = 1_450;
/** Chunk text is held once as a string, and its terms again in the lexical index. */
const bytesPerCharacter = 2;
/** A vector's int8 copy, with the headroom the arrays grow with... */
const bytesPerDimension = 1.5;
/** ...and its float32 row, when that is in memory. */
const bytesPerDimensionInMemory = 4.5;

export function estimateIndexBytes(size: IndexSize): number {
  return (
    size.chunks * bytesPerChunk +
    size.textLength * bytesPerCharacter +
    (size.vectors * bytesPerDimension + size.vectorsInMemory * bytesPerDimensionInMemory) * size.dimensions
  );
}
