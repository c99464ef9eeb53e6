// Every term's postings (slot, packed frequencies) pooled in one growable Uint32Array, with a compact layout for saving.

import { grown } from './growable-array.js';

/** Words before a block's postings: the offset of the next block, then the capacity in postings. */
export const blockHeader = 2;
const largestBlock = 1024;

/**
 * The pool holds chains of blocks [next block, capacity, pairs…] whose sizes grow with the list; offset 0 means
 * no block. One pool instead of an array per term keeps the many rare terms cheap.
 */
export class PostingLists {
  private constructor(
    public data: Uint32Array,
    public end: number,
    public firstBlock: Uint32Array,
    public lastBlock: Uint32Array,
    public lastBlockFill: Uint32Array,
  ) {}

  static empty(): PostingLists {
    return new PostingLists(new Uint32Array(1 << 16), blockHeader, new Uint32Array(1024), new Uint32Array(1024), new Uint32Array(1024));
  }

  /**
   * Takes over `data` in the compact layout (see `compactedPieces`) as the lists of terms 0 to `termCount` - 1.
   * Throws if the blocks do not tile `data` exactly.
   */
  static fromCompacted(data: Uint32Array, termCount: number): PostingLists {
    const firstBlock = new Uint32Array(termCount);
    const fill = new Uint32Array(termCount);
    let block = blockHeader;
    for (let term = 0; term < termCount; term++) {
      const capacity = block + blockHeader <= data.length ? (data[block + 1] as number) : 0;
      if (capacity === 0 || data[block] !== 0)
        throw new Error(`postings: the block of term ${term} at word ${block} of ${data.length} is missing, empty or chained`);
      firstBlock[term] = block;
      fill[term] = capacity;
      block += blockHeader + 2 * capacity;
    }
    if (block !== data.length)
      throw new Error(`postings: the blocks of ${termCount} terms end at word ${block}, the array at ${data.length}`);
    return new PostingLists(data, data.length, firstBlock, firstBlock.slice(), fill);
  }

  growTerms(capacity: number): void {
    this.firstBlock = grown(this.firstBlock, capacity);
    this.lastBlock = grown(this.lastBlock, capacity);
    this.lastBlockFill = grown(this.lastBlockFill, capacity);
  }

  /** Appends to `term`'s list; a new block, when needed, holds `newBlockSize` postings. */
  append(term: number, slot: number, packed: number, newBlockSize: number): void {
    let block = this.lastBlock[term] as number;
    let fill = this.lastBlockFill[term] as number;
    if (block === 0 || fill === this.data[block + 1]) {
      const next = this.allocate(Math.min(largestBlock, Math.max(1, newBlockSize)));
      if (block === 0) this.firstBlock[term] = next;
      else this.data[block] = next;
      this.lastBlock[term] = block = next;
      fill = 0;
    }
    const offset = block + blockHeader + 2 * fill;
    this.data[offset] = slot;
    this.data[offset + 1] = packed;
    this.lastBlockFill[term] = fill + 1;
  }

  /** How many words the compact layout of the live postings takes (see `compactedPieces`). */
  compactedLength(termCount: number, liveCounts: Uint32Array): number {
    let size = blockHeader;
    for (let term = 0; term < termCount; term++) {
      const count = liveCounts[term] as number;
      if (count > 0) size += blockHeader + 2 * count;
    }
    return size;
  }

  /**
   * The live postings in the compact layout, as consecutive pieces of one reused buffer (each is overwritten by the
   * next, so consume it first): `blockHeader` unused words, then one full block per term that keeps any postings, in
   * term order. Slots are renumbered by `newSlotOf` (-1: dropped), and `liveCounts[term]` says how many of the term's
   * postings that leaves. In pieces, so that writing a snapshot never holds a second copy of the postings.
   */
  *compactedPieces(termCount: number, liveCounts: Uint32Array, newSlotOf: Int32Array): Generator<Uint32Array> {
    // Even, so a posting's two words never straddle two pieces.
    const piece = new Uint32Array(1 << 16);
    piece.fill(0, 0, blockHeader);
    let filled = blockHeader;
    for (let term = 0; term < termCount; term++) {
      const count = liveCounts[term] as number;
      if (count === 0) continue;
      if (filled + blockHeader > piece.length) {
        yield piece.subarray(0, filled);
        filled = 0;
      }
      piece[filled++] = 0;
      piece[filled++] = count;
      for (let block = this.firstBlock[term] as number; block !== 0; block = this.data[block] as number) {
        const end = block + blockHeader + 2 * this.fillOf(term, block);
        for (let offset = block + blockHeader; offset < end; offset += 2) {
          const slot = newSlotOf[this.data[offset] as number] as number;
          if (slot < 0) continue;
          if (filled + 2 > piece.length) {
            yield piece.subarray(0, filled);
            filled = 0;
          }
          piece[filled++] = slot;
          piece[filled++] = this.data[offset + 1] as number;
        }
      }
    }
    if (filled > 0) yield piece.subarray(0, filled);
  }

  /** Postings used in `block`: all of its capacity unless it is the term's last block. */
  fillOf(term: number, block: number): number {
    return block === this.lastBlock[term] ? (this.lastBlockFill[term] as number) : (this.data[block + 1] as number);
  }

  private allocate(capacity: number): number {
    const needed = this.end + blockHeader + 2 * capacity;
    if (needed > this.data.length) this.data = grown(this.data, Math.max(needed, Math.ceil(this.data.length * 1.5)));
    const block = this.end;
    this.data[block] = 0;
    this.data[block + 1] = capacity;
    this.end = needed;
    return block;
  }
}

/** Past the last posting: larger than any slot. */
const exhausted = 0xffffffff;

/**
 * Walks one term's postings in slot order. Valid while the lists do not change (a search is synchronous).
 * `slot` is the current posting's slot, `exhausted` past the end; `packed` its frequencies.
 */
export class PostingCursor {
  slot: number;
  private readonly data: Uint32Array;
  private block: number;
  private offset: number;
  private end: number;

  constructor(
    private readonly lists: PostingLists,
    private readonly term: number,
  ) {
    this.data = lists.data;
    this.block = lists.firstBlock[term] as number;
    this.offset = this.block + blockHeader;
    this.end = this.block === 0 ? 0 : this.offset + 2 * lists.fillOf(term, this.block);
    this.slot = this.offset < this.end ? (this.data[this.offset] as number) : exhausted;
  }

  get packed(): number {
    return this.data[this.offset + 1] as number;
  }

  next(): void {
    this.offset += 2;
    if (this.offset >= this.end && !this.enterBlock(this.data[this.block] as number)) return;
    this.slot = this.data[this.offset] as number;
  }

  /** Moves to the first posting whose slot is `target` or more; never back. Skips blocks by their last slot, then gallops. */
  seek(target: number): void {
    if (this.slot >= target) return;
    const data = this.data;
    while ((data[this.end - 2] as number) < target) if (!this.enterBlock(data[this.block] as number)) return;
    let low = this.offset;
    let step = 2;
    while (low + step < this.end && (data[low + step] as number) < target) {
      low += step;
      step *= 2;
    }
    // The posting sought lies in low .. high (the last posting of the block is at or past the target).
    let high = Math.min(low + step, this.end - 2);
    while (low < high) {
      const middle = low + (((high - low) >> 2) << 1);
      if ((data[middle] as number) < target) low = middle + 2;
      else high = middle;
    }
    this.offset = low;
    this.slot = data[low] as number;
  }

  /** Moves to the start of `block`; false, and exhausted, when it is 0 (the list ended). */
  private enterBlock(block: number): boolean {
    this.block = block;
    if (block === 0) {
      this.slot = exhausted;
      return false;
    }
    this.offset = block + blockHeader;
    this.end = this.offset + 2 * this.lists.fillOf(this.term, block);
    return true;
  }
}
