// In-memory BM25F index over chunks: interned terms, postings in one pooled Uint32Array, tombstones, heap top-k.
import { inverseDocumentFrequency } from './bm25.js';
import { queryTerms, tokenize } from './tokenize.js';

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

/** Chosen by bench/lexical-quality.ts; see the figures there. */
export const defaultLexicalIndexOptions: LexicalIndexOptions = Object.freeze({
  k1: 1.2,
  title: Object.freeze({ weight: 3, b: 0.5 }),
  headings: Object.freeze({ weight: 2, b: 0.5 }),
  body: Object.freeze({ weight: 1, b: 0.4 }),
});

type GrowableArray = Uint8Array | Uint32Array | Float32Array | Float64Array;

function grown<T extends GrowableArray>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}

// A posting block is [next block, capacity, (slot, packed frequencies) x capacity]; offset 0 means none.
const blockHeader = 2;
const largestBlock = 1024;
// Packed frequencies: title in bits 24-31, headings in 16-23, body in 0-15, each clamped (BM25 saturates long before).
function packFrequencies(title: number, headings: number, body: number): number {
  return ((Math.min(title, 255) << 24) | (Math.min(headings, 255) << 16) | Math.min(body, 0xffff)) >>> 0;
}

export class LexicalIndex {
  private readonly options: LexicalIndexOptions;
  // Terms, by interned id.
  private termIdOf = new Map<string, number>();
  private termText: string[] = [];
  private documentFrequency = new Uint32Array(1024);
  private firstBlock = new Uint32Array(1024);
  private lastBlock = new Uint32Array(1024);
  private lastBlockFill = new Uint32Array(1024);
  private postings = new Uint32Array(1 << 16);
  private postingsEnd = blockHeader;
  // Chunks, by slot: slots are handed out in order, so every posting list is sorted by slot.
  private slotOfKey = new Map<string, number>();
  private keyOfSlot: (string | undefined)[] = [];
  private slotCount = 0;
  private removedCount = 0;
  private removed = new Uint8Array(256);
  private titleLengths = new Float32Array(256);
  private headingLengths = new Float32Array(256);
  private bodyLengths = new Float32Array(256);
  private lengthTotals = [0, 0, 0];
  // Forward index: the distinct term ids of slot s are slotTerms[slotTermOffsets[s] .. slotTermOffsets[s + 1]].
  private slotTerms = new Uint32Array(1 << 14);
  private slotTermOffsets = new Uint32Array(257);
  // Scratch space reused by add and search.
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
    const lengths = [fields.title, fields.headings, fields.body].map((text, field) => {
      const terms = tokenize(text);
      for (const term of terms) {
        const id = this.intern(term);
        const position = id * 3 + field;
        if (this.frequencyScratch[id * 3] === 0 && this.frequencyScratch[id * 3 + 1] === 0 && this.frequencyScratch[id * 3 + 2] === 0) {
          distinct.push(id);
        }
        this.frequencyScratch[position] = (this.frequencyScratch[position] as number) + 1;
      }
      return terms.length;
    });
    let forwardEnd = this.slotTermOffsets[slot] as number;
    if (forwardEnd + distinct.length > this.slotTerms.length) {
      this.slotTerms = grown(this.slotTerms, Math.max(forwardEnd + distinct.length, Math.ceil(this.slotTerms.length * 1.5)));
    }
    for (const id of distinct) {
      const base = id * 3;
      const scratch = this.frequencyScratch;
      this.appendPosting(id, slot, packFrequencies(scratch[base] as number, scratch[base + 1] as number, scratch[base + 2] as number));
      scratch[base] = scratch[base + 1] = scratch[base + 2] = 0;
      this.documentFrequency[id] = (this.documentFrequency[id] as number) + 1;
      this.slotTerms[forwardEnd++] = id;
    }
    this.slotTermOffsets[slot + 1] = forwardEnd;
    this.titleLengths[slot] = lengths[0] as number;
    this.headingLengths[slot] = lengths[1] as number;
    this.bodyLengths[slot] = lengths[2] as number;
    lengths.forEach((length, field) => (this.lengthTotals[field] = (this.lengthTotals[field] as number) + length));
    this.removed[slot] = 0;
    this.keyOfSlot[slot] = key;
    this.slotOfKey.set(key, slot);
    this.slotCount = slot + 1;
  }

  /** Tombstones a chunk; its postings are skipped until the next compaction drops them. */
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
    this.lengthTotals[0] = (this.lengthTotals[0] as number) - (this.titleLengths[slot] as number);
    this.lengthTotals[1] = (this.lengthTotals[1] as number) - (this.headingLengths[slot] as number);
    this.lengthTotals[2] = (this.lengthTotals[2] as number) - (this.bodyLengths[slot] as number);
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
    // Per field, normalization is base + scale * length; weight / that is the weight of one occurrence.
    const [titleScale, headingScale, bodyScale] = [title.b, headings.b, body.b].map((b, field) => {
      const average = (this.lengthTotals[field] as number) / documentCount;
      return average > 0 ? b / average : 0;
    }) as [number, number, number];
    const { postings, removed, scores, touched, titleLengths, headingLengths, bodyLengths } = this;
    let touchedCount = 0;
    for (const term of queryTerms(query)) {
      const id = this.termIdOf.get(term);
      if (id === undefined || this.documentFrequency[id] === 0) continue;
      const idf = inverseDocumentFrequency(documentCount, this.documentFrequency[id] as number);
      const scale = idf * (k1 + 1);
      for (let block = this.firstBlock[id] as number; block !== 0; block = postings[block] as number) {
        const fill = block === this.lastBlock[id] ? (this.lastBlockFill[id] as number) : (postings[block + 1] as number);
        const end = block + blockHeader + 2 * fill;
        for (let offset = block + blockHeader; offset < end; offset += 2) {
          const slot = postings[offset] as number;
          if (removed[slot] === 1) continue;
          const packed = postings[offset + 1] as number;
          const bodyFrequency = packed & 0xffff;
          let frequency = bodyFrequency === 0 ? 0 : (body.weight * bodyFrequency) / (1 - body.b + bodyScale * (bodyLengths[slot] as number));
          if (packed > 0xffff) {
            const titleFrequency = packed >>> 24;
            const headingFrequency = (packed >>> 16) & 0xff;
            if (titleFrequency > 0) frequency += (title.weight * titleFrequency) / (1 - title.b + titleScale * (titleLengths[slot] as number));
            if (headingFrequency > 0) frequency += (headings.weight * headingFrequency) / (1 - headings.b + headingScale * (headingLengths[slot] as number));
          }
          if (frequency === 0) continue;
          if (scores[slot] === 0) touched[touchedCount++] = slot;
          scores[slot] = (scores[slot] as number) + (scale * frequency) / (frequency + k1);
        }
      }
    }
    return this.selectBest(touchedCount, wanted);
  }

  /** Drops tombstoned chunks and unused terms, renumbering slots and terms densely. */
  compact(): void {
    const liveSlots: number[] = [];
    for (let slot = 0; slot < this.slotCount; slot++) if (this.removed[slot] === 0) liveSlots.push(slot);
    const newSlotOf = new Int32Array(this.slotCount).fill(-1);
    liveSlots.forEach((slot, newSlot) => (newSlotOf[slot] = newSlot));
    const newTermOf = new Int32Array(this.termText.length).fill(-1);
    const termText: string[] = [];
    let postingTotal = 0;
    for (let id = 0; id < this.termText.length; id++) {
      const frequency = this.documentFrequency[id] as number;
      if (frequency === 0) continue;
      newTermOf[id] = termText.length;
      termText.push(this.termText[id] as string);
      postingTotal += frequency;
    }
    const termCount = termText.length;
    const documentFrequency = new Uint32Array(Math.max(1024, termCount));
    const firstBlock = new Uint32Array(documentFrequency.length);
    const lastBlockFill = new Uint32Array(documentFrequency.length);
    const postings = new Uint32Array(blockHeader + blockHeader * termCount + 2 * postingTotal + (1 << 12));
    let postingsEnd = blockHeader;
    // One exactly sized block per term; later additions chain new blocks after it.
    for (let id = 0; id < this.termText.length; id++) {
      const newId = newTermOf[id] as number;
      if (newId < 0) continue;
      const frequency = this.documentFrequency[id] as number;
      firstBlock[newId] = postingsEnd;
      documentFrequency[newId] = lastBlockFill[newId] = postings[postingsEnd + 1] = frequency;
      let write = postingsEnd + blockHeader;
      this.forEachPosting(id, (slot, packed) => {
        const newSlot = newSlotOf[slot] as number;
        if (newSlot < 0) return;
        postings[write++] = newSlot;
        postings[write++] = packed;
      });
      postingsEnd = write;
    }
    const slotTerms = new Uint32Array(Math.max(1 << 14, postingTotal));
    const slotTermOffsets = new Uint32Array(Math.max(256, liveSlots.length) + 1);
    let forwardEnd = 0;
    liveSlots.forEach((slot, newSlot) => {
      const end = this.slotTermOffsets[slot + 1] as number;
      for (let offset = this.slotTermOffsets[slot] as number; offset < end; offset++) {
        slotTerms[forwardEnd++] = newTermOf[this.slotTerms[offset] as number] as number;
      }
      slotTermOffsets[newSlot + 1] = forwardEnd;
    });
    const capacity = slotTermOffsets.length - 1;
    const pick = (lengths: Float32Array) => {
      const picked = new Float32Array(capacity);
      liveSlots.forEach((slot, newSlot) => (picked[newSlot] = lengths[slot] as number));
      return picked;
    };
    this.titleLengths = pick(this.titleLengths);
    this.headingLengths = pick(this.headingLengths);
    this.bodyLengths = pick(this.bodyLengths);
    this.keyOfSlot = liveSlots.map((slot) => this.keyOfSlot[slot]);
    this.slotOfKey = new Map(this.keyOfSlot.map((key, newSlot) => [key as string, newSlot]));
    this.termText = termText;
    this.termIdOf = new Map(termText.map((term, id) => [term, id]));
    this.documentFrequency = documentFrequency;
    this.firstBlock = firstBlock;
    this.lastBlock = firstBlock.slice();
    this.lastBlockFill = lastBlockFill;
    this.postings = postings;
    this.postingsEnd = postingsEnd;
    this.slotTerms = slotTerms;
    this.slotTermOffsets = slotTermOffsets;
    this.slotCount = liveSlots.length;
    this.removedCount = 0;
    this.removed = new Uint8Array(capacity);
    this.scores = new Float64Array(capacity);
    this.touched = new Uint32Array(capacity);
    this.frequencyScratch = new Uint32Array(3 * documentFrequency.length);
  }

  private forEachPosting(id: number, visit: (slot: number, packed: number) => void): void {
    const postings = this.postings;
    for (let block = this.firstBlock[id] as number; block !== 0; block = postings[block] as number) {
      const fill = block === this.lastBlock[id] ? (this.lastBlockFill[id] as number) : (postings[block + 1] as number);
      for (let offset = block + blockHeader; offset < block + blockHeader + 2 * fill; offset += 2) {
        visit(postings[offset] as number, postings[offset + 1] as number);
      }
    }
  }

  /** Top `wanted` touched slots by a min-heap whose root is the weakest kept hit; also clears the scores. */
  private selectBest(touchedCount: number, wanted: number): LexicalHit[] {
    const { scores, touched } = this;
    const capacity = Math.min(wanted, touchedCount);
    const heapSlots = new Uint32Array(capacity);
    const heapScores = new Float64Array(capacity);
    // Weaker means a lower score, or an equal score from a later slot.
    const weaker = (left: number, right: number): boolean =>
      (heapScores[left] as number) < (heapScores[right] as number) ||
      (heapScores[left] === heapScores[right] && (heapSlots[left] as number) > (heapSlots[right] as number));
    const swap = (left: number, right: number): void => {
      [heapSlots[left], heapSlots[right]] = [heapSlots[right] as number, heapSlots[left] as number];
      [heapScores[left], heapScores[right]] = [heapScores[right] as number, heapScores[left] as number];
    };
    const siftDown = (size: number): void => {
      for (let parent = 0; ; ) {
        const left = parent * 2 + 1;
        let weakest = parent;
        if (left < size && weaker(left, weakest)) weakest = left;
        if (left + 1 < size && weaker(left + 1, weakest)) weakest = left + 1;
        if (weakest === parent) return;
        swap(parent, weakest);
        parent = weakest;
      }
    };
    let size = 0;
    for (let index = 0; index < touchedCount; index++) {
      const slot = touched[index] as number;
      const score = scores[slot] as number;
      scores[slot] = 0;
      if (size < capacity) {
        heapSlots[size] = slot;
        heapScores[size] = score;
        for (let child = size++; child > 0 && weaker(child, (child - 1) >> 1); child = (child - 1) >> 1) swap(child, (child - 1) >> 1);
      } else if (score > (heapScores[0] as number) || (score === heapScores[0] && slot < (heapSlots[0] as number))) {
        heapSlots[0] = slot;
        heapScores[0] = score;
        siftDown(size);
      }
    }
    const hits: LexicalHit[] = new Array(size);
    while (size > 0) {
      hits[size - 1] = { key: this.keyOfSlot[heapSlots[0] as number] as string, score: heapScores[0] as number };
      swap(0, --size);
      siftDown(size);
    }
    return hits;
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
      this.firstBlock = grown(this.firstBlock, capacity);
      this.lastBlock = grown(this.lastBlock, capacity);
      this.lastBlockFill = grown(this.lastBlockFill, capacity);
      this.frequencyScratch = grown(this.frequencyScratch, capacity * 3);
    }
    return id;
  }

  private appendPosting(id: number, slot: number, packed: number): void {
    let block = this.lastBlock[id] as number;
    let fill = this.lastBlockFill[id] as number;
    if (block === 0 || fill === this.postings[block + 1]) {
      const capacity = block === 0 ? 1 : Math.min(largestBlock, Math.max(2, (this.documentFrequency[id] as number) + 1));
      const next = this.allocateBlock(capacity);
      if (block === 0) this.firstBlock[id] = next;
      else this.postings[block] = next;
      this.lastBlock[id] = block = next;
      fill = 0;
    }
    const offset = block + blockHeader + 2 * fill;
    this.postings[offset] = slot;
    this.postings[offset + 1] = packed;
    this.lastBlockFill[id] = fill + 1;
  }

  private allocateBlock(capacity: number): number {
    const needed = this.postingsEnd + blockHeader + 2 * capacity;
    if (needed > this.postings.length) this.postings = grown(this.postings, Math.max(needed, Math.ceil(this.postings.length * 1.5)));
    const block = this.postingsEnd;
    this.postings[block] = 0;
    this.postings[block + 1] = capacity;
    this.postingsEnd = needed;
    return block;
  }

  private ensureSlotCapacity(count: number): void {
    if (count <= this.removed.length) return;
    const capacity = Math.max(count, this.removed.length * 2);
    this.removed = grown(this.removed, capacity);
    this.titleLengths = grown(this.titleLengths, capacity);
    this.headingLengths = grown(this.headingLengths, capacity);
    this.bodyLengths = grown(this.bodyLengths, capacity);
    this.slotTermOffsets = grown(this.slotTermOffsets, capacity + 1);
    this.scores = grown(this.scores, capacity);
    this.touched = grown(this.touched, capacity);
  }
}
