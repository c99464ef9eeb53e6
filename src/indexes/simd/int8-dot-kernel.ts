// Loads the int8-dot WebAssembly kernel (compiled once per process) and gives each caller its own growable memory,
// shared so that the scan helper's thread (scan-helper.ts) can score part of a large scan.
import { readFileSync } from 'node:fs';
import { forgetKernel, helperFromRows, pieceRows, scanHelper, type ScanPiece, type ScoreArguments } from './scan-helper.js';

/** The part of the WebAssembly API used here: the project compiles without the DOM lib that declares it. */
interface WebAssemblyMemory {
  readonly buffer: ArrayBufferLike;
  grow(pages: number): number;
}
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WebAssemblyMemory;
}
const { Module, Instance, Memory } = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

const pageBytes = 65536;
/** wasm32's whole address space, the maximum the kernel's shared memory declares. */
const maximumPages = 65536;
const int8DotModule = new Module(readFileSync(new URL('./int8-dot.wasm', import.meta.url)));

/** Byte offsets into the kernel's memory and counts; see int8-dot.wat for the layout. */
export interface QuantizeRowsArguments {
  readonly staged: number;
  readonly rowCount: number;
  readonly rowBytes: number;
  readonly rows: number;
  readonly rowScales: number;
  readonly errorStats: number;
}

type KernelFunction = (...values: number[]) => void;
export interface KernelExports {
  readonly quantizeRows: KernelFunction;
  readonly quantizeHalfRows: KernelFunction;
  readonly scoreRows: KernelFunction;
}

/** An instance of the kernel over `memory` (a kernel's, possibly from another thread). */
export function instantiateKernel(memory: object): KernelExports {
  return new Instance(int8DotModule, { env: { memory } }).exports as unknown as KernelExports;
}

let kernelsCreated = 0;
/** Tells the scan helper to drop its instance over a collected kernel's memory, which it would otherwise keep alive. */
const collected = new FinalizationRegistry<number>(forgetKernel);

/**
 * One instance with its own memory per index. V8 reserves about 10 GB of address space per WebAssembly memory
 * (only what is used is backed), which caps a process at roughly 13,000 of them: one per namespace with vectors.
 */
export class Int8DotKernel {
  private readonly id = ++kernelsCreated;
  private readonly memory: WebAssemblyMemory;
  private readonly exports: KernelExports;

  constructor(initialBytes: number) {
    this.memory = new Memory({ initial: Math.max(1, Math.ceil(initialBytes / pageBytes)), maximum: maximumPages, shared: true });
    this.exports = instantiateKernel(this.memory);
    collected.register(this, this.id);
  }

  /**
   * No longer used: a scan helper holding this memory lets it go now rather than once this kernel is collected, so
   * the memory is freed by the next collection (one an index's next large allocation brings, say). Still usable: a
   * later large scan gives it to a helper again, and its collection then ends that helper as before.
   */
  release(): void {
    forgetKernel(this.id);
  }

  /** The current memory; a new buffer after every growth, so take views afresh. */
  get buffer(): ArrayBufferLike {
    return this.memory.buffer;
  }

  /** Grows the memory to at least `bytes`. */
  reserve(bytes: number): void {
    const missingPages = Math.ceil((bytes - this.memory.buffer.byteLength) / pageBytes);
    if (missingPages > 0) this.memory.grow(missingPages);
  }

  quantizeRows({ staged, rowCount, rowBytes, rows, rowScales, errorStats }: QuantizeRowsArguments): void {
    this.exports.quantizeRows(staged, rowCount, rowBytes, rows, rowScales, errorStats);
  }

  /** quantizeRows over float16 rows at `halves`, which the kernel widens into `staged` first. */
  quantizeHalfRows(halves: number, { staged, rowCount, rowBytes, rows, rowScales, errorStats }: QuantizeRowsArguments): void {
    this.exports.quantizeHalfRows(halves, staged, rowCount, rowBytes, rows, rowScales, errorStats);
  }

  /**
   * Scores each run of rows into its scores (see int8-dot.wat). A scan of many rows is cut into pieces that the scan
   * helper's thread shares; the scores are the same either way.
   */
  scoreRuns({ query, rowBytes, queryScaleInverse }: ScoreArguments, runs: readonly ScanPiece[]): void {
    const scorePiece = ({ rows, rowCount, rowScales, scores }: ScanPiece) =>
      this.exports.scoreRows(query, rows, rowCount, rowBytes, rowScales, scores, queryScaleInverse);
    const rowTotal = runs.reduce((total, run) => total + run.rowCount, 0);
    const helper = rowTotal >= helperFromRows ? scanHelper() : undefined;
    if (helper === undefined) {
      for (const run of runs) scorePiece(run);
      return;
    }
    const pieces = runs.flatMap((run) => cutIntoPieces(run, rowBytes));
    helper.score(this.id, this.memory, { query, rowBytes, queryScaleInverse, pieces }, scorePiece);
  }
}

/** A run cut into pieces of at most `pieceRows` rows. */
function cutIntoPieces(run: ScanPiece, rowBytes: number): ScanPiece[] {
  const pieces: ScanPiece[] = [];
  for (let first = 0; first < run.rowCount; first += pieceRows) {
    pieces.push({
      rows: run.rows + first * rowBytes,
      rowCount: Math.min(pieceRows, run.rowCount - first),
      rowScales: run.rowScales + first * 4,
      scores: run.scores + first * 4,
    });
  }
  return pieces;
}
