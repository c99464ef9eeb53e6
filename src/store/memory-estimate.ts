// How much memory a loaded namespace holds, estimated from its counts: the memory budget adds these up to decide
// which namespaces stay loaded. Counting real bytes would mean walking the heap; the constants below were measured
// instead (bench/namespaces.ts prints the estimate beside the heap and array-buffer growth of loading a namespace).

export interface IndexSize {
  readonly chunks: number;
  /** Characters of chunk text, and those of it held in memory (the rest is read from a snapshot's file). */
  readonly textLength: number;
  readonly textLengthInMemory: number;
  readonly vectors: number;
  /** Vectors whose rows are in memory (as float16); the others' rows are read from a file. */
  readonly vectorsInMemory: number;
  readonly dimensions: number;
}

/**
 * A chunk's objects, ids, map entries and lexical postings, its text aside (measured: see the header; 180 bytes less
 * since the lexical index keeps each chunk's term ids as varints, 1.3 bytes a term instead of 4).
 */
const bytesPerChunk = 1_270;
/** Chunk text's terms are held in the lexical index... */
const bytesPerCharacter = 1;
/** ...and the text itself, as a string or its bytes, unless it is read from a file. */
const bytesPerCharacterInMemory = 1;
/** A vector's int8 copy, with the headroom the arrays grow with... */
const bytesPerDimension = 1.5;
/** ...and its float16 row, when that is in memory (half the 4.5 bytes measured when rows were held as float32). */
const bytesPerDimensionInMemory = 2.25;

export function estimateIndexBytes(size: IndexSize): number {
  return (
    size.chunks * bytesPerChunk +
    size.textLength * bytesPerCharacter +
    size.textLengthInMemory * bytesPerCharacterInMemory +
    (size.vectors * bytesPerDimension + size.vectorsInMemory * bytesPerDimensionInMemory) * size.dimensions
  );
}
