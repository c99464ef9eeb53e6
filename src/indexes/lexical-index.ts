// In-memory BM25F index over chunks: interned terms, pooled typed-array postings, tombstones, heap top-k, and
// snapshots that restore it without tokenizing anything again.
import { inverseDocumentFrequency } from './bm25.js';
import { grown, grownCapacity, withHeadroom } from './growable-array.js';
import { PostingCursor, PostingLists, blockHeader } from './posting-lists.js';
import type { ScoredHit } from './scored-hit.js';
import { encodedLength, encodedLists, encodeIds, forEachId, idCount, renumberedIds } from './term-id-lists.js';
import { queryTerms, tokenize } from './tokenize.js';
import { TopK } from './top-k.js';

export interface LexicalFields {
  title: string;
  headings: string;
  body: string;
}

export interface FieldSettings {
  /** How much one occurrence here counts against one in the body. */
  readonly weight: number;
  /** Length normalization of this field, 0 to 1. */
  readonly b: number;
}

export interface LexicalIndexOptions {
  readonly k1: number;
  readonly title: FieldSettings;
  readonly headings: FieldSettings;
  readonly body: FieldSettings;
}

/** Measured with bench/lexical-quality.ts (MS MARCO, Vaswani, FastAPI docs link texts). */
export const defaultLexicalIndexOptions: LexicalIndexOptions = Object.freeze({
  k1: 1.2,
  title: Object.freeze({ weight: 3, b: 0.5 }),
  headings: Object.freeze({ weight: 2, b: 0.5 }),
  body: Object.freeze({ weight: 1, b: 0.4 }),
});

/** Slots scored together by a search: their scores stay in the processor's cache (32 KB). */
const scoringWindow = 4096;

/** Frequencies in title (bits 24-31), headings (16-23) and body (0-15), clamped: BM25 saturates long before. */
function packFrequencies(title: number, headings: number, body: number): number {
  return ((Math.min(title, 255) << 24) | (Math.min(headings, 255) << 16) | Math.min(body, 0xffff)) >>> 0;
}

/**
 * The index as plain data, for saving: terms and chunk keys by number, and typed arrays in the layout the index
 * searches (see `SnapshotArrays`). Scoring options are not part of it: they apply at search time.
 */
export interface LexicalSnapshot {
  readonly terms: readonly string[];
  readonly keys: readonly string[];
  /** Token counts of the title, headings and body fields summed over all chunks. */
  readonly lengthTotals: readonly number[];
  readonly arrays: Readonly<Record<string, SnapshotArray>>;
}

export type SnapshotArray = Uint8Array | Uint32Array | Float32Array;

/** A typed array to save, given as consecutive pieces so that it need not be held whole (see `toSnapshotInPieces`). */
export interface ArrayInPieces {
  readonly type: ArrayType;
  readonly length: number;
  /** Views of a reused buffer: each must be consumed before the next is taken. */
  pieces(): Iterable<SnapshotArray>;
}

export type ArrayType = 'u8' | 'u32' | 'f32';

interface SnapshotArrayType {
  new (length: number): SnapshotArray;
  new (buffer: ArrayBuffer, byteOffset: number, length: number): SnapshotArray;
  readonly BYTES_PER_ELEMENT: number;
}

/** The typed array each type of snapshot array is read into and written from. */
export const arrayOfType: Readonly<Record<ArrayType, SnapshotArrayType>> = {
  u8: Uint8Array,
  u32: Uint32Array,
  f32: Float32Array,
};

/** The pieces copied into one new array, as its single piece: what stays valid while the index changes. */
export function detachedArray(source: ArrayInPieces): ArrayInPieces {
  const array = materialized(source, arrayOfType[source.type]);
  return { type: source.type, length: source.length, pieces: () => [array] };
}

/** A snapshot whose arrays come in pieces, valid until the index next changes: what writing one needs. */
export interface LexicalSnapshotInPieces extends Omit<LexicalSnapshot, 'arrays'> {
  readonly arrays: Readonly<Record<string, ArrayInPieces>>;
}

/** The arrays of a snapshot, exactly sized; a type rather than an interface so that it fits the Record above. */
type SnapshotArrays = {
  /** Every term's postings in the compact layout of `PostingLists.compacted`, term ids indexing `terms`. */
  readonly postings: Uint32Array;
  /**
   * The distinct term ids of slot s, encoded (see term-id-lists.ts), are slotTerms[slotTermOffsets[s] ..
   * slotTermOffsets[s + 1]]; slots index `keys`. Snapshots of formats 2 to 5 held them as a Uint32Array, unsorted.
   */
  readonly slotTerms: Uint8Array;
  readonly slotTermOffsets: Uint32Array;
  /** Token counts per slot: title at 3s, headings at 3s + 1, body at 3s + 2. */
  readonly fieldLengths: Float32Array;
};

/** Token counts of the title, headings and body fields, one array each, indexed by slot. */
type FieldLengths = [Float32Array, Float32Array, Float32Array];

/** A snapshot with its arrays named and typed: what a compaction produces and the index takes over. */
interface IndexState {
  readonly terms: string[];
  readonly keys: string[];
  readonly lengthTotals: number[];
  readonly arrays: SnapshotArrays;
}

export class LexicalIndex {
  private readonly options: LexicalIndexOptions;
  // Terms, by interned id; document frequencies count live chunks only.
  private termIdOf = new Map<string, number>();
  private termText: string[] = [];
  private documentFrequency: Uint32Array = new Uint32Array(1024);
  private postings = PostingLists.empty();
  // Chunks, by slot. Slots are handed out in order, so every posting list is sorted by slot.
  private slotOfKey = new Map<string, number>();
  private keyOfSlot: (string | undefined)[] = [];
  private slotCount = 0;
  private removedCount = 0;
  private removed = new Uint8Array(256);
  /**
   * Token counts per slot of the title, headings and body, an array each (a snapshot interleaves them): a search
   * reads the body's of thousands of chunks, and apart they take a third of the cache lines (a quarter less time
   * a search at a million chunks).
   */
  private fieldLengths: FieldLengths = [new Float32Array(256), new Float32Array(256), new Float32Array(256)];
  private lengthTotals = [0, 0, 0];
  // The distinct term ids of slot s, encoded (term-id-lists.ts), are slotTerms[slotTermOffsets[s] ..
  // slotTermOffsets[s + 1]], kept so that a removal can lower document frequencies exactly.
  private slotTerms: Uint8Array = new Uint8Array(1 << 16);
  private slotTermOffsets: Uint32Array = new Uint32Array(257);
  // Scratch space reused by add (3 counters per term id) and search (the scores of a window of slots, and which
  // slots of it some term reached, a bit each).
  private frequencyScratch = new Uint32Array(3 * 1024);
  private readonly windowScores = new Float64Array(scoringWindow);
  private readonly windowListed = new Uint32Array(scoringWindow >>> 5);

  constructor(options: Partial<LexicalIndexOptions> = {}) {
    this.options = { ...defaultLexicalIndexOptions, ...options };
  }

  get size(): number {
    return this.slotOfKey.size;
  }

  /** Adds a chunk; a key already present is replaced. */
  add(key: string, fields: LexicalFields): void {
    this.remove(key);
    const slot = this.slotCount;
    this.ensureSlotCapacity(slot + 1);
    const distinct: number[] = [];
    [fields.title, fields.headings, fields.body].forEach((text, field) => {
      const terms = tokenize(text);
      for (const term of terms) {
        const id = this.intern(term);
        const counters = this.frequencyScratch;
        if (counters[3 * id] === 0 && counters[3 * id + 1] === 0 && counters[3 * id + 2] === 0) distinct.push(id);
        counters[3 * id + field] = (counters[3 * id + field] as number) + 1;
      }
      (this.fieldLengths[field] as Float32Array)[slot] = terms.length;
      this.lengthTotals[field] = (this.lengthTotals[field] as number) + terms.length;
    });
    distinct.sort((left, right) => left - right);
    const start = this.slotTermOffsets[slot] as number;
    const end = start + encodedLength(distinct);
    if (end > this.slotTerms.length) this.slotTerms = grown(this.slotTerms, Math.max(end, Math.ceil(this.slotTerms.length * 1.5)));
    const counters = this.frequencyScratch;
    for (const id of distinct) {
      const frequency = this.documentFrequency[id] as number;
      const packed = packFrequencies(counters[3 * id] as number, counters[3 * id + 1] as number, counters[3 * id + 2] as number);
      counters[3 * id] = counters[3 * id + 1] = counters[3 * id + 2] = 0;
      // Each new block about as large as the list so far, so a list of n postings spans log n blocks.
      this.postings.append(id, slot, packed, frequency + 1);
      this.documentFrequency[id] = frequency + 1;
    }
    this.slotTermOffsets[slot + 1] = encodeIds(distinct, this.slotTerms, start);
    this.removed[slot] = 0;
    this.keyOfSlot[slot] = key;
    this.slotOfKey.set(key, slot);
    this.slotCount = slot + 1;
  }

  /** Tombstones a chunk: statistics drop it now, its postings are skipped until a compaction. */
  remove(key: string): boolean {
    const slot = this.slotOfKey.get(key);
    if (slot === undefined) return false;
    this.slotOfKey.delete(key);
    this.keyOfSlot[slot] = undefined;
    this.removed[slot] = 1;
    this.removedCount++;
    const frequencies = this.documentFrequency;
    forEachId(this.slotTerms, this.slotTermOffsets[slot] as number, this.slotTermOffsets[slot + 1] as number, (id) => {
      frequencies[id] = (frequencies[id] as number) - 1;
    });
    for (let field = 0; field < 3; field++) {
      this.lengthTotals[field] = (this.lengthTotals[field] as number) - ((this.fieldLengths[field] as Float32Array)[slot] as number);
    }
    // Compacting once a quarter of the slots are dead keeps its cost amortized and the scans short.
    if (this.removedCount >= 32 && this.removedCount * 4 >= this.slotCount) this.compact();
    return true;
  }

  /** How many live chunks hold `term` (an index term, as tokenize gives it); 0 for a term the index has not seen. */
  chunksWithTerm(term: string): number {
    return this.documentFrequency[this.termIdOf.get(term) ?? -1] ?? 0;
  }

  /**
   * Which of `terms` (index terms, as tokenize gives them) the chunk `key` holds in its title, headings or body; all
   * false for a key the index lacks. Read from the chunk's own term list, not by tokenizing its text again.
   */
  termsHeld(key: string, terms: readonly string[]): boolean[] {
    const held = terms.map(() => false);
    const slot = this.slotOfKey.get(key);
    if (slot === undefined) return held;
    const wanted = terms.map((term) => this.termIdOf.get(term) ?? -1);
    forEachId(this.slotTerms, this.slotTermOffsets[slot] as number, this.slotTermOffsets[slot + 1] as number, (id) => {
      for (let position = 0; position < wanted.length; position++) if (wanted[position] === id) held[position] = true;
    });
    return held;
  }

  /**
   * How many terms live chunks hold start with `prefix`, counted up to `atMost` (a scan of the vocabulary: for the
   * rare question that names an identifier the index lacks, see search/relevance.ts).
   */
  termsStartingWith(prefix: string, atMost: number): number {
    let count = 0;
    for (let id = 0; id < this.termText.length && count < atMost; id++)
      if (this.documentFrequency[id] !== 0 && (this.termText[id] as string).startsWith(prefix)) count++;
    return count;
  }

  /** The query's terms that occur in the index, for callers that excerpt or highlight. */
  matchedTerms(query: string): string[] {
    return queryTerms(query).filter((term) => (this.documentFrequency[this.termIdOf.get(term) ?? -1] ?? 0) > 0);
  }

  /**
   * The best `limit` chunks for `query`, best first; ties go to the chunk added earlier.
   *
   * Exact, but it skips most postings of common terms (MaxScore). A term adds less than its idf * (k1 + 1) to any
   * chunk, as the saturation F / (F + k1) stays below 1. Chunks are scored a window of slots at a time: the
   * essential terms add up every posting in the window, then each chunk listed is looked up in the other terms' lists
   * only while those could still lift it into the result. Once the result's last score reaches what the commonest
   * terms can add together, they stop being essential: a chunk only they hold cannot enter.
   */
  search(query: string, limit: number): ScoredHit[] {
    const wanted = Math.floor(limit);
    const documentCount = this.slotOfKey.size;
    if (!(wanted > 0) || documentCount === 0) return [];
    const { k1 } = this.options;
    const terms: { id: number; chunks: number; bound: number }[] = [];
    for (const term of queryTerms(query)) {
      const id = this.termIdOf.get(term);
      const chunks = id === undefined ? 0 : (this.documentFrequency[id] as number);
      if (id !== undefined && chunks > 0) terms.push({ id, chunks, bound: inverseDocumentFrequency(documentCount, chunks) * (k1 + 1) });
    }
    // Rarest first; stable, so equally rare terms keep the query's order: a chunk's score sums in one order always.
    terms.sort((left, right) => left.chunks - right.chunks);
    const cursors = terms.map(({ id }) => new PostingCursor(this.postings, id));
    const bounds = terms.map(({ bound }) => bound);
    // boundFrom[i]: the most that terms i and after can add to a chunk together.
    const boundFrom = new Float64Array(terms.length + 1);
    for (let i = terms.length - 1; i >= 0; i--) boundFrom[i] = (boundFrom[i + 1] as number) + (bounds[i] as number);
    const weighted = this.weightedFrequency(documentCount);
    const { removed, windowScores, windowListed } = this;
    const best = new TopK(wanted);
    let threshold = Number.NEGATIVE_INFINITY;
    let essential = terms.length;
    for (let start = 0; start < this.slotCount && essential > 0; start += scoringWindow) {
      const end = start + scoringWindow;
      for (let i = 0; i < essential; i++) {
        const cursor = cursors[i] as PostingCursor;
        const bound = bounds[i] as number;
        for (; cursor.slot < end; cursor.next()) {
          const slot = cursor.slot;
          if (removed[slot] === 1) continue;
          const frequency = weighted(slot, cursor.packed);
          // A zero contribution (a field weighted 0) must not list the chunk.
          if (frequency === 0) continue;
          const local = slot - start;
          windowScores[local] = (windowScores[local] as number) + (bound * frequency) / (frequency + k1);
          windowListed[local >>> 5] = (windowListed[local >>> 5] as number) | (1 << (local & 31));
        }
      }
      // The window's listed chunks in slot order, as the other terms' cursors move only forward.
      for (let word = 0; word < scoringWindow >>> 5; word++) {
        for (let bits = windowListed[word] as number; bits !== 0; bits &= bits - 1) {
          const local = (word << 5) | (31 - Math.clz32(bits & -bits));
          const slot = start + local;
          let score = windowScores[local] as number;
          windowScores[local] = 0;
          for (let i = essential; i < terms.length && score + (boundFrom[i] as number) >= threshold; i++) {
            const cursor = cursors[i] as PostingCursor;
            cursor.seek(slot);
            if (cursor.slot !== slot) continue;
            const frequency = weighted(slot, cursor.packed);
            score += ((bounds[i] as number) * frequency) / (frequency + k1);
          }
          if (score < threshold) continue;
          best.offer(slot, score);
          threshold = best.threshold;
        }
        windowListed[word] = 0;
      }
      while (essential > 0 && (boundFrom[essential - 1] as number) < threshold) essential--;
    }
    return best.drain().map(({ id, score }) => ({ key: this.keyOfSlot[id] as string, score }));
  }

  /** BM25F's weighted, length-normalized frequency of a term in a chunk, from its packed per-field counts. */
  private weightedFrequency(documentCount: number): (slot: number, packed: number) => number {
    const { title, headings, body } = this.options;
    // Per field, a term's frequency is multiplied by the weight and divided by base + scale * length.
    const scaleOf = (field: FieldSettings, index: number): number => {
      const average = (this.lengthTotals[index] as number) / documentCount;
      return average > 0 ? field.b / average : 0;
    };
    const [titleWeight, titleBase, titleScale] = [title.weight, 1 - title.b, scaleOf(title, 0)];
    const [headingWeight, headingBase, headingScale] = [headings.weight, 1 - headings.b, scaleOf(headings, 1)];
    const [bodyWeight, bodyBase, bodyScale] = [body.weight, 1 - body.b, scaleOf(body, 2)];
    const [titleLengths, headingLengths, bodyLengths] = this.fieldLengths;
    return (slot, packed) => {
      const bodyFrequency = packed & 0xffff;
      let frequency = bodyFrequency === 0 ? 0 : (bodyWeight * bodyFrequency) / (bodyBase + bodyScale * (bodyLengths[slot] as number));
      if (packed > 0xffff) {
        const titleFrequency = packed >>> 24;
        const headingFrequency = (packed >>> 16) & 0xff;
        if (titleFrequency > 0) frequency += (titleWeight * titleFrequency) / (titleBase + titleScale * (titleLengths[slot] as number));
        if (headingFrequency > 0)
          frequency += (headingWeight * headingFrequency) / (headingBase + headingScale * (headingLengths[slot] as number));
      }
      return frequency;
    };
  }

  /** Drops removed chunks and unused terms, renumbering both densely. Runs by itself after many removals. */
  compact(): void {
    this.adopt(this.compactedState());
  }

  /**
   * The index as plain data, compacted, its two large arrays (postings and slotTerms) produced in pieces as they are
   * consumed, so that saving a large index does not hold a second copy of them. Consume it before the index changes.
   */
  toSnapshotInPieces(): LexicalSnapshotInPieces {
    const { postings, slotTerms, slotTermOffsets, fieldLengths, ...names } = this.compaction();
    return { ...names, arrays: { postings, slotTerms, slotTermOffsets: whole(slotTermOffsets), fieldLengths: whole(fieldLengths) } };
  }

  /** The live chunks and terms renumbered densely: small arrays whole, the large ones in pieces made when consumed. */
  private compaction(): Omit<IndexState, 'arrays'> & {
    postings: ArrayInPieces;
    slotTerms: ArrayInPieces;
    slotTermOffsets: Uint32Array;
    fieldLengths: Float32Array;
  } {
    const keys: string[] = [];
    const liveSlots: number[] = [];
    const newSlotOf = new Int32Array(this.slotCount).fill(-1);
    for (let slot = 0; slot < this.slotCount; slot++) {
      if (this.removed[slot] === 1) continue;
      newSlotOf[slot] = liveSlots.push(slot) - 1;
      keys.push(this.keyOfSlot[slot] as string);
    }
    const terms: string[] = [];
    const newTermOf = new Int32Array(this.termText.length).fill(-1);
    this.termText.forEach((term, id) => {
      if (this.documentFrequency[id] !== 0) newTermOf[id] = terms.push(term) - 1;
    });
    // A live chunk's terms are all live, and renumbering keeps their order. While no term was dropped (as in a
    // growing namespace) every list keeps its bytes; otherwise the smaller gaps may take fewer.
    const renumbered = terms.length < this.termText.length;
    const slotTermOffsets = new Uint32Array(liveSlots.length + 1);
    const fieldLengths = new Float32Array(3 * liveSlots.length);
    liveSlots.forEach((slot, newSlot) => {
      const [start, end] = [this.slotTermOffsets[slot] as number, this.slotTermOffsets[slot + 1] as number];
      const length = renumbered ? renumberedIds(this.slotTerms, start, end, newTermOf) : end - start;
      slotTermOffsets[newSlot + 1] = (slotTermOffsets[newSlot] as number) + length;
      this.fieldLengths.forEach((lengths, field) => {
        fieldLengths[3 * newSlot + field] = lengths[slot] as number;
      });
    });
    const termCount = this.termText.length;
    const slotTermsPieces = function* (this: LexicalIndex): Generator<Uint8Array> {
      const piece = new Uint8Array(1 << 18);
      let filled = 0;
      for (const [newSlot, slot] of liveSlots.entries()) {
        const length = (slotTermOffsets[newSlot + 1] as number) - (slotTermOffsets[newSlot] as number);
        if (filled + length > piece.length && filled > 0) {
          yield piece.subarray(0, filled);
          filled = 0;
        }
        // A list longer than a piece (a chunk of tens of thousands of distinct terms) is a piece of its own.
        const target = length > piece.length ? new Uint8Array(length) : piece;
        const at = target === piece ? filled : 0;
        const [start, end] = [this.slotTermOffsets[slot] as number, this.slotTermOffsets[slot + 1] as number];
        if (renumbered) renumberedIds(this.slotTerms, start, end, newTermOf, target, at);
        else target.set(this.slotTerms.subarray(start, end), at);
        if (target === piece) filled += length;
        else yield target;
      }
      if (filled > 0) yield piece.subarray(0, filled);
    }.bind(this);
    return {
      terms,
      keys,
      lengthTotals: [...this.lengthTotals],
      postings: {
        type: 'u32',
        length: this.postings.compactedLength(termCount, this.documentFrequency),
        pieces: () => this.postings.compactedPieces(termCount, this.documentFrequency, newSlotOf),
      },
      slotTerms: { type: 'u8', length: slotTermOffsets[liveSlots.length] as number, pieces: slotTermsPieces },
      slotTermOffsets,
      fieldLengths,
    };
  }

  /**
   * Restores an index saved from `toSnapshotInPieces`, taking over the snapshot's typed arrays: later changes to the index
   * write into them. Checks cheaply that the parts fit together and throws an Error saying what does not; the
   * caller then rebuilds the index from the documents.
   */
  static fromSnapshot(snapshot: LexicalSnapshot, options: Partial<LexicalIndexOptions> = {}): LexicalIndex {
    try {
      const index = new LexicalIndex(options);
      index.adopt(checkedState(snapshot));
      // Duplicates would leave a term or chunk unreachable; the maps, once built, count them for free.
      if (index.termIdOf.size !== snapshot.terms.length) throw new Error('terms: some appear twice');
      if (index.slotOfKey.size !== snapshot.keys.length) throw new Error('keys: some appear twice');
      return index;
    } catch (error) {
      throw new Error(`Lexical snapshot is unusable: ${(error as Error).message}`, { cause: error });
    }
  }

  /** The live chunks and terms renumbered densely into new, exactly sized arrays; the index itself is unchanged. */
  private compactedState(): IndexState {
    const { postings, slotTerms, slotTermOffsets, fieldLengths, ...names } = this.compaction();
    return {
      ...names,
      arrays: {
        postings: materialized(postings, Uint32Array),
        slotTerms: materialized(slotTerms, Uint8Array),
        slotTermOffsets,
        fieldLengths,
      },
    };
  }

  /** Takes over a compacted state; its arrays are exactly sized, so the next add grows them. */
  private adopt({ terms, keys, lengthTotals, arrays }: IndexState): void {
    this.postings = PostingLists.fromCompacted(arrays.postings, terms.length);
    // In the compact layout each term has one full block, so its fill is its document frequency.
    this.documentFrequency = this.postings.lastBlockFill.slice();
    this.frequencyScratch = new Uint32Array(3 * terms.length);
    this.termText = terms;
    this.termIdOf = new Map();
    terms.forEach((term, id) => this.termIdOf.set(term, id));
    this.keyOfSlot = keys;
    this.slotOfKey = new Map();
    keys.forEach((key, slot) => this.slotOfKey.set(key, slot));
    this.slotCount = keys.length;
    this.removedCount = 0;
    // With room to grow in place: the first chunk added after a load would otherwise copy each (0.2 s at a million).
    this.removed = withHeadroom(Uint8Array, keys.length);
    this.lengthTotals = lengthTotals;
    this.slotTerms = arrays.slotTerms;
    this.slotTermOffsets = arrays.slotTermOffsets;
    this.fieldLengths = [0, 1, 2].map((field) => {
      const lengths = withHeadroom(Float32Array, keys.length);
      for (let slot = 0; slot < keys.length; slot++) lengths[slot] = arrays.fieldLengths[3 * slot + field] as number;
      return lengths;
    }) as FieldLengths;
  }

  private intern(term: string): number {
    let id = this.termIdOf.get(term);
    if (id !== undefined) return id;
    id = this.termText.length;
    this.termIdOf.set(term, id);
    this.termText.push(term);
    if (id >= this.documentFrequency.length) {
      const capacity = Math.max(1024, this.documentFrequency.length * 2);
      this.documentFrequency = grown(this.documentFrequency, capacity);
      this.postings.growTerms(capacity);
      this.frequencyScratch = grown(this.frequencyScratch, 3 * capacity);
    }
    return id;
  }

  private ensureSlotCapacity(count: number): void {
    if (count <= this.removed.length) return;
    // A quarter more once large, so that the first growths after a load widen into the headroom instead of copying.
    const capacity = grownCapacity(this.removed.length, count);
    this.removed = grown(this.removed, capacity);
    this.fieldLengths = this.fieldLengths.map((lengths) => grown(lengths, capacity)) as FieldLengths;
    this.slotTermOffsets = grown(this.slotTermOffsets, capacity + 1);
  }
}

/** The pieces as one new array. */
function materialized<T extends SnapshotArray>(source: ArrayInPieces, type: new (length: number) => T): T {
  const array = new type(source.length);
  let offset = 0;
  for (const piece of source.pieces()) {
    array.set(piece, offset);
    offset += piece.length;
  }
  return array;
}

/** An array that is already whole, as its single piece. */
function whole(array: Uint32Array | Float32Array): ArrayInPieces {
  return { type: array instanceof Float32Array ? 'f32' : 'u32', length: array.length, pieces: () => [array] };
}

/**
 * The snapshot's parts, checked to fit together in time proportional to the number of terms and chunks (the
 * posting pool's own layout is checked as the index takes it over), and copied where the index will change them.
 */
function checkedState({ terms, keys, lengthTotals, arrays }: LexicalSnapshot): IndexState {
  const postings = typedArray(arrays, 'postings', Uint32Array);
  const storedTerms = arrays.slotTerms;
  if (!(storedTerms instanceof Uint8Array || storedTerms instanceof Uint32Array)) throw new Error('slotTerms must be a Uint8Array');
  const slotTermOffsets = typedArray(arrays, 'slotTermOffsets', Uint32Array);
  const fieldLengths = typedArray(arrays, 'fieldLengths', Float32Array);
  if (!Array.isArray(terms) || !Array.isArray(keys)) throw new Error('terms and keys must be arrays');
  if (lengthTotals.length !== 3 || !lengthTotals.every((total) => Number.isFinite(total) && total >= 0)) {
    throw new Error(`lengthTotals must be 3 totals, not [${lengthTotals.join(', ')}]`);
  }
  if (slotTermOffsets.length !== keys.length + 1)
    throw new Error(`slotTermOffsets has ${slotTermOffsets.length} entries for ${keys.length} keys`);
  if (fieldLengths.length !== 3 * keys.length) throw new Error(`fieldLengths has ${fieldLengths.length} entries for ${keys.length} keys`);
  for (let slot = 0; slot < keys.length; slot++) {
    if ((slotTermOffsets[slot + 1] as number) < (slotTermOffsets[slot] as number))
      throw new Error(`slotTermOffsets decreases at slot ${slot}`);
  }
  if (slotTermOffsets[0] !== 0 || slotTermOffsets[keys.length] !== storedTerms.length) {
    throw new Error(
      `slotTermOffsets run from ${slotTermOffsets[0]} to ${slotTermOffsets[keys.length]}, slotTerms has ${storedTerms.length} entries`,
    );
  }
  // Each (chunk, term) pair is listed once in postings and once in slotTerms.
  const postingCount = (postings.length - blockHeader * (1 + terms.length)) / 2;
  const listedCount = storedTerms instanceof Uint8Array ? idCount(storedTerms) : storedTerms.length;
  if (postingCount !== listedCount) throw new Error(`postings holds ${postingCount} postings, slotTerms ${listedCount}`);
  // Formats 2 to 5 kept the lists as whole ids in the order of the chunk's text.
  const encoded =
    storedTerms instanceof Uint8Array ? { bytes: storedTerms, offsets: slotTermOffsets } : encodedLists(storedTerms, slotTermOffsets);
  return {
    terms: [...terms],
    keys: [...keys],
    lengthTotals: [...lengthTotals],
    arrays: { postings, slotTerms: encoded.bytes, slotTermOffsets: encoded.offsets, fieldLengths },
  };
}

function typedArray<T extends Uint32Array | Float32Array>(
  arrays: LexicalSnapshot['arrays'],
  name: keyof SnapshotArrays,
  type: new (length: number) => T,
): T {
  const array = arrays[name];
  if (!(array instanceof type)) throw new Error(`${name} must be a ${type.name}`);
  return array;
}
