// A second thread that scores part of a large search's rows. A scan of a few hundred thousand int8 rows runs at the
// memory bandwidth one core gets (about 5 GB/s on a shared 2-core VM, where two cores together got 9): the kernels'
// memories are shared, so the rows are split into pieces that this thread and the helper claim one at a time, and
// the search waits only for a piece the helper is scoring. A helper that is slow to wake costs nothing: the calling
// thread takes every piece left. Both threads compute a piece's scores with the same kernel, so who scores what does
// not change a result. Not started where only one core is available.
import { availableParallelism } from 'node:os';
import { MessageChannel, type Worker } from 'node:worker_threads';
import { startThread, workerEntry } from '../../worker-pool.js';

/**
 * Words of the control buffer both threads share: `signal` counts jobs and messages (the helper waits on it); `cursor`
 * is the job's number (15 bits) above its next unclaimed piece, so that a claim is one compare-exchange that fails
 * once the job has changed, and `pieceCount` the job's number above its count of pieces; `done` counts the job's
 * scored pieces.
 */
export const control = {
  signal: 0,
  cursor: 1,
  done: 2,
  kernel: 3,
  query: 4,
  rowBytes: 5,
  pieceCount: 6,
  queryScaleInverse: 7,
  /** Pieces the helper has scored since it started: for tests and diagnostics. */
  helperPieces: 8,
  /** The first word of the pieces: four words each (rows, row count, row scales, scores). */
  pieces: 16,
} as const;

/** Pieces of one job at most; a larger job is scored by the calling thread alone. */
const pieceCapacity = 8192;
const controlWords = control.pieces + 4 * pieceCapacity;
/** Jobs with fewer rows than this are scored by the calling thread alone: waking the helper costs more than it saves. */
export const helperFromRows = 32_768;
/** Rows of a piece at most: small enough for both threads to finish near the same time. */
export const pieceRows = 8192;
/** How long the caller waits for a piece the helper claimed before it gives up on the helper. */
const pieceTimeoutMs = 10_000;

/** A piece of a scan: byte offsets into a kernel's memory, and its row count. */
export interface ScanPiece {
  readonly rows: number;
  readonly rowCount: number;
  readonly rowScales: number;
  readonly scores: number;
}

/** What every piece of a scan shares: byte offsets into the kernel's memory and the query's scale. */
export interface ScoreArguments {
  readonly query: number;
  readonly rowBytes: number;
  readonly queryScaleInverse: number;
}

export interface ScanJob extends ScoreArguments {
  readonly pieces: readonly ScanPiece[];
}

/** A message to the helper: a kernel's memory to instantiate the kernel over. */
export interface HelperMessage {
  readonly register: number;
  readonly memory: object;
}

class ScanHelper {
  private readonly words = new Int32Array(new SharedArrayBuffer(controlWords * 4));
  private readonly floats = new Float32Array(this.words.buffer);
  private readonly thread: Worker;
  private readonly port: MessageChannel['port1'];
  private readonly registered = new Set<number>();
  private job = 0;
  private alive = true;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.thread = startThread(workerEntry(import.meta.url, 'scan-helper-worker'), {
      workerData: { control: this.words, port: port2 },
      transferList: [port2],
    });
    this.thread.unref();
    this.port.unref();
    this.thread.on('error', () => (this.alive = false));
    this.thread.on('exit', () => (this.alive = false));
  }

  get usable(): boolean {
    return this.alive;
  }

  /**
   * Scores the job's pieces with the kernel `kernelId` over `memory`, with the helper's help; `scorePiece` scores
   * one piece on the calling thread.
   */
  score(kernelId: number, memory: object, job: ScanJob, scorePiece: (piece: ScanPiece) => void): void {
    const { words } = this;
    const count = job.pieces.length;
    if (count > pieceCapacity) {
      for (const piece of job.pieces) scorePiece(piece);
      return;
    }
    if (!this.registered.has(kernelId)) {
      this.registered.add(kernelId);
      this.post({ register: kernelId, memory });
    }
    this.job = (this.job % 0x7fff) + 1;
    job.pieces.forEach((piece, index) => {
      const at = control.pieces + 4 * index;
      words[at] = piece.rows;
      words[at + 1] = piece.rowCount;
      words[at + 2] = piece.rowScales;
      words[at + 3] = piece.scores;
    });
    words[control.kernel] = kernelId;
    words[control.query] = job.query;
    words[control.rowBytes] = job.rowBytes;
    words[control.pieceCount] = (this.job << 16) | count;
    this.floats[control.queryScaleInverse] = job.queryScaleInverse;
    Atomics.store(words, control.done, 0);
    // The job's fields are written before its number: the helper reads them only once it holds a claim on it.
    Atomics.store(words, control.cursor, this.job << 16);
    this.wake();
    for (let piece = claimPiece(words, this.job); piece !== -1; piece = claimPiece(words, this.job)) {
      scorePiece(job.pieces[piece] as ScanPiece);
      Atomics.add(words, control.done, 1);
    }
    for (let done = Atomics.load(words, control.done); done !== count; done = Atomics.load(words, control.done)) {
      if (Atomics.wait(words, control.done, done, pieceTimeoutMs) === 'timed-out' && Atomics.load(words, control.done) === done) {
        // The helper claimed a piece and never finished it: it is stuck or gone, and is not asked again.
        this.stop();
        throw new Error(`the vector scan's helper thread left a piece unscored for ${pieceTimeoutMs / 1000} s`);
      }
    }
  }

  /** Whether the helper holds an instance over the memory of kernel `kernelId`. */
  holds(kernelId: number): boolean {
    return this.registered.has(kernelId);
  }

  stop(): void {
    this.alive = false;
    void this.thread.terminate();
  }

  /** Pieces the helper has scored since it started. */
  get helperPieces(): number {
    return Atomics.load(this.words, control.helperPieces);
  }

  private post(message: HelperMessage): void {
    this.port.postMessage(message);
    this.wake();
  }

  private wake(): void {
    Atomics.add(this.words, control.signal, 1);
    Atomics.notify(this.words, control.signal);
  }
}

/** Claims the next unclaimed piece of job `job`: its index, or -1 when none is left or the job is over. */
export function claimPiece(words: Int32Array, job: number): number {
  for (;;) {
    const cursor = Atomics.load(words, control.cursor);
    // The count carries its job's number too: the next job's count is written before its number reaches the cursor,
    // and must not let a late claim on this job past this job's last piece.
    const counted = Atomics.load(words, control.pieceCount);
    if (cursor >>> 16 !== job || counted >>> 16 !== job || (cursor & 0xffff) >= (counted & 0xffff)) return -1;
    if (Atomics.compareExchange(words, control.cursor, cursor, cursor + 1) === cursor) return cursor & 0xffff;
  }
}

let helper: ScanHelper | undefined;

/** The process's scan helper, started at the first use; undefined with a single core or once it has failed. */
export function scanHelper(): ScanHelper | undefined {
  if (availableParallelism() < 2) return undefined;
  helper ??= new ScanHelper();
  return helper.usable ? helper : undefined;
}

/** Pieces the helper has scored since it started (0 before it starts): for tests. */
export function helperPiecesScored(): number {
  return helper?.helperPieces ?? 0;
}

/**
 * A kernel was collected: a helper holding its memory is stopped, and the next large scan starts another. The
 * helper's thread sleeps and allocates almost nothing, so it would collect a dropped instance (and the memory of an
 * evicted namespace's index with it) only at some distant garbage collection; ending the thread frees it at once.
 * Kernels are collected rarely: a namespace closed or evicted, lists trained anew.
 */
export function forgetKernel(kernelId: number): void {
  if (helper?.holds(kernelId) !== true) return;
  helper.stop();
  helper = undefined;
}
