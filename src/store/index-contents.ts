// A namespace's index as plain data: what index.json, the snapshot and an index.json of an earlier version are read into.
import type { InvertedListsSnapshot } from '../indexes/inverted-lists.js';
import type { RowsInFile } from '../indexes/unit-rows.js';
import type { EmbeddingInfo } from './index-ops.js';
import type { StoredDocument } from './stored-document.js';

/** Unit vectors, laid out contiguously: row i (of `dimensions` values) belongs to keys[i]. */
export interface StoredVectors {
  readonly keys: readonly string[];
  /**
   * In memory (float32, or the float16 bits snapshots store), or left in a snapshot's file (see readSnapshot's
   * `inFile`), to be adopted and closed.
   */
  readonly rows: Float32Array | Uint16Array | RowsInFile;
  /** The vector index's inverted lists over these rows, once it is large enough to have them (snapshots only). */
  readonly lists?: InvertedListsSnapshot;
}

export interface IndexContents {
  readonly embedding: EmbeddingInfo | null;
  readonly documents: readonly StoredDocument[];
  /** Null when no chunk has a vector of the current model. */
  readonly vectors: StoredVectors | null;
}
