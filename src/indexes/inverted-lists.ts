// An inverted file over a vector index's rows: k-means centroids split the rows into lists, each row in the list of
// its nearest centroid, and a search scores only the rows of the lists nearest the query. It finds most, not all, of
// the exact best rows (recall is measured by `npm run bench:vectors`); the vector index uses it only past a size.
// Each list keeps its rows' int8 codes in one segment of consecutive slots, so scanning a list reads memory in order:
// read where the rows lie, a scan was eight times slower per row (it waited on memory for every row), and split in
// blocks of 64 rows scattered over the memory, twice as slow.
import { normalize } from './cosine.js';
import type { ApproximateScores } from './simd/quantized-rows.js';
import { QuantizedRows } from './simd/quantized-rows.js';
import { TopK } from './top-k.js';

/** The lists as plain data, for a snapshot: listOfRow[i] is the list of row i. */
export interface InvertedListsSnapshot {
  readonly centroids: Float32Array;
  readonly listOfRow: Uint32Array;
}

export interface TrainingOptions {
  readonly listCount: number;
  /** Rows of the sample k-means runs on, per list. */
  readonly samplePerList: number;
  readonly iterations: number;
}

export const defaultTraining: TrainingOptions = { listCount: 1024, samplePerList: 32, iterations: 6 };

interface ListedScores extends ApproximateScores {
  /** rows[i] is the row of scores[i]; `noRow` for a slot that holds none. */
  readonly rows: Uint32Array;
}

const noRow = 0xffffffff;
/** The first segment of a list; a full segment moves to one half as large again (see segmentSlotsFor). */
const firstSegmentSlots = 16;

/** The centroids, quantized, so that ranking them against a row or a query is one kernel scan. */
class Centroids {
  private readonly codes: QuantizedRows;
  readonly count: number;

  constructor(
    readonly dimensions: number,
    readonly values: Float32Array,
  ) {
    this.count = values.length / dimensions;
    this.codes = new QuantizedRows(dimensions, this.count);
    this.codes.set(0, values);
  }

  release(): void {
    this.codes.release();
  }

  nearest(unitVector: Float32Array): number {
    const { scores } = this.codes.score(unitVector, this.count);
    let best = 0;
    for (let list = 1; list < this.count; list++) if ((scores[list] as number) > (scores[best] as number)) best = list;
    return best;
  }

  /** The lists, nearest the query first. */
  ranked(unitQuery: Float32Array): number[] {
    const { scores } = this.codes.score(unitQuery, this.count);
    const order = new TopK(this.count);
    for (let list = 0; list < this.count; list++) order.offer(list, scores[list] as number);
    return order.drain().map(({ id }) => id);
  }
}

export class InvertedLists {
  private readonly centroids: Centroids;
  /** The int8 codes of every list's rows: list i's are slots segmentStart[i] to segmentStart[i] + rowsInList[i] - 1. */
  private readonly codes: QuantizedRows;
  private rowOfSlot = new Uint32Array(0);
  private readonly segmentStart: Uint32Array;
  private readonly segmentSlots: Uint32Array;
  private readonly rowsInList: Uint32Array;
  /** Segments left by lists that moved to larger ones, by size: the next list to grow to that size takes one. */
  private readonly freeSegments = new Map<number, number[]>();
  /** Slots handed out so far: the arena's end. */
  private slotsUsed = 0;

  private constructor(centroids: Centroids) {
    this.centroids = centroids;
    this.codes = new QuantizedRows(centroids.dimensions, firstSegmentSlots);
    this.segmentStart = new Uint32Array(centroids.count);
    this.segmentSlots = new Uint32Array(centroids.count);
    this.rowsInList = new Uint32Array(centroids.count);
  }

  get listCount(): number {
    return this.centroids.count;
  }

  /**
   * Trains centroids on a sample of the live rows (spherical k-means: each centroid is the normalized mean of its
   * rows) and puts every live row in its list. `rowAt(row)` gives unit row `row` of `rowCount` (a view it may reuse
   * at the next call: the rows may be read from a file, so the sample is copied once and every row read in order);
   * `isLive(row)` says which count. Deterministic: the same rows give the same lists.
   */
  static train(
    dimensions: number,
    rowAt: (row: number) => Float32Array,
    rowCount: number,
    isLive: (row: number) => boolean,
    options: TrainingOptions = defaultTraining,
  ): InvertedLists {
    const live: number[] = [];
    for (let row = 0; row < rowCount; row++) if (isLive(row)) live.push(row);
    const listCount = Math.max(1, Math.min(options.listCount, live.length));
    const sample = sampled(live, Math.min(live.length, listCount * options.samplePerList));
    const sampleRows = new Float32Array(sample.length * dimensions);
    sample.forEach((row, index) => sampleRows.set(rowAt(row), index * dimensions));
    const values = sampleRows.slice(0, listCount * dimensions);
    for (let iteration = 0; iteration < options.iterations; iteration++) {
      const centroids = new Centroids(dimensions, values);
      const sums = new Float64Array(listCount * dimensions);
      const counts = new Uint32Array(listCount);
      for (let index = 0; index < sample.length; index++) {
        const list = centroids.nearest(rowOf(sampleRows, index, dimensions));
        counts[list] = (counts[list] as number) + 1;
        const offset = index * dimensions;
        const sumOffset = list * dimensions;
        for (let value = 0; value < dimensions; value++) {
          sums[sumOffset + value] = (sums[sumOffset + value] as number) + (sampleRows[offset + value] as number);
        }
      }
      for (let list = 0; list < listCount; list++) {
        // An empty list starts again from a sample row, picked by its number so that training stays deterministic.
        const mean =
          counts[list] === 0
            ? rowOf(sampleRows, (list * 7919) % sample.length, dimensions)
            : normalize(sums.subarray(list * dimensions, (list + 1) * dimensions));
        values.set(mean, list * dimensions);
      }
    }
    const centroids = new Centroids(dimensions, values);
    const listOfRow = new Uint32Array(rowCount);
    for (const row of live) listOfRow[row] = centroids.nearest(rowAt(row));
    const lists = new InvertedLists(centroids);
    lists.reserveSegments(live.map((row) => listOfRow[row] as number));
    for (const row of live) lists.put(row, listOfRow[row] as number, rowAt(row));
    return lists;
  }

  /**
   * Lists read back from a snapshot of `rowCount` unit rows, given in order a block at a time by `rows` (float32 values
   * or float16 bit patterns); throws when they do not fit the rows.
   */
  static fromSnapshot(
    dimensions: number,
    snapshot: InvertedListsSnapshot,
    rows: Iterable<Float32Array | Uint16Array>,
    rowCount: number,
  ): InvertedLists {
    const { centroids, listOfRow } = snapshot;
    if (centroids.length === 0 || centroids.length % dimensions !== 0)
      throw new RangeError(`${centroids.length} centroid values for ${dimensions} dimensions`);
    if (listOfRow.length !== rowCount) throw new RangeError(`lists of ${listOfRow.length} rows for ${rowCount} rows`);
    const lists = new InvertedLists(new Centroids(dimensions, centroids.slice()));
    listOfRow.forEach((list, row) => {
      if (list >= lists.listCount) throw new RangeError(`row ${row} is in list ${list} of ${lists.listCount}`);
    });
    lists.reserveSegments(listOfRow);
    let row = 0;
    for (const block of rows) {
      for (let offset = 0; offset < block.length; offset += dimensions) {
        if (row === rowCount) throw new RangeError(`more rows than the ${rowCount} of the lists`);
        lists.put(row, listOfRow[row] as number, block.subarray(offset, offset + dimensions));
        row++;
      }
    }
    if (row !== rowCount) throw new RangeError(`${row} rows for lists of ${rowCount}`);
    return lists;
  }

  /** Puts a new row (numbered after every row put before) in the list of the centroid nearest its unit vector. */
  assign(row: number, unitVector: Float32Array): void {
    this.put(row, this.centroids.nearest(unitVector), unitVector);
  }

  /**
   * Approximate scores of the rows of the `probes` lists whose centroids are nearest the query, and of more lists if
   * those hold fewer than `minimumRows` rows. Removed rows are among them until the next renumbering.
   */
  score(unitQuery: Float32Array, probes: number, minimumRows: number): ListedScores {
    const chosen: number[] = [];
    let rowTotal = 0;
    for (const list of this.centroids.ranked(unitQuery)) {
      if (chosen.length >= probes && rowTotal >= minimumRows) break;
      chosen.push(list);
      rowTotal += this.rowsInList[list] as number;
    }
    // In the order they lie in memory, which reads about a tenth faster than in the order of their centroids.
    chosen.sort((left, right) => (this.segmentStart[left] as number) - (this.segmentStart[right] as number));
    const runs = chosen.map((list) => ({ first: this.segmentStart[list] as number, count: this.rowsInList[list] as number }));
    const { scores, margin } = this.codes.scoreRuns(unitQuery, runs);
    const rows = new Uint32Array(scores.length);
    let filled = 0;
    for (const { first, count } of runs) {
      rows.set(this.rowOfSlot.subarray(first, first + count), filled);
      filled += count;
    }
    return { scores, margin, rows };
  }

  /** No longer used: lets their memory go at the next collection (see Int8DotKernel.release). */
  release(): void {
    this.codes.release();
    this.centroids.release();
  }

  /**
   * Takes the rows' new numbers after the index renumbered them (newRow[old], or -1 for a removed row) and packs each
   * list's remaining rows to the front of its segment.
   */
  renumber(newRow: Int32Array): void {
    for (let list = 0; list < this.listCount; list++) {
      const start = this.segmentStart[list] as number;
      const end = start + (this.rowsInList[list] as number);
      let target = start;
      for (let slot = start; slot < end; slot++) {
        const row = newRow[this.rowOfSlot[slot] as number] as number;
        if (row < 0) continue;
        if (target !== slot) this.codes.copyRow(slot, target);
        this.rowOfSlot[target] = row;
        target++;
      }
      this.rowOfSlot.fill(noRow, target, end);
      this.rowsInList[list] = target - start;
    }
  }

  /**
   * The list of each of rows 0 to rowCount - 1, read from the lists, and the centroids: copies, for a snapshot. With
   * `newRow`, the rows are numbered as renumber would number them. Throws unless the lists hold exactly those rows.
   */
  toSnapshot(rowCount: number, newRow?: Int32Array): InvertedListsSnapshot {
    const listOfRow = new Uint32Array(rowCount).fill(noRow);
    for (let list = 0; list < this.listCount; list++) {
      const start = this.segmentStart[list] as number;
      for (let slot = start; slot < start + (this.rowsInList[list] as number); slot++) {
        const row = newRow === undefined ? (this.rowOfSlot[slot] as number) : (newRow[this.rowOfSlot[slot] as number] as number);
        if (row < 0) continue;
        if (row >= rowCount) throw new RangeError(`list ${list} holds row ${row} of ${rowCount}`);
        listOfRow[row] = list;
      }
    }
    const missing = listOfRow.indexOf(noRow);
    if (missing !== -1) throw new RangeError(`row ${missing} of ${rowCount} is in no list`);
    return { centroids: this.centroids.values.slice(), listOfRow };
  }

  private put(row: number, list: number, unitVector: Float32Array | Uint16Array): void {
    const count = this.rowsInList[list] as number;
    if (count === this.segmentSlots[list]) this.moveToSegment(list, segmentSlotsFor(count, 1.5));
    const slot = (this.segmentStart[list] as number) + count;
    this.codes.set(slot, unitVector);
    this.rowOfSlot[slot] = row;
    this.rowsInList[list] = count + 1;
  }

  /** Gives each list a segment with room for its rows among `listOfEachRow` and a quarter more, side by side. */
  private reserveSegments(listOfEachRow: ArrayLike<number>): void {
    const counts = new Uint32Array(this.listCount);
    for (let index = 0; index < listOfEachRow.length; index++) {
      const list = listOfEachRow[index] as number;
      counts[list] = (counts[list] as number) + 1;
    }
    counts.forEach((count, list) => this.moveToSegment(list, segmentSlotsFor(count, 1.25)));
  }

  /** Moves a list's rows to a segment of `slots` slots, leaving its old segment to the next list that grows to its size. */
  private moveToSegment(list: number, slots: number): void {
    const start = this.freeSegments.get(slots)?.pop() ?? this.takeSlots(slots);
    const oldStart = this.segmentStart[list] as number;
    const oldSlots = this.segmentSlots[list] as number;
    const count = this.rowsInList[list] as number;
    for (let index = 0; index < count; index++) this.codes.copyRow(oldStart + index, start + index);
    this.rowOfSlot.copyWithin(start, oldStart, oldStart + count);
    if (oldSlots > 0) {
      this.rowOfSlot.fill(noRow, oldStart, oldStart + oldSlots);
      const free = this.freeSegments.get(oldSlots);
      if (free === undefined) this.freeSegments.set(oldSlots, [oldStart]);
      else free.push(oldStart);
    }
    this.segmentStart[list] = start;
    this.segmentSlots[list] = slots;
  }

  /** `slots` new slots at the arena's end. */
  private takeSlots(slots: number): number {
    const start = this.slotsUsed;
    this.slotsUsed += slots;
    if (this.slotsUsed > this.rowOfSlot.length) {
      const capacity = Math.max(this.slotsUsed, Math.ceil(this.rowOfSlot.length * 1.5));
      const rowOfSlot = new Uint32Array(capacity).fill(noRow);
      rowOfSlot.set(this.rowOfSlot);
      this.rowOfSlot = rowOfSlot;
      this.codes.ensureCapacity(capacity);
    }
    return start;
  }
}

/** Slots for a segment of `rows` rows and room to grow by `growth`, in steps of 16 slots. */
function segmentSlotsFor(rows: number, growth: number): number {
  return Math.max(firstSegmentSlots, Math.ceil((rows * growth) / 16) * 16);
}

function rowOf(rows: Float32Array, row: number, dimensions: number): Float32Array {
  return rows.subarray(row * dimensions, (row + 1) * dimensions);
}

/** `count` of the items, in a seeded random order (the same items give the same sample). */
function sampled(items: readonly number[], count: number): number[] {
  const shuffled = items.slice();
  let state = 0x9e3779b9;
  for (let index = 0; index < count; index++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const other = index + (state % (shuffled.length - index));
    [shuffled[index], shuffled[other]] = [shuffled[other] as number, shuffled[index] as number];
  }
  return shuffled.slice(0, count);
}
