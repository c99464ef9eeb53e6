// Exact cosine search over one namespace's chunk vectors: an int8 SIMD scan finds candidates, float32 rows rescore them.
import { dotAt, normalize } from './cosine.js';
import { grown, grownCapacity } from './growable-array.js';
import type { ScoredHit } from './scored-hit.js';
import { QuantizedRows } from './simd/quantized-rows.js';
import { TopK } from './top-k.js';

export class VectorIndex {
  /** Unit rows, contiguous; row i belongs to keys[i] (undefined once removed, until compaction). */
  private matrix: Float32Array;
  private readonly quantized: QuantizedRows;
  private keys: (string | undefined)[] = [];
  private readonly rowOfKey = new Map<string, number>();
  private removedRows = 0;

  constructor(
    readonly dimensions: number,
    initialCapacity = 64,
  ) {
    if (!Number.isInteger(dimensions) || dimensions < 1)
      throw new RangeError(`an index needs a whole number of dimensions, not ${dimensions}`);
    const capacity = Math.max(1, initialCapacity);
    this.matrix = new Float32Array(dimensions * capacity);
    this.quantized = new QuantizedRows(dimensions, capacity);
  }

  /** Loads unit rows laid out contiguously (keys[i] is row i), adopting `rows` without copying or renormalizing. */
  static fromRows(dimensions: number, keys: readonly string[], rows: Float32Array): VectorIndex {
    if (rows.length !== keys.length * dimensions) {
      throw new RangeError(`${rows.length} values for ${keys.length} rows of ${dimensions} dimensions`);
    }
    const index = new VectorIndex(dimensions, 0);
    index.matrix = rows;
    index.quantized.ensureCapacity(keys.length);
    index.keys = [...keys];
    keys.forEach((key, row) => {
      if (index.rowOfKey.has(key)) throw new RangeError(`key ${key} appears twice`);
      index.rowOfKey.set(key, row);
    });
    index.quantized.set(0, rows);
    return index;
  }

  get size(): number {
    return this.rowOfKey.size;
  }

  has(key: string): boolean {
    return this.rowOfKey.has(key);
  }

  /** A copy of the stored (unit) vector of `key`. */
  vector(key: string): Float32Array | undefined {
    const row = this.rowOfKey.get(key);
    return row === undefined ? undefined : this.matrix.slice(row * this.dimensions, (row + 1) * this.dimensions);
  }

  /** The stored (unit) vector of `key`: a view of the index's own storage, valid until the index next changes. */
  view(key: string): Float32Array | undefined {
    const row = this.rowOfKey.get(key);
    return row === undefined ? undefined : this.matrix.subarray(row * this.dimensions, (row + 1) * this.dimensions);
  }

  /**
   * The live keys and their unit vectors, contiguous (row i is keys[i]), for writing a snapshot.
   * `rows` is a view of the index's own storage, not a copy: valid until the index next changes.
   */
  liveRows(): { keys: string[]; rows: Float32Array } {
    if (this.removedRows > 0) this.compact();
    return { keys: this.keys.slice() as string[], rows: this.matrix.subarray(0, this.keys.length * this.dimensions) };
  }

  /** Adds or replaces the vector of `key`; it is stored normalized, so scores are cosines. */
  add(key: string, vector: ArrayLike<number>): void {
    if (vector.length !== this.dimensions) {
      throw new RangeError(`vector of ${vector.length} dimensions in an index of ${this.dimensions}`);
    }
    this.remove(key);
    const row = this.keys.length;
    this.ensureCapacity(row + 1);
    const unit = normalize(vector);
    this.matrix.set(unit, row * this.dimensions);
    this.quantized.set(row, unit);
    this.keys.push(key);
    this.rowOfKey.set(key, row);
  }

  remove(key: string): boolean {
    const row = this.rowOfKey.get(key);
    if (row === undefined) return false;
    this.rowOfKey.delete(key);
    this.keys[row] = undefined;
    this.removedRows++;
    if (this.removedRows > 1024 && this.removedRows * 4 > this.keys.length) this.compact();
    return true;
  }

  /**
   * The `limit` rows of highest cosine, best first, with the same keys, scores and order as an exact float32 scan.
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
    const { scores, margin } = this.quantized.score(unitQuery, this.keys.length);
    const count = Math.min(limit, this.size);
    const cutoff = this.floorOfApproximateBest(scores, count, unitQuery) - margin;
    const best = new TopK(count);
    for (let row = 0; row < scores.length; row++) {
      if ((scores[row] as number) >= cutoff && this.keys[row] !== undefined) best.offer(row, this.exactScore(row, unitQuery));
    }
    return best.drain().map(({ id, score }) => ({ key: this.keys[id] as string, score }));
  }

  /** The lowest exact score among the `count` live rows of best approximate score, so `count` rows reach it. */
  private floorOfApproximateBest(scores: Float32Array, count: number, unitQuery: Float32Array): number {
    const approximateBest = new TopK(count);
    let threshold = approximateBest.threshold; // a local, not the getter, halves the time of this loop
    for (let row = 0; row < scores.length; row++) {
      const score = scores[row] as number;
      if (score > threshold && this.keys[row] !== undefined) {
        approximateBest.offer(row, score);
        threshold = approximateBest.threshold;
      }
    }
    let floor = Number.POSITIVE_INFINITY;
    for (const { id } of approximateBest.drain()) floor = Math.min(floor, this.exactScore(id, unitQuery));
    return floor;
  }

  private exactScore(row: number, unitQuery: Float32Array): number {
    return dotAt(this.matrix, row * this.dimensions, unitQuery);
  }

  private ensureCapacity(rows: number): void {
    this.quantized.ensureCapacity(rows);
    if (rows * this.dimensions <= this.matrix.length) return;
    this.matrix = grown(this.matrix, grownCapacity(this.matrix.length / this.dimensions, rows) * this.dimensions);
  }

  private compact(): void {
    const keys: string[] = [];
    let target = 0;
    for (let row = 0; row < this.keys.length; row++) {
      const key = this.keys[row];
      if (key === undefined) continue;
      if (target !== row) {
        this.matrix.copyWithin(target * this.dimensions, row * this.dimensions, (row + 1) * this.dimensions);
        this.quantized.copyRow(row, target);
      }
      this.rowOfKey.set(key, target);
      keys.push(key);
      target++;
    }
    this.keys = keys;
    this.removedRows = 0;
  }
}
