// Loads the int8-dot WebAssembly kernel (compiled once per process) and gives each caller its own growable memory.
import { readFileSync } from 'node:fs';

/** The part of the WebAssembly API used here: the project compiles without the DOM lib that declares it. */
interface WebAssemblyMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WebAssemblyMemory;
}
const { Module, Instance, Memory } = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

const pageBytes = 65536;
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

export interface ScoreRowsArguments {
  readonly query: number;
  readonly rows: number;
  readonly rowCount: number;
  readonly rowBytes: number;
  readonly rowScales: number;
  readonly scores: number;
  readonly queryScaleInverse: number;
}

type KernelFunction = (...values: number[]) => void;
interface KernelExports {
  readonly quantizeRows: KernelFunction;
  readonly scoreRows: KernelFunction;
}

/**
 * One instance with its own memory per index. V8 reserves about 10 GB of address space per WebAssembly memory
 * (only what is used is backed), which caps a process at roughly 13,000 of them: one per namespace with vectors.
 */
export class Int8DotKernel {
  private readonly memory: WebAssemblyMemory;
  private readonly exports: KernelExports;

  constructor(initialBytes: number) {
    this.memory = new Memory({ initial: Math.max(1, Math.ceil(initialBytes / pageBytes)) });
    const instance = new Instance(int8DotModule, { env: { memory: this.memory } });
    this.exports = instance.exports as unknown as KernelExports;
  }

  /** The current memory; a new ArrayBuffer after every growth (the old one is detached), so take views afresh. */
  get buffer(): ArrayBuffer {
    return this.memory.buffer;
  }

  /** Grows the memory to at least `bytes` (which detaches the old buffer). */
  reserve(bytes: number): void {
    const missingPages = Math.ceil((bytes - this.memory.buffer.byteLength) / pageBytes);
    if (missingPages > 0) this.memory.grow(missingPages);
  }

  quantizeRows({ staged, rowCount, rowBytes, rows, rowScales, errorStats }: QuantizeRowsArguments): void {
    this.exports.quantizeRows(staged, rowCount, rowBytes, rows, rowScales, errorStats);
  }

  scoreRows({ query, rows, rowCount, rowBytes, rowScales, scores, queryScaleInverse }: ScoreRowsArguments): void {
    this.exports.scoreRows(query, rows, rowCount, rowBytes, rowScales, scores, queryScaleInverse);
  }
}
