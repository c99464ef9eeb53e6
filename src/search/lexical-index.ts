// In-memory BM25F index over chunks: interned terms, pooled typed-array postings, tombstones, heap top-k.
import { inverseDocumentFrequency } from './bm25.js';
import { queryTerms, tokenize } from './tokenize.js';
import { TopK } from './top-k.js';

export interface LexicalFields {
  title: string;
  headings: string;
  body: string;
}

export interface LexicalHit {
  key: string;
  score: number;
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

type GrowableArray = Uint8Array | Uint32Array | Float32Array | Float64Array;

function grown<T extends GrowableArray>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array.subarray(0, Math.min(array.length, length)));
  return next;
}

/** Frequencies in title (bits 24-31), headings (16-23) and body (0-15), clamped: BM25 saturates long before. */
function packFrequencies(title: number, headings: number, body: number): number {
  return ((Math.min(title, 255) << 24) | (Math.min(headings, 255) << 16) | Math.min(body, 0xffff)) >>> 0;
}

const blockHeader = 2;
const largestBlock = 1024;

/**
 * Every term's postings (slot, packed frequencies) in one Uint32Array, as a chain of blocks
 * [next block, capacity, pairs…] whose sizes grow with the list; offset 0 means no block.
 * One pool instead of an array per term keeps the many rare terms cheap.
 */
class PostingLists {
  data: Uint32Array;
  end = blockHeader;
  firstBlock = new Uint32Array(1024);
  lastBlock = new Uint32Array(1024);
  lastBlockFill = new Uint32Array(1024);

  constructor(dataCapacity = 1 << 16) {
    this.data = new Uint32Array(dataCapacity);
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

  /** Gives `term` a single block with the `count` postings of `sourceTerm` in `source` whose slots survive renumbering. */
  copyLive(source: PostingLists, sourceTerm: number, term: number, count: number, newSlotOf: Int32Array): void {
    const block = this.allocate(count);
    let write = block + blockHeader;
    for (let from = source.firstBlock[sourceTerm] as number; from !== 0; from = source.data[from] as number) {
      const end = from + blockHeader + 2 * source.fillOf(sourceTerm, from);
      for (let offset = from + blockHeader; offset < end; offset += 2) {
        const slot = newSlotOf[source.data[offset] as number] as number;
        if (slot < 0) continue;
        this.data[write++] = slot;
        this.data[write++] = source.data[offset + 1] as number;
      }
    }
    this.firstBlock[term] = this.lastBlock[term] = block;
    this.lastBlockFill[term] = count;
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

export class LexicalIndex {
  private readonly options: LexicalIndexOptions;
  // Terms, by interned id; document frequencies count live chunks only.
  private termIdOf = new Map<string, number>();
  private termText: string[] = [];
  private documentFrequency = new Uint32Array(1024);
  private postings = new PostingLists();
  // Chunks, by slot. Slots are handed out in order, so every posting list is sorted by slot.
  private slotOfKey = new Map<string, number>();
  private keyOfSlot: (string | undefined)[] = [];
  private slotCount = 0;
  private removedCount = 0;
  private removed = new Uint8Array(256);
  /** Token counts per slot: title at 3s, headings at 3s + 1, body at 3s + 2. */
  private fieldLengths = new Float32Array(3 * 256);
  private lengthTotals = [0, 0, 0];
  // The distinct term ids of slot s are slotTerms[slotTermOffsets[s] .. slotTermOffsets[s + 1]], kept so
  // that a removal can lower document frequencies exactly.
  private slotTerms = new Uint32Array(1 << 14);
  private slotTermOffsets = new Uint32Array(257);
  // Scratch space reused by add (3 counters per term id) and search (a score per slot).
  private frequencyScratch = new Uint32Array(3 * 1024);
  private scores = new Float64Array(256);
  private touched = new Uint32Array(256);

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
      this.fieldLengths[3 * slot + field] = terms.length;
      this.lengthTotals[field] = (this.lengthTotals[field] as number) + terms.length;
    });
    const start = this.slotTermOffsets[slot] as number;
    if (start + distinct.length > this.slotTerms.length) {
      this.slotTerms = grown(this.slotTerms, Math.max(start + distinct.length, Math.ceil(this.slotTerms.length * 1.5)));
    }
    const counters = this.frequencyScratch;
    distinct.forEach((id, position) => {
      const frequency = this.documentFrequency[id] as number;
      const packed = packFrequencies(counters[3 * id] as number, counters[3 * id + 1] as number, counters[3 * id + 2] as number);
      counters[3 * id] = counters[3 * id + 1] = counters[3 * id + 2] = 0;
      // Each new block about as large as the list so far, so a list of n postings spans log n blocks.
      this.postings.append(id, slot, packed, frequency + 1);
      this.documentFrequency[id] = frequency + 1;
      this.slotTerms[start + position] = id;
    });
    this.slotTermOffsets[slot + 1] = start + distinct.length;
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
    const end = this.slotTermOffsets[slot + 1] as number;
    for (let offset = this.slotTermOffsets[slot] as number; offset < end; offset++) {
      const id = this.slotTerms[offset] as number;
      this.documentFrequency[id] = (this.documentFrequency[id] as number) - 1;
    }
    for (let field = 0; field < 3; field++) {
      this.lengthTotals[field] = (this.lengthTotals[field] as number) - (this.fieldLengths[3 * slot + field] as number);
    }
    // Compacting once a quarter of the slots are dead keeps its cost amortized and the scans short.
    if (this.removedCount >= 32 && this.removedCount * 4 >= this.slotCount) this.compact();
    return true;
  }

  /** The query's terms that occur in the index, for callers that excerpt or highlight. */
  matchedTerms(query: string): string[] {
    return queryTerms(query).filter((term) => (this.documentFrequency[this.termIdOf.get(term) ?? -1] ?? 0) > 0);
  }

  /** The best `limit` chunks for `query`, best first; ties go to the chunk added earlier. */
  search(query: string, limit: number): LexicalHit[] {
    const wanted = Math.floor(limit);
    const documentCount = this.slotOfKey.size;
    if (!(wanted > 0) || documentCount === 0) return [];
    const { k1, title, headings, body } = this.options;
    // Per field, a term's frequency is multiplied by the weight and divided by base + scale * length.
    const scaleOf = (field: FieldSettings, index: number): number => {
      const average = (this.lengthTotals[index] as number) / documentCount;
      return average > 0 ? field.b / average : 0;
    };
    const [titleWeight, titleBase, titleScale] = [title.weight, 1 - title.b, scaleOf(title, 0)];
    const [headingWeight, headingBase, headingScale] = [headings.weight, 1 - headings.b, scaleOf(headings, 1)];
    const [bodyWeight, bodyBase, bodyScale] = [body.weight, 1 - body.b, scaleOf(body, 2)];
    const { removed, scores, touched, fieldLengths, postings } = this;
    const data = postings.data;
    let touchedCount = 0;
    for (const term of queryTerms(query)) {
      const id = this.termIdOf.get(term);
      const frequencyOfTerm = id === undefined ? 0 : (this.documentFrequency[id] as number);
      if (id === undefined || frequencyOfTerm === 0) continue;
      const scale = inverseDocumentFrequency(documentCount, frequencyOfTerm) * (k1 + 1);
      for (let block = postings.firstBlock[id] as number; block !== 0; block = data[block] as number) {
        const end = block + blockHeader + 2 * postings.fillOf(id, block);
        for (let offset = block + blockHeader; offset < end; offset += 2) {
          const slot = data[offset] as number;
          if (removed[slot] === 1) continue;
          const packed = data[offset + 1] as number;
          const bodyFrequency = packed & 0xffff;
          let frequency = bodyFrequency === 0 ? 0 : (bodyWeight * bodyFrequency) / (bodyBase + bodyScale * (fieldLengths[3 * slot + 2] as number));
          if (packed > 0xffff) {
            const titleFrequency = packed >>> 24;
            const headingFrequency = (packed >>> 16) & 0xff;
            if (titleFrequency > 0) frequency += (titleWeight * titleFrequency) / (titleBase + titleScale * (fieldLengths[3 * slot] as number));
            if (headingFrequency > 0) frequency += (headingWeight * headingFrequency) / (headingBase + headingScale * (fieldLengths[3 * slot + 1] as number));
          }
          // A zero contribution (a field weighted 0) must not mark the slot, or it could be listed twice.
          if (frequency === 0) continue;
          if (scores[slot] === 0) touched[touchedCount++] = slot;
          scores[slot] = (scores[slot] as number) + (scale * frequency) / (frequency + k1);
        }
      }
    }
    const best = new TopK(Math.min(wanted, touchedCount));
    for (let index = 0; index < touchedCount; index++) {
      const slot = touched[index] as number;
      best.offer(slot, scores[slot] as number);
      scores[slot] = 0;
    }
    return best.drain().map(({ id, score }) => ({ key: this.keyOfSlot[id] as string, score }));
  }

  /** Drops removed chunks and unused terms, renumbering both densely. Runs by itself after many removals. */
  compact(): void {
    const liveSlots: number[] = [];
    const newSlotOf = new Int32Array(this.slotCount).fill(-1);
    for (let slot = 0; slot < this.slotCount; slot++) {
      if (this.removed[slot] === 0) newSlotOf[slot] = liveSlots.push(slot) - 1;
    }
    const newTermOf = new Int32Array(this.termText.length).fill(-1);
    const termText = this.termText.filter((_, id) => this.documentFrequency[id] !== 0);
    const capacity = Math.max(256, liveSlots.length);
    const liveTermTotal = this.documentFrequency.reduce((total, frequency) => total + frequency, 0);
    // One exactly sized block per term: the pool never grows while being filled.
    const postings = new PostingLists(blockHeader * (1 + termText.length) + 2 * liveTermTotal + (1 << 12));
    postings.growTerms(Math.max(1024, termText.length));
    const documentFrequency = new Uint32Array(postings.firstBlock.length);
    for (let id = 0, newId = 0; id < this.termText.length; id++) {
      const frequency = this.documentFrequency[id] as number;
      if (frequency === 0) continue;
      newTermOf[id] = newId;
      documentFrequency[newId] = frequency;
      postings.copyLive(this.postings, id, newId, frequency, newSlotOf);
      newId++;
    }
    const slotTerms = new Uint32Array(Math.max(1 << 14, liveTermTotal));
    const slotTermOffsets = new Uint32Array(capacity + 1);
    const fieldLengths = new Float32Array(3 * capacity);
    liveSlots.forEach((slot, newSlot) => {
      let write = slotTermOffsets[newSlot] as number;
      const end = this.slotTermOffsets[slot + 1] as number;
      for (let offset = this.slotTermOffsets[slot] as number; offset < end; offset++) {
        slotTerms[write++] = newTermOf[this.slotTerms[offset] as number] as number;
      }
      slotTermOffsets[newSlot + 1] = write;
      fieldLengths.set(this.fieldLengths.subarray(3 * slot, 3 * slot + 3), 3 * newSlot);
    });
    this.keyOfSlot = liveSlots.map((slot) => this.keyOfSlot[slot]);
    this.slotOfKey = new Map(this.keyOfSlot.map((key, newSlot) => [key as string, newSlot]));
    this.termText = termText;
    this.termIdOf = new Map(termText.map((term, id) => [term, id]));
    this.documentFrequency = documentFrequency;
    this.postings = postings;
    this.slotTerms = slotTerms;
    this.slotTermOffsets = slotTermOffsets;
    this.fieldLengths = fieldLengths;
    this.slotCount = liveSlots.length;
    this.removedCount = 0;
    this.removed = new Uint8Array(capacity);
    this.scores = new Float64Array(capacity);
    this.touched = new Uint32Array(capacity);
    this.frequencyScratch = new Uint32Array(3 * documentFrequency.length);
  }

  private intern(term: string): number {
    let id = this.termIdOf.get(term);
    if (id !== undefined) return id;
    id = this.termText.length;
    this.termIdOf.set(term, id);
    this.termText.push(term);
    if (id >= this.documentFrequency.length) {
      const capacity = this.documentFrequency.length * 2;
      this.documentFrequency = grown(this.documentFrequency, capacity);
      this.postings.growTerms(capacity);
      this.frequencyScratch = grown(this.frequencyScratch, 3 * capacity);
    }
    return id;
  }

  private ensureSlotCapacity(count: number): void {
    if (count <= this.removed.length) return;
    const capacity = Math.max(count, this.removed.length * 2);
    this.removed = grown(this.removed, capacity);
    this.fieldLengths = grown(this.fieldLengths, 3 * capacity);
    this.slotTermOffsets = grown(this.slotTermOffsets, capacity + 1);
    this.scores = grown(this.scores, capacity);
    this.touched = grown(this.touched, capacity);
  }
}
