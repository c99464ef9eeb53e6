// A chunk found by a search, with its document and score; routes shape it into each variant's result.
import type { StoredChunk, StoredDocument } from '../store/stored-document.js';

export interface RetrievedChunk {
  readonly chunk: StoredChunk;
  readonly document: StoredDocument;
  readonly score: number;
}
