// A search hit numbered in result order: the number the agent gives the model ([1]..[k]) and cites, and what each
// search route shapes into its wire format (Variant 1 Match, Variant 2 result, MCP search result).
import { previewMarkdown } from '../markdown/preview-text.js';
import type { NeighbouringText } from '../providers/chat-model.js';
import { excerptAround } from './excerpt.js';
import type { SearchOutcome } from './search-service.js';
import type { StoredChunk } from '../store/stored-document.js';

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
  /** Where the document came from (its URL or uploaded path), as ingested. */
  readonly origin: string;
  /** When its content was last confirmed current (see RetrievedChunk). */
  readonly asOf: string;
  /** An excerpt of the chunk around the query's terms. */
  readonly preview: string;
  /** The document's text just before and after the chunk (its neighbouring chunks, without what they repeat of it). */
  readonly before?: NeighbouringText;
  readonly after?: NeighbouringText;
}

/** Longest repeated text the chunker carries from one chunk into the next, with room to spare (see chunk-markdown.ts). */
const maxOverlapChars = 600;

/** A fence line alone: a code block the chunker cut ends with one and the next chunk starts with one. */
const fenceLine = /^\s*(?:`{3,}|~{3,})\s*$/;

/**
 * Characters at the start of `next` that repeat the end of `previous` (the chunker's overlap between consecutive
 * chunks of a section), or 0. The repeat must end where a line or word ends, and be more than a fence line, so a word
 * that happens to match, or the fence that closes a cut code block and the one that opens its rest, is not taken for
 * one.
 */
export function overlapLength(previous: string, next: string): number {
  for (let start = Math.max(0, previous.length - maxOverlapChars); start < previous.length - 2; start++) {
    const repeated = previous.length - start;
    const repeat = previous.slice(start);
    if (next.startsWith(repeat) && (repeated === next.length || /\s/.test(next.charAt(repeated))) && !fenceLine.test(repeat))
      return repeated;
  }
  return 0;
}

/** The chunks either side of `chunkId` in its document, without the text they share with it. */
export function neighbouringText(chunks: readonly StoredChunk[], chunkId: string): { before?: NeighbouringText; after?: NeighbouringText } {
  const index = chunks.findIndex((chunk) => chunk.id === chunkId);
  const chunk = chunks[index];
  if (chunk === undefined) return {};
  // Each text is read once: it may be read from a file on each use (see EncodedTextChunk).
  const text = chunk.text;
  const previous = chunks[index - 1];
  const next = chunks[index + 1];
  const before = previous && neighbour(previous, text, 'before');
  const after = next && neighbour(next, text, 'after');
  return { ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) };
}

/**
 * The text of `chunk` on its side of where its repeat of the snippet's text (`snippetText`) starts, or ends, if any. A
 * repeat starts at the start of a block or inside it, so whitespace without a blank line at the cut separates the two
 * sides of one block.
 */
function neighbour(chunk: StoredChunk, snippetText: string, side: 'before' | 'after'): NeighbouringText | undefined {
  const chunkText = chunk.text;
  const cut = side === 'before' ? chunkText.length - overlapLength(chunkText, snippetText) : overlapLength(snippetText, chunkText);
  const repeats = side === 'before' ? cut < chunkText.length : cut > 0;
  const raw = side === 'before' ? chunkText.slice(0, cut) : chunkText.slice(cut);
  // After a line break, the next line keeps its indentation: it may be what puts a code block inside a list item.
  const text = side === 'before' ? raw.trimEnd() : raw.replace(/^\s*\n|^[^\S\n]+/, '');
  if (text.trim() === '') return undefined;
  const separator = side === 'before' ? raw.slice(text.length) : raw.slice(0, raw.length - text.length);
  const splitsBlock = repeats && separator !== '' && !/\n[^\S\n]*\n/.test(separator);
  return { text, headingPath: chunk.headingPath, ...(splitsBlock ? { splitBlock: separator } : {}) };
}

/** Numbers the hits of a search in result order. */
export function toSnippets(outcome: SearchOutcome): Snippet[] {
  return outcome.hits.map((hit, index) => {
    const text = hit.chunk.text;
    return {
      number: index + 1,
      chunkId: hit.chunk.id,
      title: hit.document.title,
      file: hit.document.file,
      headingPath: hit.chunk.headingPath,
      text,
      score: hit.score,
      origin: hit.document.origin,
      asOf: hit.asOf,
      preview: excerptAround(previewMarkdown(text), outcome.terms, previewLength),
      ...neighbouringText(hit.document.chunks, hit.chunk.id),
    };
  });
}
