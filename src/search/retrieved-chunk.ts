// A chunk found by a search, with its document and score; routes shape it into each variant's result.
import type { StoredChunk, StoredDocument } from '../store/stored-document.js';

export interface RetrievedChunk {
  readonly chunk: StoredChunk;
  readonly document: StoredDocument;
  readonly score: number;
  /** When the document's content was last confirmed current (fetched, or found unchanged by a refresh); ISO 8601. */
  readonly asOf: string;
}
