// The changes a namespace's index goes through. A commit is a list of them: appended to the journal, then applied in memory.
import type { StoredDocument } from './stored-document.js';

export interface EmbeddingInfo {
  readonly model: string;
  readonly dimensions: number;
}

export type IndexOp =
  /** A new embedding model (or none): every vector recorded so far is dropped. */
  | { readonly op: 'model'; readonly embedding: EmbeddingInfo | null }
  /** Adds or replaces the document in `document.file`; a changed document's chunks wait for new vectors. */
  | { readonly op: 'put'; readonly document: StoredDocument }
  | { readonly op: 'remove'; readonly file: string }
  /** Unit vectors of the current model for chunks, by id: row i of `rows` belongs to `ids[i]`. */
  | { readonly op: 'vectors'; readonly ids: readonly string[]; readonly rows: Float32Array };
