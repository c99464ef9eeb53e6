// A bounded pool of worker threads for CPU-heavy jobs (document conversion, the local embedding model), so they never
// block the event loop. Each job may have a time limit and each worker has a memory limit; a worker that overruns
// either, crashes or exits is replaced, and only its job fails. A worker inside a native call (`uninterruptible`) is
// never terminated there: it stops itself once the call returns.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { parentPort, Worker, type ResourceLimits, type Transferable } from 'node:worker_threads';
import { KnowledgeError, type ErrorCode } from './errors.js';

/** Why the pool stopped a job: the caller turns it into an error of its own catalogue code. */
export type WorkerFailure = 'timed-out' | 'out-of-memory' | 'crashed';

export interface WorkerPoolOptions {
  /** The worker's module (see `workerEntry`). */
  readonly entry: URL;
  /** Most workers at once; more jobs wait in order. */
  readonly size: number;
  /** Heap limits of each worker (megabytes); a worker over them is stopped and replaced. */
  readonly resourceLimits: ResourceLimits;
  /** Handed to every worker as `workerData`. */
  readonly workerData?: unknown;
  /** The error a job fails with when its worker had to be stopped (`detail` says how). */
  readonly failure: (reason: WorkerFailure, detail: string) => KnowledgeError;
  /**
   * A worker whose heap has grown past this (megabytes) by the end of a job is replaced rather than kept: V8 keeps a
   * grown heap's pages long after a large job, and a new thread gives them back to the system at once.
   */
  readonly replaceAboveHeapMb?: number;
}

export interface JobOptions {
  /** Wall time from the job's start (a new worker's start-up included); past it the worker is stopped (milliseconds). */
  readonly timeoutMs?: number;
  /** Buffers moved to the worker instead of copied. */
  readonly transfer?: readonly Transferable[];
  /** Rejects the job with the signal's reason; a job still waiting for a worker is dropped. */
  readonly signal?: AbortSignal;
}

interface Job {
  readonly message: unknown;
  readonly options: JobOptions;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface PoolWorker {
  readonly thread: Worker;
  /** One Int32 shared with the thread: whether it may be terminated now (see `uninterruptible`). */
  readonly stopGate: Int32Array;
  readonly exited: Promise<void>;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The states of a worker's stop gate. Terminating a thread inside a native call can abort the whole process:
 * onnxruntime-node's binding, when its run returns into a thread being stopped, cannot hand its error to JavaScript,
 * and node-addon-api then throws a C++ exception out of the call (`terminate called after throwing an instance of
 * 'Napi::Error'`, SIGABRT). JavaScript is safe to terminate.
 */
const runningJavaScript = 0;
const inNativeCall = 1;
/** The pool is terminating the thread: no native call may start. */
const terminating = 2;
/** The pool wants the thread gone: it exits as soon as its native call returns. */
const stopAfterCall = 3;

/** What a worker posts back for a job, with the size its heap has after it (bytes). */
type JobReply = ({ readonly result: unknown } | { readonly error: { readonly code: ErrorCode | undefined; readonly message: string } }) & {
  readonly heapBytes: number;
};

/**
 * The worker module named `name` beside `moduleUrl`, with the caller's own extension: `.js` in the compiled dist/,
 * `.ts` when the sources run under tsx (tests, `npm run dev`).
 */
export function workerEntry(moduleUrl: string, name: string): URL {
  return new URL(`./${name}${extname(fileURLToPath(moduleUrl))}`, moduleUrl);
}

/**
 * A TypeScript entry (tests, `npm run dev`) is loaded through tsx's loader, registered inside the worker first: on
 * Node 20 a worker does not get the loader hooks of `--import tsx` from its parent. tsx is resolved only then, so the
 * compiled service never needs it.
 */
let typeScriptLoader: string | undefined;

/** Starts the worker thread of `entry`, a compiled module or (under tsx) a TypeScript one. */
export function startThread(
  entry: URL,
  options: { workerData: unknown; resourceLimits?: ResourceLimits; transferList?: Transferable[] },
): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  // Resolved once: under tsx, resolving waits on its loader thread, which a busy machine makes slow.
  typeScriptLoader ??= import.meta.resolve('tsx/esm/api');
  const loader = typeScriptLoader;
  const bootstrap = `import(${JSON.stringify(loader)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

export class WorkerPool {
  private readonly workers = new Set<PoolWorker>();
  private readonly idle: PoolWorker[] = [];
  private readonly queue: Job[] = [];
  /** Retired threads until they have exited (one inside a native call finishes it first). */
  private readonly stopping = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1)
      throw new RangeError(`a worker pool needs at least one worker, got ${options.size}`);
  }

  /** Runs one job in a worker and resolves with what the worker's handler returned (rejects with what it threw). */
  run<Result>(message: unknown, options: JobOptions = {}): Promise<Result> {
    if (this.closed) return Promise.reject(new KnowledgeError('shutting_down', 'the worker pool is closed'));
    options.signal?.throwIfAborted();
    return new Promise<Result>((resolve, reject) => {
      const { signal } = options;
      const onAbort = () => {
        // A job still waiting is dropped; a running one finishes in its worker, unheard.
        const position = this.queue.indexOf(job);
        if (position !== -1) this.queue.splice(position, 1);
        reject(signal?.reason);
      };
      // The listener goes with the job: a long-lived signal shared by many jobs must not collect them.
      const settle =
        <Value>(finish: (value: Value) => void) =>
        (value: Value) => {
          signal?.removeEventListener('abort', onAbort);
          finish(value);
        };
      const job: Job = { message, options, resolve: settle(resolve as (value: unknown) => void), reject: settle(reject) };
      this.queue.push(job);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.dispatch();
    });
  }

  /** Stops every worker and waits until each thread has exited; waiting jobs fail with `shutting_down`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0))
      job.reject(new KnowledgeError('shutting_down', 'the worker pool closed before this job started'));
    for (const worker of [...this.workers]) void this.retire(worker);
    await Promise.all(this.stopping);
  }

  private dispatch(): void {
    while (this.queue.length > 0 && (this.idle.length > 0 || this.workers.size < this.options.size)) {
      const worker = this.idle.pop() ?? this.spawn();
      this.start(worker, this.queue.shift() as Job);
    }
  }

  private spawn(): PoolWorker {
    const thread = startThread(this.options.entry, { workerData: this.options.workerData, resourceLimits: this.options.resourceLimits });
    const stopGate = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    const worker: PoolWorker = { thread, stopGate, exited, job: undefined, timer: undefined };
    this.workers.add(worker);
    // serveJobs takes the first message as the gate, every later one as a job.
    thread.postMessage(stopGate);
    thread.on('message', (reply: JobReply) => this.finish(worker, reply));
    thread.on('error', (error: Error & { code?: string }) => {
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.fail(
        worker,
        outOfMemory ? 'out-of-memory' : 'crashed',
        outOfMemory ? 'it needed more memory than a worker may use' : error.message,
      );
    });
    thread.on('exit', (exitCode) => this.fail(worker, 'crashed', `its worker exited with code ${exitCode}`));
    // Only a worker with a job keeps the process alive (unref after the listeners: adding one refs the port again).
    thread.unref();
    return worker;
  }

  private start(worker: PoolWorker, job: Job): void {
    worker.job = job;
    worker.thread.ref();
    const { timeoutMs } = job.options;
    if (timeoutMs !== undefined) {
      worker.timer = setTimeout(() => this.fail(worker, 'timed-out', `it took longer than ${timeoutMs} ms`), timeoutMs);
    }
    worker.thread.postMessage(job.message, job.options.transfer as Transferable[] | undefined);
  }

  private finish(worker: PoolWorker, reply: JobReply): void {
    const job = this.settle(worker);
    if (job === undefined) return;
    if ('result' in reply) job.resolve(reply.result);
    else
      job.reject(
        reply.error.code === undefined ? new Error(reply.error.message) : new KnowledgeError(reply.error.code, reply.error.message),
      );
    const { replaceAboveHeapMb } = this.options;
    if (replaceAboveHeapMb !== undefined && reply.heapBytes > replaceAboveHeapMb * 1024 * 1024) void this.retire(worker);
    else {
      worker.thread.unref();
      this.idle.push(worker);
    }
    this.dispatch();
  }

  /** The worker's job fails for `reason`; the worker is stopped, and a later job gets a fresh one. */
  private fail(worker: PoolWorker, reason: WorkerFailure, detail: string): void {
    const job = this.settle(worker);
    job?.reject(this.options.failure(reason, detail));
    void this.retire(worker);
    this.dispatch();
  }

  private settle(worker: PoolWorker): Job | undefined {
    clearTimeout(worker.timer);
    const job = worker.job;
    worker.job = undefined;
    worker.timer = undefined;
    return job;
  }

  private async retire(worker: PoolWorker): Promise<void> {
    if (!this.workers.delete(worker)) return;
    const position = this.idle.indexOf(worker);
    if (position !== -1) this.idle.splice(position, 1);
    worker.thread.removeAllListeners('message');
    // The thread may run on until its native call returns (one text's inference): its replacement may start meanwhile.
    const stopped = requestStop(worker.stopGate) ? worker.thread.terminate().then(() => undefined) : worker.exited;
    this.stopping.add(stopped);
    await stopped;
    this.stopping.delete(stopped);
  }
}

/** Whether the thread may be terminated at once; otherwise it has been asked to exit when its native call returns. */
function requestStop(stopGate: Int32Array): boolean {
  for (;;) {
    const state = Atomics.compareExchange(stopGate, 0, runningJavaScript, terminating);
    if (state === runningJavaScript || state === terminating) return true;
    if (state === stopAfterCall) return false;
    if (Atomics.compareExchange(stopGate, 0, inNativeCall, stopAfterCall) === inNativeCall) return false;
    // The call returned in between: try again.
  }
}

/**
 * The worker side: answers each job the pool posts with `handle`'s result, or with the error it threw (a
 * KnowledgeError keeps its code; any other error reaches the caller as a plain Error). The worker runs `niceness`
 * levels below the event loop's priority (default 10: background work).
 */
export function serveJobs<Message, Result>(
  handle: (message: Message) => Result | Promise<Result>,
  options: { niceness?: number } = {},
): void {
  const port = parentPort;
  if (port === null) throw new Error('serveJobs runs only in a worker thread');
  const niceness = options.niceness ?? backgroundNiceness;
  if (niceness > 0) lowerThreadPriority(niceness);
  // The pool's first message is this worker's stop gate; every later one is a job.
  port.once('message', (gate: Int32Array) => {
    stopGate = gate;
    port.on('message', (message: Message) => {
      Promise.resolve()
        .then(() => handle(message))
        .then(
          (result) => port.postMessage({ result, heapBytes: heapBytes() } satisfies JobReply),
          (error: unknown) => {
            const code = error instanceof KnowledgeError ? error.code : undefined;
            const message = error instanceof Error ? error.message : String(error);
            port.postMessage({ error: { code, message }, heapBytes: heapBytes() } satisfies JobReply);
          },
        );
    });
  });
}

const heapBytes = () => getHeapStatistics().total_heap_size;

/** This worker's stop gate, from its pool; undefined outside a pool's worker (nothing terminates that thread). */
let stopGate: Int32Array | undefined;

/**
 * Runs `call`, which calls into a native addon (onnxruntime), so that the pool never terminates this thread inside
 * it: a job past its time limit fails at once, and the thread exits as soon as the call returns.
 */
export async function uninterruptible<Result>(call: () => Promise<Result>): Promise<Result> {
  const gate = stopGate;
  if (gate === undefined) return call();
  if (Atomics.compareExchange(gate, 0, runningJavaScript, inNativeCall) !== runningJavaScript)
    throw new Error('this worker is being stopped');
  try {
    return await call();
  } finally {
    if (Atomics.compareExchange(gate, 0, inNativeCall, runningJavaScript) === stopAfterCall) process.exit(0);
  }
}

/** How much lower than the event loop's thread a background worker runs (nice levels). */
const backgroundNiceness = 10;

/**
 * Jobs are background work: when the cores are busy, the event loop's thread (health checks, searches) should get
 * the CPU first. On Linux `/proc/thread-self` names this thread's id, and a priority set on a thread id applies to
 * that thread alone (threads it starts later inherit it). Elsewhere workers keep the
 * process's priority.
 */
function lowerThreadPriority(niceness: number): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(threadId) || threadId === process.pid) return;
    setPriority(threadId, Math.min(19, getPriority(threadId) + niceness));
  } catch {
    // No /proc (macOS, Windows) or no permission: the worker runs at the process's priority.
  }
}
