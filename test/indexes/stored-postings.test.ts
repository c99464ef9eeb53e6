import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { blockHeader } from '../../src/indexes/posting-lists.js';
import { decodedPostings, encodedPostings } from '../../src/indexes/stored-postings.js';

/** A compact layout (see PostingLists.compactedPieces) of terms' ascending slots, with their packed frequencies. */
function layout(terms: readonly (readonly number[])[]): Uint32Array {
  const words = [0, 0];
  terms.forEach((slots, term) => {
    words.push(0, slots.length);
    for (const slot of slots) words.push(slot, ((term * 2654435761) ^ slot) >>> (slot % 32));
  });
  return Uint32Array.from(words);
}

const termsArbitrary = fc.array(
  fc.uniqueArray(fc.oneof(fc.nat(200), fc.nat(0xffffffff)), { minLength: 1, maxLength: 30 }).map((slots) => slots.sort((a, b) => a - b)),
  { maxLength: 8 },
);

function encoded(words: Uint32Array, pieceWords: number): Uint8Array {
  const pieces: Uint32Array[] = [];
  for (let start = 0; start < words.length; start += pieceWords) pieces.push(words.subarray(start, start + pieceWords));
  return Buffer.concat([...encodedPostings(pieces, words.length)].map((piece) => Buffer.from(piece)));
}

describe('stored postings', () => {
  it('decode to the layout they were encoded from, however its words were cut into pieces', () => {
    fc.assert(
      fc.property(termsArbitrary, fc.integer({ min: 1, max: 7 }), (terms, pieceWords) => {
        const words = layout(terms);
        const bytes = encoded(words, pieceWords);
        assert.deepEqual(decodedPostings(bytes, words.length, new Uint32Array(words.length + 5)).subarray(0, words.length), words);
      }),
    );
  });

  it('take a byte for a small gap or frequency', () => {
    // Two terms: slots 0, 1, 2 with small frequencies, then one posting at slot 1000.
    const words = Uint32Array.from([0, 0, 0, 3, 0, 1, 1, 2, 2, 1, 0, 1, 1000, 5]);
    assert.deepEqual(Array.from(encoded(words, 64)), [3, 0, 1, 0, 2, 0, 1, 1, 0xe8, 0x07, 5]);
  });

  it('refuses a layout that is not compact, a count that is not the one announced, and bytes that do not fit', () => {
    const words = layout([[1, 5, 9], [2]]);
    const chained = words.slice();
    chained[blockHeader] = 7;
    assert.throws(() => encoded(chained, 64), /the block at word 2 is chained/);
    assert.throws(() => [...encodedPostings([words], words.length + 2)], /words, where \d+ were announced/);
    const descending = layout([[5, 1]]);
    assert.throws(() => encoded(descending, 64), /slot 1 at word 6 does not ascend/);
    const bytes = encoded(words, 64);
    assert.throws(() => decodedPostings(bytes, words.length - 2, new Uint32Array(words.length)), /runs past the \d+ words announced/);
    assert.throws(
      () => decodedPostings(bytes, words.length + 2, new Uint32Array(words.length + 2)),
      /make \d+ words where \d+ were announced/,
    );
    assert.throws(
      () => decodedPostings(bytes.subarray(0, bytes.length - 1), words.length, new Uint32Array(words.length)),
      /were announced/,
    );
  });
});
