// Int8 copies of unit vectors in WebAssembly memory, scored all at once by the SIMD kernel, with a bound on the error.
// Each row has its own scale (its largest component maps to 127), so a row never depends on the others and adding,
// replacing or removing rows needs no requantization.
import { Int8DotKernel } from './int8-dot-kernel.js';
import { grownCapacity } from '../growable-array.js';

export interface ApproximateScores {
  /** Approximate cosine of row i at index i; a view into the kernel's memory, valid until the next call. */
  readonly scores: Float32Array;
  /** No row's exact cosine (as computed in float32) differs from its approximate score by more than this. */
  readonly margin: number;
}

const bytesPerFloat = 4;
const bytesPerHalf = 2;
const largestInt16 = 32767;
/** Bounds a query's total scale so that 127 x sum|query| stays below 2^31, the range of the kernel's i32 sums. */
const largestQueryMass = 2 ** 24;
/**
 * Covers float32 rounding, which the bound below leaves out: the kernel's score products and its sums of squares
 * add up to about 5e-7 for unit vectors, so this leaves a wide berth and costs nothing next to the error itself.
 */
const roundingSlack = 1e-5;
/** Float rows copied into the kernel's memory per quantization call. */
const stagedRowCount = 64;

export class QuantizedRows {
  /** Bytes per int8 row: dimensions rounded up to the kernel's 16-byte step, zero-padded. */
  readonly rowBytes: number;
  private readonly kernel: Int8DotKernel;
  private capacity: number;
  private bytes!: Int8Array;
  private halfWords!: Int16Array;
  private halves!: Uint16Array;
  private floats!: Float32Array;
  // Layout (see int8-dot.wat): error stats, query, staged float rows, staged float16 rows, int8 rows, scales, scores.
  // The rows come before everything whose size depends on the capacity, so growing leaves them in place and moves
  // only the scales.
  private readonly errorStatsOffset = 0;
  private readonly queryOffset = 16;
  private readonly stagedOffset: number;
  private readonly stagedHalvesOffset: number;
  private readonly rowsOffset: number;

  constructor(
    readonly dimensions: number,
    capacity: number,
  ) {
    this.rowBytes = Math.ceil(dimensions / 16) * 16;
    this.stagedOffset = this.queryOffset + this.rowBytes * 2;
    this.stagedHalvesOffset = this.stagedOffset + stagedRowCount * this.rowBytes * bytesPerFloat;
    this.rowsOffset = this.stagedHalvesOffset + stagedRowCount * this.rowBytes * bytesPerHalf;
    this.capacity = Math.max(1, capacity);
    this.kernel = new Int8DotKernel(this.scoresOffset + this.capacity * bytesPerFloat);
    this.takeViews();
  }

  ensureCapacity(rows: number): void {
    if (rows <= this.capacity) return;
    const oldScales = this.scalesOffset / bytesPerFloat;
    const oldCapacity = this.capacity;
    this.capacity = grownCapacity(oldCapacity, rows);
    this.kernel.reserve(this.scoresOffset + this.capacity * bytesPerFloat);
    this.takeViews();
    this.floats.copyWithin(this.scalesOffset / bytesPerFloat, oldScales, oldScales + oldCapacity);
  }

  /**
   * Quantizes the unit vectors laid out contiguously in `unitRows` into rows firstRow, firstRow + 1, ...: float32
   * values, or float16 bit patterns, which give the same rows as their values (the kernel widens them).
   */
  set(firstRow: number, unitRows: Float32Array | Uint16Array): void {
    const rowCount = unitRows.length / this.dimensions;
    const halves = unitRows instanceof Uint16Array;
    const [target, staged] = halves
      ? [this.halves, this.stagedHalvesOffset / bytesPerHalf]
      : [this.floats, this.stagedOffset / bytesPerFloat];
    for (let blockStart = 0; blockStart < rowCount; blockStart += stagedRowCount) {
      const blockRows = Math.min(stagedRowCount, rowCount - blockStart);
      // Each staged row is padded to rowBytes values; the padding is never written, so it stays zero.
      for (let row = 0; row < blockRows; row++) {
        const from = (blockStart + row) * this.dimensions;
        target.set(unitRows.subarray(from, from + this.dimensions), staged + row * this.rowBytes);
      }
      const block = {
        staged: this.stagedOffset,
        rowCount: blockRows,
        rowBytes: this.rowBytes,
        rows: this.rowsOffset + (firstRow + blockStart) * this.rowBytes,
        rowScales: this.scalesOffset + (firstRow + blockStart) * bytesPerFloat,
        errorStats: this.errorStatsOffset,
      };
      if (halves) this.kernel.quantizeHalfRows(this.stagedHalvesOffset, block);
      else this.kernel.quantizeRows(block);
    }
  }

  /** Copies row `from` over row `to`, padding included (for compaction). */
  copyRow(from: number, to: number): void {
    this.bytes.copyWithin(
      this.rowsOffset + to * this.rowBytes,
      this.rowsOffset + from * this.rowBytes,
      this.rowsOffset + (from + 1) * this.rowBytes,
    );
    const scales = this.scalesOffset / bytesPerFloat;
    this.floats[scales + to] = this.floats[scales + from] as number;
  }

  /** Approximate cosines of rows 0 to rowCount - 1 with a unit query, and their error bound. */
  score(unitQuery: Float32Array, rowCount: number): ApproximateScores {
    return this.scoreRuns(unitQuery, [{ first: 0, count: rowCount }]);
  }

  /**
   * Approximate cosines with a unit query of the rows of each run (rows first to first + count - 1), run after run,
   * and their error bound. Runs may not overlap.
   */
  scoreRuns(unitQuery: Float32Array, runs: readonly { readonly first: number; readonly count: number }[]): ApproximateScores {
    const { scale, error } = this.writeQuery(unitQuery);
    let scored = 0;
    const pieces = runs.map(({ first, count }) => {
      const piece = {
        rows: this.rowsOffset + first * this.rowBytes,
        rowCount: count,
        rowScales: this.scalesOffset + first * bytesPerFloat,
        scores: this.scoresOffset + scored * bytesPerFloat,
      };
      scored += count;
      return piece;
    });
    this.kernel.scoreRuns({ query: this.queryOffset, rowBytes: this.rowBytes, queryScaleInverse: scale === 0 ? 0 : 1 / scale }, pieces);
    // exact - approximate = rowError . query + dequantizedRow . queryError: Cauchy-Schwarz on each, with |query| = 1
    // and the largest row error and dequantized row norm the kernel has seen (kept, never lowered, so always safe).
    const stats = this.errorStatsOffset / bytesPerFloat;
    const largestRowError = Math.sqrt(this.floats[stats] as number);
    const largestRowNorm = Math.sqrt(this.floats[stats + 1] as number);
    const margin = largestRowError + largestRowNorm * error + roundingSlack;
    const scores = this.scoresOffset / bytesPerFloat;
    return { scores: this.floats.subarray(scores, scores + scored), margin };
  }

  /** Writes the query as 16-bit integers; returns their scale and the L2 norm of the rounding error. */
  private writeQuery(unitQuery: Float32Array): { scale: number; error: number } {
    let largestComponent = 0;
    let mass = 0;
    for (const component of unitQuery) {
      largestComponent = Math.max(largestComponent, Math.abs(component));
      mass += Math.abs(component);
    }
    const scale = largestComponent === 0 ? 0 : Math.min(largestInt16 / largestComponent, largestQueryMass / mass);
    const start = this.queryOffset / 2; // the padding after the components is never written, so it stays zero
    let errorSquares = 0;
    for (let index = 0; index < this.dimensions; index++) {
      const component = unitQuery[index] as number;
      const level = Math.round(component * scale);
      this.halfWords[start + index] = level;
      errorSquares += scale === 0 ? 0 : (component - level / scale) ** 2;
    }
    return { scale, error: Math.sqrt(errorSquares) };
  }

  private get scalesOffset(): number {
    return this.rowsOffset + this.capacity * this.rowBytes;
  }

  private get scoresOffset(): number {
    return this.scalesOffset + this.capacity * bytesPerFloat;
  }

  /** No longer used: see Int8DotKernel.release. */
  release(): void {
    this.kernel.release();
  }

  private takeViews(): void {
    const buffer = this.kernel.buffer;
    this.bytes = new Int8Array(buffer);
    this.halfWords = new Int16Array(buffer);
    this.halves = new Uint16Array(buffer);
    this.floats = new Float32Array(buffer);
  }
}
