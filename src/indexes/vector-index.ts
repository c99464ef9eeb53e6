// Cosine search over one namespace's chunk vectors: an int8 SIMD scan finds candidates, float32 rows rescore them.
// The scan covers every row (exact) or, past a size, only the rows of the inverted lists nearest the query.
import { normalize } from './cosine.js';
import { roundToFloat16 } from './float16.js';
import { defaultTraining, InvertedLists, type InvertedListsSnapshot, type TrainingOptions } from './inverted-lists.js';
import type { ScoredHit } from './scored-hit.js';
import { type ApproximateScores, QuantizedRows } from './simd/quantized-rows.js';
import { TopK } from './top-k.js';
import { type RowsInFile, UnitRows } from './unit-rows.js';

/** When searches go through inverted lists instead of scanning every row; see docs/performance.md for the figures. */
export interface ApproximateSearch {
  /** Live rows from which the lists are trained and used; below half as many, searches are exact again. */
  readonly fromRows: number;
  /** Lists scanned per search, nearest first... */
  readonly probes: number;
  /** ...and more while they hold fewer rows than this: recall depends on the share of rows scanned more than on N. */
  readonly scannedRows: number;
  readonly training: TrainingOptions;
}

/**
 * Chosen on the scale benchmark's chunks (`npm run bench:vectors`, and its namespace of a million chunks), whose hash
 * embeddings cluster poorly, so a real model's vectors do at least as well: recall@10 against exact search 0.95 to 0.98
 * from 200,000 to 1,000,000 rows, at a third to three quarters of exact search's time. 384 probes: the service's own
 * million-chunk namespaces reached 0.947 to 0.954 with 320, 0.948 to 0.956 with 352, and 0.954 on the worst of them
 * (its lists trained on all of its rows at once) with 384. Below 200,000 rows exact search is fast enough (5 ms).
 */
export const defaultApproximateSearch: ApproximateSearch = {
  fromRows: 200_000,
  probes: 384,
  scannedRows: 100_000,
  training: defaultTraining,
};

/** The rows and, past the size where searches use them, the inverted lists of a vector index, for a snapshot. */
export interface LiveRows {
  readonly keys: string[];
  /** The rows of keys[0], keys[1]..., a block at a time, read from the index's own storage: read them before it next changes. */
  readonly rows: () => Iterable<Float32Array>;
  /** The same as float16, as they are stored: what index files are written from (see UnitRows.halfRow). */
  readonly halves: () => Iterable<Uint16Array>;
  readonly lists?: InvertedListsSnapshot;
  /** The index's state when these rows were taken: `readRowsFrom` takes a file of them only while it is unchanged. */
  readonly version: number;
}

export class VectorIndex {
  /** Unit rows; row i belongs to keys[i] (undefined once removed, until compaction). */
  private rows: UnitRows;
  /** The int8 codes of every row, in row order, scanned whole: only while there are no inverted lists. */
  private flat: QuantizedRows | undefined;
  private keys: (string | undefined)[] = [];
  private readonly rowOfKey = new Map<string, number>();
  private removedRows = 0;
  private lists: InvertedLists | undefined;
  /** Live rows when the lists were trained: they are trained again on four times as many. */
  private rowsAtTraining = 0;
  /** Counts changes to the rows and their numbers (see LiveRows.version). */
  private version = 0;

  constructor(
    readonly dimensions: number,
    initialCapacity = 64,
    private readonly approximate: ApproximateSearch = defaultApproximateSearch,
  ) {
    if (!Number.isInteger(dimensions) || dimensions < 1)
      throw new RangeError(`an index needs a whole number of dimensions, not ${dimensions}`);
    const capacity = Math.max(1, initialCapacity);
    this.rows = new UnitRows(dimensions, capacity);
    this.flat = new QuantizedRows(dimensions, capacity);
  }

  /**
   * Loads unit rows (keys[i] is row i) without renormalizing them: laid out contiguously in memory, adopted without
   * copying, or in a file, which the index then owns and reads rows from on demand. The inverted lists stored with
   * them are restored (trained here when the rows need lists and none were stored).
   */
  static fromRows(
    dimensions: number,
    keys: readonly string[],
    rows: Float32Array | Uint16Array | RowsInFile,
    lists?: InvertedListsSnapshot,
    approximate: ApproximateSearch = defaultApproximateSearch,
  ): VectorIndex {
    const index = new VectorIndex(dimensions, 0, approximate);
    const inMemory = rows instanceof Float32Array || rows instanceof Uint16Array;
    index.rows = inMemory ? UnitRows.inMemory(dimensions, rows) : UnitRows.inFile(dimensions, rows);
    try {
      const values = inMemory ? rows.length : rows.count * dimensions;
      if (values !== keys.length * dimensions) {
        throw new RangeError(`${values} values for ${keys.length} rows of ${dimensions} dimensions`);
      }
      index.keys = [...keys];
      keys.forEach((key, row) => {
        if (index.rowOfKey.has(key)) throw new RangeError(`key ${key} appears twice`);
        index.rowOfKey.set(key, row);
      });
      if (lists !== undefined && keys.length >= approximate.fromRows / 2) {
        index.lists = InvertedLists.fromSnapshot(dimensions, lists, index.rows.quantizable(), keys.length);
        index.rowsAtTraining = keys.length;
        index.flat = undefined;
      } else {
        index.scanWhole();
        index.trainWhenDue();
      }
    } catch (error) {
      index.close();
      throw error;
    }
    return index;
  }

  get size(): number {
    return this.rowOfKey.size;
  }

  /** Rows whose float32 values are held in memory rather than read from a file (removed rows included). */
  get rowsInMemory(): number {
    return this.rows.inMemory;
  }

  has(key: string): boolean {
    return this.rowOfKey.has(key);
  }

  /** A copy of the stored (unit) vector of `key`. */
  vector(key: string): Float32Array | undefined {
    return this.view(key)?.slice();
  }

  /** The stored (unit) vector of `key`: a view valid until the next call of any method of the index. */
  view(key: string): Float32Array | undefined {
    const row = this.rowOfKey.get(key);
    return row === undefined ? undefined : this.rows.row(row);
  }

  /** The stored (unit, float16) vector of `key` as float16 values: a view valid until the next call of any method of the index. */
  halfView(key: string): Uint16Array | undefined {
    const row = this.rowOfKey.get(key);
    return row === undefined ? undefined : this.rows.halfRow(row);
  }

  /**
   * The live keys and their unit vectors (row i is keys[i]), and the inverted lists: for a snapshot. Rows read from a
   * file are not read in to leave out removed ones: the removed rows are left out as the rows are read.
   */
  liveRows(): LiveRows {
    if (this.removedRows > 0 && !this.rows.readsFile) this.compact();
    const newRow = this.removedRows > 0 ? this.liveRowNumbers() : undefined;
    const keys = this.keys.filter((key) => key !== undefined);
    const rows = () => this.rows.pieces(newRow);
    const halves = () => this.rows.halfPieces(newRow);
    const version = this.version;
    return this.lists === undefined
      ? { keys, rows, halves, version }
      : { keys, rows, halves, lists: this.lists.toSnapshot(keys.length, newRow), version };
  }

  /**
   * Reads the rows from `file` from now on, when it holds the rows `liveRows` gave at `version` and nothing changed
   * since: true then; otherwise the file is closed and nothing changes. The file is the index's to close either way.
   */
  readRowsFrom(file: RowsInFile, version: number): boolean {
    if (version !== this.version || file.count !== this.size) {
      UnitRows.inFile(this.dimensions, file).close();
      return false;
    }
    if (this.removedRows > 0) this.renumber(this.liveRowNumbers());
    this.rows.replaceWith(file);
    return true;
  }

  /** Closes the file rows are read from, if any: the index is not used after this. */
  close(): void {
    this.rows.close();
    this.lists?.release();
    this.flat?.release();
  }

  /** Whether searches go through inverted lists (approximate) rather than every row. */
  get approximates(): boolean {
    return this.lists !== undefined;
  }

  /**
   * Adds or replaces the vector of `key`; it is stored normalized, so scores are cosines, and rounded to float16, the
   * precision its files keep, so that it searches the same once written and read back.
   */
  add(key: string, vector: ArrayLike<number>): void {
    if (vector.length !== this.dimensions) {
      throw new RangeError(`vector of ${vector.length} dimensions in an index of ${this.dimensions}`);
    }
    this.remove(key);
    const row = this.keys.length;
    this.ensureCapacity(row + 1);
    const unit = normalize(vector);
    roundToFloat16(unit);
    this.rows.append(unit);
    this.version++;
    this.keys.push(key);
    this.rowOfKey.set(key, row);
    if (this.lists !== undefined && this.size < 4 * this.rowsAtTraining) this.lists.assign(row, unit);
    else {
      this.flat?.set(row, unit);
      this.trainWhenDue();
    }
  }

  remove(key: string): boolean {
    const row = this.rowOfKey.get(key);
    if (row === undefined) return false;
    this.rowOfKey.delete(key);
    this.keys[row] = undefined;
    this.removedRows++;
    this.version++;
    if (this.removedRows > 1024 && this.removedRows * 4 > this.keys.length) this.compact();
    if (this.lists !== undefined && this.size < this.approximate.fromRows / 2) this.scanWhole();
    return true;
  }

  /**
   * The `limit` rows of highest cosine, best first. Without inverted lists: the same keys, scores and order as an
   * exact float32 scan. With them: the same among the rows of the lists scanned.
   * The approximate scores are within `margin` of the exact ones, so once `limit` rows are known to score at least
   * `floor` exactly, only rows scoring at least `floor - margin` approximately can be among the best: those are
   * rescored exactly. Their number adapts to the data instead of being a fixed candidate pool.
   */
  search(query: ArrayLike<number>, limit: number): ScoredHit[] {
    if (limit <= 0 || this.size === 0) return [];
    if (query.length !== this.dimensions) {
      throw new RangeError(`query of ${query.length} dimensions in an index of ${this.dimensions}`);
    }
    const unitQuery = normalize(query);
    const count = Math.min(limit, this.size);
    // Removed rows stay in the lists until compaction, so ask for enough rows that `count` live ones are likely.
    const scannedRows = Math.max(this.approximate.scannedRows, 2 * count + this.removedRows);
    const {
      scores,
      margin,
      rows: listed,
    }: ApproximateScores & { rows?: Uint32Array } = this.lists?.score(unitQuery, this.approximate.probes, scannedRows) ??
    (this.flat as QuantizedRows).score(unitQuery, this.keys.length);
    const cutoff = this.floorOfApproximateBest(scores, listed, count, unitQuery) - margin;
    const best = new TopK(count);
    for (let index = 0; index < scores.length; index++) {
      if ((scores[index] as number) < cutoff) continue;
      const row = listed === undefined ? index : (listed[index] as number);
      if (this.keys[row] !== undefined) best.offer(row, this.exactScore(row, unitQuery));
    }
    return best.drain().map(({ id, score }) => ({ key: this.keys[id] as string, score }));
  }

  /**
   * The lowest exact score among the `count` live rows of best approximate score, so `count` rows reach it.
   * scores[i] is the score of row i, or of row listed[i] when only listed rows were scored.
   */
  private floorOfApproximateBest(scores: Float32Array, listed: Uint32Array | undefined, count: number, unitQuery: Float32Array): number {
    const approximateBest = new TopK(count);
    let threshold = approximateBest.threshold; // a local, not the getter, halves the time of this loop
    for (let index = 0; index < scores.length; index++) {
      const score = scores[index] as number;
      if (score <= threshold) continue;
      const row = listed === undefined ? index : (listed[index] as number);
      if (this.keys[row] !== undefined) {
        approximateBest.offer(row, score);
        threshold = approximateBest.threshold;
      }
    }
    let floor = Number.POSITIVE_INFINITY;
    for (const { id } of approximateBest.drain()) floor = Math.min(floor, this.exactScore(id, unitQuery));
    return floor;
  }

  /** Trains the inverted lists once the index is large enough to need them, and again each time it has grown fourfold. */
  private trainWhenDue(): void {
    if (this.size < this.approximate.fromRows || (this.lists !== undefined && this.size < 4 * this.rowsAtTraining)) return;
    // The codes searched so far go first: training allocates as much again, and the collections that brings free the
    // old ones instead of leaving them resident beside the new lists (at 800,000 rows, 500 MB for half a minute).
    this.releaseCodes();
    try {
      this.lists = InvertedLists.train(
        this.dimensions,
        (row) => this.rows.row(row),
        this.keys.length,
        (row) => this.keys[row] !== undefined,
        this.approximate.training,
      );
    } catch (error) {
      this.scanWhole();
      throw error;
    }
    this.rowsAtTraining = this.size;
  }

  private releaseCodes(): void {
    this.lists?.release();
    this.lists = undefined;
    this.flat?.release();
    this.flat = undefined;
  }

  /** Quantizes every row for whole scans, dropping the inverted lists (loading, or once the index has shrunk). */
  private scanWhole(): void {
    this.releaseCodes();
    this.flat = new QuantizedRows(this.dimensions, this.rows.count);
    let row = 0;
    for (const piece of this.rows.quantizable()) {
      this.flat.set(row, piece);
      row += piece.length / this.dimensions;
    }
  }

  private exactScore(row: number, unitQuery: Float32Array): number {
    return this.rows.dot(row, unitQuery);
  }

  private ensureCapacity(rows: number): void {
    this.flat?.ensureCapacity(rows);
    this.rows.ensureCapacity(rows);
  }

  /** newRow[row]: the number of row `row` once the removed rows are left out, or -1 for a removed row. */
  private liveRowNumbers(): Int32Array {
    const newRow = new Int32Array(this.keys.length).fill(-1);
    let target = 0;
    for (let row = 0; row < this.keys.length; row++) if (this.keys[row] !== undefined) newRow[row] = target++;
    return newRow;
  }

  private compact(): void {
    const newRow = this.liveRowNumbers();
    this.rows.keepOnly(newRow, this.size);
    this.renumber(newRow);
  }

  /** Renumbers everything but the float rows (see compact) by `newRow` (see liveRowNumbers). */
  private renumber(newRow: Int32Array): void {
    const keys: string[] = [];
    for (let row = 0; row < this.keys.length; row++) {
      const key = this.keys[row];
      const target = newRow[row] as number;
      if (key === undefined || target < 0) continue;
      if (target !== row) this.flat?.copyRow(row, target);
      this.rowOfKey.set(key, target);
      keys.push(key);
    }
    this.keys = keys;
    this.removedRows = 0;
    this.lists?.renumber(newRow);
    this.version++;
  }
}
