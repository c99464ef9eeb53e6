// The postings' compact layout (see PostingLists.compactedPieces: `blockHeader` unused words, then one block a term,
// [0, count, slot, packed, slot, packed...]) as a snapshot stores it: each term's count, then each posting's slot as
// the gap after the one before (less one: slots ascend) and its packed frequencies, all varints (varint.ts). Most
// gaps and frequencies are small: at a million chunks 2.5 bytes a posting instead of 8 (docs/performance.md).
import { blockHeader } from './posting-lists.js';
import { VarintReader, writeVarint } from './varint.js';

/** The most bytes one word of the layout takes as a varint. */
const largestVarint = 5;

/** The varints of the layout's words, given in pieces, in pieces of a reused buffer: consume each before the next. */
export function* encodedPostings(words: Iterable<Iterable<number>>, wordCount: number): Generator<Uint8Array> {
  const piece = new Uint8Array(1 << 20);
  let filled = 0;
  let position = 0;
  /** Where the next block starts, and in the one being read, where its postings start and end. */
  let blockStart = blockHeader;
  let postingsStart = 0;
  let blockEnd = blockHeader;
  let previousSlot = -1;
  for (const part of words) {
    for (const word of part) {
      if (filled > piece.length - largestVarint) {
        yield piece.subarray(0, filled);
        filled = 0;
      }
      if (position < blockHeader) {
        // The layout's unused words.
      } else if (position === blockStart) {
        if (word !== 0) throw new Error(`postings: the block at word ${position} is chained, not compact`);
      } else if (position === blockStart + 1) {
        postingsStart = position + 1;
        blockEnd = postingsStart + 2 * word;
        blockStart = blockEnd;
        previousSlot = -1;
        filled = writeVarint(word, piece, filled);
      } else if ((position - postingsStart) % 2 === 0) {
        if (word <= previousSlot) throw new Error(`postings: slot ${word} at word ${position} does not ascend`);
        filled = writeVarint(word - previousSlot - 1, piece, filled);
        previousSlot = word;
      } else filled = writeVarint(word, piece, filled);
      position++;
    }
  }
  if (position !== wordCount || position !== blockEnd)
    throw new Error(`postings: ${position} words, where ${wordCount} were announced and the blocks end at ${blockEnd}`);
  if (filled > 0) yield piece.subarray(0, filled);
}

/**
 * The layout of `wordCount` words back from the varints of `encodedPostings`, written into `into` (zeroed, at least
 * that long); throws when the bytes do not make exactly that many words.
 */
export function decodedPostings(bytes: Uint8Array, wordCount: number, into: Uint32Array): Uint32Array {
  const reader = new VarintReader(bytes, 0);
  let position = blockHeader;
  while (reader.offset < bytes.length) {
    const count = reader.next();
    if (position + blockHeader + 2 * count > wordCount)
      throw new Error(`postings: a block of ${count} postings at word ${position} runs past the ${wordCount} words announced`);
    into[position++] = 0;
    into[position++] = count;
    for (let slot = -1, posting = 0; posting < count; posting++) {
      slot += reader.next() + 1;
      into[position++] = slot;
      into[position++] = reader.next();
    }
  }
  if (position !== wordCount || reader.offset !== bytes.length)
    throw new Error(`postings: the stored bytes make ${position} words where ${wordCount} were announced`);
  return into;
}
