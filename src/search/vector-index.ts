// Exact cosine search over one namespace's chunk vectors, held as one contiguous Float32Array of unit rows.
import { dotAt, normalize } from './cosine.js';
import { TopK } from './top-k.js';

export interface VectorHit {
  readonly key: string;
  readonly score: number;
}

export class VectorIndex {
  private matrix: Float32Array;
  private keys: (string | undefined)[] = [];
  private readonly rowOfKey = new Map<string, number>();
  private removedRows = 0;

  constructor(readonly dimensions: number, initialCapacity = 64) {
    this.matrix = new Float32Array(dimensions * Math.max(1, initialCapacity));
  }

  get size(): number {
    return this.rowOfKey.size;
  }

  has(key: string): boolean {
    return this.rowOfKey.has(key);
  }

  /** Adds or replaces the vector of `key`; it is stored normalized, so scores are cosines. */
  add(key: string, vector: ArrayLike<number>): void {
    if (vector.length !== this.dimensions) {
      throw new RangeError(`vector of ${vector.length} dimensions in an index of ${this.dimensions}`);
    }
    this.remove(key);
    const row = this.keys.length;
    this.ensureCapacity(row + 1);
    this.matrix.set(normalize(vector), row * this.dimensions);
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

  search(query: ArrayLike<number>, limit: number): VectorHit[] {
    if (limit <= 0 || this.size === 0) return [];
    if (query.length !== this.dimensions) {
      throw new RangeError(`query of ${query.length} dimensions in an index of ${this.dimensions}`);
    }
    const unitQuery = normalize(query);
    const best = new TopK(limit);
    for (let row = 0; row < this.keys.length; row++) {
      if (this.keys[row] === undefined) continue;
      const score = dotAt(this.matrix, row * this.dimensions, unitQuery);
      if (score > best.threshold) best.offer(row, score);
    }
    return best.drain().map(({ id, score }) => ({ key: this.keys[id] as string, score }));
  }

  private ensureCapacity(rows: number): void {
    if (rows * this.dimensions <= this.matrix.length) return;
    const grown = new Float32Array(Math.max(rows, (this.matrix.length / this.dimensions) * 2) * this.dimensions);
    grown.set(this.matrix);
    this.matrix = grown;
  }

  private compact(): void {
    const keys: string[] = [];
    let target = 0;
    for (let row = 0; row < this.keys.length; row++) {
      const key = this.keys[row];
      if (key === undefined) continue;
      if (target !== row) this.matrix.copyWithin(target * this.dimensions, row * this.dimensions, (row + 1) * this.dimensions);
      this.rowOfKey.set(key, target);
      keys.push(key);
      target++;
    }
    this.keys = keys;
    this.removedRows = 0;
  }
}
