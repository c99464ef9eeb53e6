// Variant 1's search result, the seed's Match: what /tools/search answers and the agent stream's retrieval result holds.
import { join } from 'node:path';
import type { Snippet } from '../../search/snippet.js';

export interface Match {
  readonly chunk_id: string;
  readonly score: number;
  /** The stored Markdown file. */
  readonly source: string;
  readonly title: string;
  readonly preview: string;
  /** When the document was last confirmed current (fetched, or found unchanged by a refresh); ISO 8601. */
  readonly as_of: string;
}

/** Where Variant 1 says a document is stored: its file under the storage root as configured (`knowledge/docs/x.md`). */
export function storedFilePath(storagePath: string, namespace: string, file: string): string {
  return join(storagePath, namespace, file);
}

/** The seed's fields, and `as_of` (added by registered sources); `source` is the snippet's stored file in `namespace`. */
export function toMatch(snippet: Snippet, storagePath: string, namespace: string): Match {
  return {
    chunk_id: snippet.chunkId,
    score: snippet.score,
    source: storedFilePath(storagePath, namespace, snippet.file),
    title: snippet.title,
    preview: snippet.preview,
    as_of: snippet.asOf,
  };
}
