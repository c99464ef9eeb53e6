// Variant 1's search result, the seed's Match: what /tools/search answers and the agent stream's retrieval result holds.
import type { Snippet } from '../search/snippet.js';

export interface Match {
  readonly chunk_id: string;
  readonly score: number;
  /** The stored Markdown file. */
  readonly source: string;
  readonly title: string;
  readonly preview: string;
}

/** Exactly the seed's fields. */
export function toMatch(snippet: Snippet): Match {
  return { chunk_id: snippet.chunkId, score: snippet.score, source: snippet.storagePath, title: snippet.title, preview: snippet.preview };
}
