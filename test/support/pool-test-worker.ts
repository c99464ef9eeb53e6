// A worker for the WorkerPool tests: each job names what the worker does, including the ways a worker can go wrong.
import { KnowledgeError } from '../../src/errors.js';
import { serveJobs, uninterruptible } from '../../src/worker-pool.js';

export type PoolTestJob =
  | { readonly kind: 'echo'; readonly value: unknown }
  | { readonly kind: 'knowledge-error' }
  | { readonly kind: 'plain-error' }
  | { readonly kind: 'spin' }
  | { readonly kind: 'exhaust-memory' }
  | { readonly kind: 'exit' }
  | { readonly kind: 'thread-id' }
  /** Keeps `megabytes` of arrays until the next job, so the heap is that much larger when this job ends. */
  | { readonly kind: 'grow-heap'; readonly megabytes: number }
  /** Blocks in a call that must not be interrupted for `milliseconds`, as a native addon does, then sets `done[0]`. */
  | { readonly kind: 'uninterruptible-call'; readonly milliseconds: number; readonly done: Int32Array };

const hoard: unknown[] = [];
const kept: unknown[] = [];

serveJobs<PoolTestJob, unknown>(async (job) => {
  switch (job.kind) {
    case 'echo':
      return job.value;
    case 'knowledge-error':
      throw new KnowledgeError('document_unreadable', 'the fixture cannot read this');
    case 'plain-error':
      throw new Error('something unexpected');
    case 'spin':
      for (;;);
    case 'exhaust-memory':
      for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));
    case 'exit':
      process.exit(3);
    case 'thread-id':
      return (await import('node:worker_threads')).threadId;
    case 'grow-heap':
      // 1 MB arrays of small integers (8 bytes an element with pointer compression off, 4 with it on).
      kept.splice(0, kept.length, ...Array.from({ length: job.megabytes }, () => new Array(131_072).fill(1)));
      return (await import('node:worker_threads')).threadId;
    case 'uninterruptible-call':
      return uninterruptible(async () => {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, job.milliseconds);
        Atomics.store(job.done, 0, 1);
      });
  }
});
