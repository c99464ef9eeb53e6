// Variant 2's search result: what /api/tools/searchDocs answers, and the retrieval's result in generate, AG-UI and
// Mastra answers.
import type { Snippet } from '../../search/snippet.js';

export interface Variant2Result {
  /** File name in the namespace: the citation label. */
  readonly file: string;
  readonly title: string;
  readonly score: number;
  readonly excerpt: string;
  /** Where the document came from (its URL or path as ingested). */
  readonly origin: string;
  /** When its content was last fetched or found unchanged by a refresh (ISO 8601). */
  readonly as_of: string;
  /** The headings above the passage, outermost first. */
  readonly headings: readonly string[];
}

export function toVariant2Result(snippet: Snippet): Variant2Result {
  return {
    file: snippet.file,
    title: snippet.title,
    score: snippet.score,
    excerpt: snippet.preview,
    origin: snippet.origin,
    as_of: snippet.asOf,
    headings: snippet.headingPath,
  };
}

/** The retrieval tool's result in generate and AG-UI answers; `warnings` as /api/tools/searchDocs answers them. */
export function variant2RetrievalResult(
  snippets: readonly Snippet[],
  notice: string | undefined,
): { results: Variant2Result[]; warnings?: string[] } {
  return { results: snippets.map(toVariant2Result), ...(notice === undefined ? {} : { warnings: [notice] }) };
}
