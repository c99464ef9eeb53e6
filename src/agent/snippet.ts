// A retrieved chunk as the agent numbers it for the model ([1]..[k]) and cites it.
import { join } from 'node:path';
import { excerptAround } from '../search/excerpt.js';
import type { SearchOutcome } from '../search/search-service.js';

const previewLength = 300;

export interface Snippet {
  /** 1-based, in result order: the number the model cites. */
  readonly number: number;
  readonly chunkId: string;
  readonly title: string;
  /** File name in the namespace, the Variant 2 citation label. */
  readonly file: string;
  readonly headingPath: readonly string[];
  readonly text: string;
  readonly score: number;
  /** Path of the document's `.md` file under the storage root (the Variant 1 Match `source`); not its origin. */
  readonly storagePath: string;
  /** An excerpt of the chunk around the query's terms. */
  readonly preview: string;
}

/** Numbers the hits of a search in result order; `storageRoot` is the storage root as configured. */
export function toSnippets(outcome: SearchOutcome, storageRoot: string): Snippet[] {
  return outcome.hits.map((hit, index) => ({
    number: index + 1,
    chunkId: hit.chunk.id,
    title: hit.document.title,
    file: hit.document.file,
    headingPath: hit.chunk.headingPath,
    text: hit.chunk.text,
    score: hit.score,
    storagePath: join(storageRoot, outcome.namespace, hit.document.file),
    preview: excerptAround(hit.chunk.text, outcome.terms, previewLength),
  }));
}
