// A vector index's unit rows: in memory, or, after a snapshot, the ones the snapshot holds read from its file on demand
// and only the rows added since in memory. At a million rows of 384 dimensions that keeps 0.75 GB out of the resident
// set: searches read only the few dozen rows they rescore exactly (docs/performance.md). Rows are float16 values (the
// index rounds them so as they are added, the way they are stored), so memory holds them as float16 too: half the
// bytes of float32, decoded as they are read.
import { closeSync, readSync } from 'node:fs';
import { dotAt } from './cosine.js';
import { decodeFloat16, encodeFloat16 } from './float16.js';
import { grown, grownCapacity } from './growable-array.js';

/** Rows lying contiguously in an open file from `byteOffset`, as little-endian values; whoever receives it closes `fd`. */
export interface RowsInFile {
  readonly fd: number;
  readonly byteOffset: number;
  readonly count: number;
  /** float16 in snapshots of format 4 on, float32 before. */
  readonly encoding: RowEncoding;
}

export type RowEncoding = 'float32' | 'float16';

export const bytesPerValue: Readonly<Record<RowEncoding, number>> = { float32: 4, float16: 2 };

/** Rows read from a file per read when they are read in order (a snapshot or index.json being written). */
const readAheadRows = 256;

/** Closes the files of rows nobody closed before they were collected (an index read only to be inspected, say). */
const unclosedFiles = new FinalizationRegistry<number>((fd) => closeSync(fd));

export class UnitRows {
  private file: RowsInFile | undefined;
  /** The rows after the file's, as float16: memory row i is row fileRows + i. */
  private memory: Uint16Array;
  private memoryRows = 0;
  /**
   * File rows read ahead, for reads in order: rows readAheadFirst to readAheadFirst + readAheadCount - 1, as the file
   * holds them (float16 rows are decoded one at a time as they are asked for: a search may read two rows in order and
   * no more).
   */
  private readonly readAhead: Uint8Array;
  private readAheadFirst = 0;
  private readAheadCount = 0;
  private lastRead = -2;
  /** A file row read on its own (not in order), as the file holds it. */
  private readonly singleBytes: Uint8Array;
  /** A float16 row decoded, given back by `row`. */
  private readonly decoded: Float32Array;
  /** A float32 row encoded, given back by `halfRow`. */
  private readonly encoded: Uint16Array;

  constructor(
    readonly dimensions: number,
    capacity: number,
  ) {
    this.memory = new Uint16Array(dimensions * Math.max(1, capacity));
    this.readAhead = new Uint8Array(dimensions * readAheadRows * bytesPerValue.float32);
    this.singleBytes = new Uint8Array(dimensions * bytesPerValue.float32);
    this.decoded = new Float32Array(dimensions);
    this.encoded = new Uint16Array(dimensions);
  }

  /** Adopts float16 `rows` (laid out contiguously) without copying them; float32 rows are encoded. */
  static inMemory(dimensions: number, rows: Uint16Array | Float32Array): UnitRows {
    const unitRows = new UnitRows(dimensions, 0);
    if (rows instanceof Float32Array) {
      unitRows.memory = new Uint16Array(rows.length);
      encodeFloat16(rows, unitRows.memory);
    } else unitRows.memory = rows;
    unitRows.memoryRows = rows.length / dimensions;
    return unitRows;
  }

  /** Rows read from `file` on demand; the file is now this object's to close. */
  static inFile(dimensions: number, file: RowsInFile): UnitRows {
    const unitRows = new UnitRows(dimensions, 0);
    unitRows.useFile(file);
    return unitRows;
  }

  get count(): number {
    return this.fileRows + this.memoryRows;
  }

  /** Whether some rows are read from a file rather than held in memory. */
  get readsFile(): boolean {
    return this.file !== undefined;
  }

  /** Rows held in memory (the others are read from the file). */
  get inMemory(): number {
    return this.memoryRows;
  }

  /** Row `row`: a view valid until the next call of any method here. */
  row(row: number): Float32Array {
    const fileRows = this.fileRows;
    if (row >= fileRows) {
      decodeFloat16(this.memoryRow(row - fileRows), this.decoded);
      return this.decoded;
    }
    const bytes = this.fileRowBytes(row);
    if ((this.file as RowsInFile).encoding === 'float32') return new Float32Array(bytes.buffer, bytes.byteOffset, this.dimensions);
    decodeFloat16(new Uint16Array(bytes.buffer, bytes.byteOffset, this.dimensions), this.decoded);
    return this.decoded;
  }

  /**
   * Row `row` as float16, as index.json and the snapshot store it: read from a float16 file without decoding, so that
   * writing them again costs no conversion. A view valid until the next call of any method here.
   */
  halfRow(row: number): Uint16Array {
    if (row >= this.fileRows) return this.memoryRow(row - this.fileRows);
    if ((this.file as RowsInFile).encoding === 'float32') {
      encodeFloat16(this.row(row), this.encoded);
      return this.encoded;
    }
    const bytes = this.fileRowBytes(row);
    return new Uint16Array(bytes.buffer, bytes.byteOffset, this.dimensions);
  }

  /** A file row's bytes as the file holds them: from the rows read ahead, which a read in order refills, or read alone. */
  private fileRowBytes(row: number): Uint8Array {
    const file = this.file as RowsInFile;
    const rowBytes = this.dimensions * bytesPerValue[file.encoding];
    const inOrder = row === this.lastRead + 1;
    this.lastRead = row;
    if (row < this.readAheadFirst || row >= this.readAheadFirst + this.readAheadCount) {
      if (!inOrder) {
        const single = this.singleBytes.subarray(0, rowBytes);
        this.readFileRows(row, single);
        return single;
      }
      this.readAheadFirst = row;
      this.readAheadCount = Math.min(readAheadRows, this.fileRows - row);
      this.readFileRows(row, this.readAhead.subarray(0, this.readAheadCount * rowBytes));
    }
    const start = (row - this.readAheadFirst) * rowBytes;
    return this.readAhead.subarray(start, start + rowBytes);
  }

  dot(row: number, query: Float32Array): number {
    return dotAt(this.row(row), 0, query);
  }

  /** Appends a unit row (kept as float16: round it first, and it reads back the same). */
  append(unit: Float32Array): void {
    this.ensureCapacity(this.count + 1);
    encodeFloat16(unit, this.memoryRow(this.memoryRows));
    this.memoryRows++;
  }

  private memoryRow(memoryRow: number): Uint16Array {
    return this.memory.subarray(memoryRow * this.dimensions, (memoryRow + 1) * this.dimensions);
  }

  /** Room for `rows` rows in all without growing again. */
  ensureCapacity(rows: number): void {
    const memoryRows = rows - this.fileRows;
    if (memoryRows * this.dimensions <= this.memory.length) return;
    this.memory = grown(this.memory, grownCapacity(this.memory.length / this.dimensions, memoryRows) * this.dimensions);
  }

  /** Every row as float16, contiguous in memory; rows read from a file are read in, and the file closed. */
  private contiguous(): Uint16Array {
    if (this.file !== undefined) {
      const rows = new Uint16Array(this.count * this.dimensions);
      for (let row = 0; row < this.fileRows; row++) rows.set(this.halfRow(row), row * this.dimensions);
      rows.set(this.memory.subarray(0, this.memoryRows * this.dimensions), this.fileRows * this.dimensions);
      this.memoryRows = this.count;
      this.memory = rows;
      this.dropFile();
    }
    return this.memory.subarray(0, this.memoryRows * this.dimensions);
  }

  /** Keeps the rows with newRow[row] >= 0, row `row` becoming row newRow[row] (numbers in the same order, from 0). */
  keepOnly(newRow: Int32Array, kept: number): void {
    const rows = this.contiguous();
    for (let row = 0; row < newRow.length; row++) {
      const target = newRow[row] as number;
      if (target >= 0 && target !== row) rows.copyWithin(target * this.dimensions, row * this.dimensions, (row + 1) * this.dimensions);
    }
    this.memoryRows = kept;
  }

  /**
   * The rows with newRow[row] >= 0 (every row without `newRow`), in order, a block at a time: each block is valid until
   * the next one is asked for. What the lists and whole scans are built from, without a second copy of the rows.
   */
  pieces(newRow?: Int32Array): Generator<Float32Array> {
    return this.inBlocks(new Float32Array(readAheadRows * this.dimensions), newRow, (row) => this.row(row));
  }

  /**
   * The rows for the int8 kernel to quantize, a block at a time: as float16 bit patterns (which it widens faster than
   * they are decoded here) unless they are read from a file of float32 rows, which it takes as they are.
   */
  quantizable(): Generator<Float32Array | Uint16Array> {
    return this.file?.encoding === 'float32' ? this.pieces() : this.halfPieces();
  }

  /** The same rows as float16, as they are stored (see halfRow), a block at a time: what index files are written from. */
  *halfPieces(newRow?: Int32Array): Generator<Uint16Array> {
    if (this.file === undefined && newRow === undefined) {
      yield this.memory.subarray(0, this.memoryRows * this.dimensions);
      return;
    }
    yield* this.inBlocks(new Uint16Array(readAheadRows * this.dimensions), newRow, (row) => this.halfRow(row));
  }

  /** The rows `rowOf` gives, newRow[row] >= 0 only, copied into `block` a block at a time. */
  private *inBlocks<T extends Float32Array | Uint16Array>(
    block: T,
    newRow: Int32Array | undefined,
    rowOf: (row: number) => T,
  ): Generator<T> {
    let filled = 0;
    for (let row = 0; row < this.count; row++) {
      if (newRow !== undefined && (newRow[row] as number) < 0) continue;
      block.set(rowOf(row), filled * this.dimensions);
      if (++filled === readAheadRows) {
        yield block;
        filled = 0;
      }
    }
    if (filled > 0) yield block.subarray(0, filled * this.dimensions) as T;
  }

  /** Reads every row from `file` from now on (it holds exactly this object's rows, renumbered as the caller says). */
  replaceWith(file: RowsInFile): void {
    this.dropFile();
    this.memory = new Uint16Array(this.dimensions);
    this.memoryRows = 0;
    this.useFile(file);
  }

  /** Closes the file rows are read from, if any; the rows are no longer readable after that. */
  close(): void {
    this.dropFile();
    this.memory = new Uint16Array(0);
    this.memoryRows = 0;
  }

  private get fileRows(): number {
    return this.file?.count ?? 0;
  }

  private useFile(file: RowsInFile): void {
    this.file = file;
    this.readAheadCount = 0;
    this.lastRead = -2;
    unclosedFiles.register(this, file.fd, this);
  }

  private dropFile(): void {
    if (this.file === undefined) return;
    unclosedFiles.unregister(this);
    closeSync(this.file.fd);
    this.file = undefined;
    this.readAheadCount = 0;
  }

  /** Reads file rows from `first` on, as the file holds them, into `bytes` (a whole number of rows). */
  private readFileRows(first: number, bytes: Uint8Array): void {
    const file = this.file as RowsInFile;
    const rowBytes = this.dimensions * bytesPerValue[file.encoding];
    if (!readWhole(file.fd, file.byteOffset + first * rowBytes, bytes))
      throw new Error(`the vector rows' file ends before row ${first + bytes.byteLength / rowBytes}`);
  }
}

/** Fills `bytes` from `fd` at `position`; false when the file ends first. */
export function readWhole(fd: number, position: number, bytes: Uint8Array): boolean {
  for (let done = 0; done < bytes.byteLength; ) {
    const read = readSync(fd, bytes, done, bytes.byteLength - done, position + done);
    if (read === 0) return false;
    done += read;
  }
  return true;
}

/** The `length` values of `pieces` (see UnitRows.pieces, and halfPieces with Uint16Array) copied into one array. */
export function joinedRows(pieces: Iterable<Float32Array>, length: number): Float32Array;
export function joinedRows(pieces: Iterable<Uint16Array>, length: number, Type: Uint16ArrayConstructor): Uint16Array;
export function joinedRows(
  pieces: Iterable<Float32Array | Uint16Array>,
  length: number,
  Type: Float32ArrayConstructor | Uint16ArrayConstructor = Float32Array,
): Float32Array | Uint16Array {
  const rows = new Type(length);
  let filled = 0;
  for (const piece of pieces) {
    rows.set(piece, filled);
    filled += piece.length;
  }
  if (filled !== length) throw new RangeError(`${filled} values where ${length} were expected`);
  return rows;
}
