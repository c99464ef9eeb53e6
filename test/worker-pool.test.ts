// The worker pool: results and errors cross the thread boundary; a worker past its time or memory limit, or one that
// exits, fails only its own job and is replaced; the pool never runs more workers than its size.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, describe, it } from 'node:test';
import { KnowledgeError } from '../src/errors.js';
import { WorkerPool, workerEntry, type WorkerFailure } from '../src/worker-pool.js';
import type { PoolTestJob } from './support/pool-test-worker.js';

const failureCodes = {
  'timed-out': 'conversion_timed_out',
  'out-of-memory': 'conversion_out_of_memory',
  crashed: 'document_unreadable',
} as const;

function createPool(size: number, replaceAboveHeapMb?: number): WorkerPool {
  const pool = new WorkerPool({
    entry: workerEntry(import.meta.url, 'support/pool-test-worker'),
    size,
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
    ...(replaceAboveHeapMb === undefined ? {} : { replaceAboveHeapMb }),
    failure: (reason: WorkerFailure, detail) => new KnowledgeError(failureCodes[reason], `${reason}: ${detail}`),
  });
  after(() => pool.close());
  return pool;
}

const run = (pool: WorkerPool, job: PoolTestJob, timeoutMs?: number) =>
  pool.run<unknown>(job, timeoutMs === undefined ? {} : { timeoutMs });

describe('WorkerPool', () => {
  it('returns what the worker returns and rethrows a KnowledgeError with its code', async () => {
    const pool = createPool(1);
    assert.deepEqual(await run(pool, { kind: 'echo', value: { list: [1, 'two'], bytes: new Uint8Array([3]) } }), {
      list: [1, 'two'],
      bytes: new Uint8Array([3]),
    });
    await assert.rejects(run(pool, { kind: 'knowledge-error' }), {
      name: 'KnowledgeError',
      code: 'document_unreadable',
      message: 'the fixture cannot read this',
    });
    await assert.rejects(
      run(pool, { kind: 'plain-error' }),
      (error: unknown) => !(error instanceof KnowledgeError) && (error as Error).message === 'something unexpected',
    );
  });

  it('stops a job past its time limit and serves the next job with a new worker', async () => {
    const pool = createPool(1);
    const before = await run(pool, { kind: 'thread-id' });
    await assert.rejects(run(pool, { kind: 'spin' }, 200), { code: 'conversion_timed_out' });
    const afterwards = await run(pool, { kind: 'thread-id' });
    assert.notEqual(afterwards, before);
  });

  it('fails a job past its time limit at once, but stops its worker only after its uninterruptible call', async () => {
    // Terminating a thread inside onnxruntime's run aborted the whole process; such a call now runs to its end.
    const pool = createPool(1);
    await run(pool, { kind: 'echo', value: 'started' }); // the limit counts from the job's start, the worker's start-up included
    const done = new Int32Array(new SharedArrayBuffer(4));
    await assert.rejects(run(pool, { kind: 'uninterruptible-call', milliseconds: 2000, done }, 100), { code: 'conversion_timed_out' });
    assert.equal(Atomics.load(done, 0), 0, 'the job failed before its call returned');
    assert.equal(await run(pool, { kind: 'echo', value: 'a new worker' }), 'a new worker');
    await pool.close();
    assert.equal(Atomics.load(done, 0), 1, 'the call ran to its end before its worker stopped');
  });

  it('stops a worker past its memory limit without harming the process', async () => {
    const pool = createPool(1);
    await assert.rejects(run(pool, { kind: 'exhaust-memory' }), { code: 'conversion_out_of_memory' });
    assert.equal(await run(pool, { kind: 'echo', value: 'still serving' }), 'still serving');
  });

  it('replaces a worker whose heap grew past the bound during a job, and keeps one that stayed small', async () => {
    const pool = createPool(1, 40);
    const small = await run(pool, { kind: 'grow-heap', megabytes: 1 });
    assert.equal(await run(pool, { kind: 'thread-id' }), small, 'a worker with a small heap serves the next job');
    const grown = await run(pool, { kind: 'grow-heap', megabytes: 48 });
    assert.equal(grown, small);
    assert.notEqual(await run(pool, { kind: 'thread-id' }), grown, 'the grown worker was replaced');
  });

  it('fails the job of a worker that exits, and replaces it', async () => {
    const pool = createPool(1);
    await assert.rejects(run(pool, { kind: 'exit' }), { code: 'document_unreadable', message: /exited with code 3/ });
    assert.equal(await run(pool, { kind: 'echo', value: 1 }), 1);
  });

  it('runs at most `size` jobs at once, the rest in order', async () => {
    const pool = createPool(2);
    const threads = await Promise.all(Array.from({ length: 6 }, () => run(pool, { kind: 'thread-id' })));
    assert.ok(new Set(threads).size <= 2, `jobs ran in ${new Set(threads).size} workers`);
  });

  it('stops listening to the signal of a job once it is done, so a long-lived signal collects no listeners', async () => {
    const pool = createPool(1);
    const controller = new AbortController();
    for (let job = 0; job < 12; job++) {
      assert.equal(await pool.run({ kind: 'echo', value: job }, { signal: controller.signal }), job);
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    }
    await assert.rejects(pool.run({ kind: 'knowledge-error' }, { signal: controller.signal }), { code: 'document_unreadable' });
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('drops a waiting job when its signal aborts, and refuses jobs once closed', async () => {
    const pool = createPool(1);
    const running = run(pool, { kind: 'spin' }, 300);
    const controller = new AbortController();
    const waiting = pool.run({ kind: 'echo', value: 'never' }, { signal: controller.signal });
    controller.abort();
    await assert.rejects(waiting, { name: 'AbortError' });
    await assert.rejects(running, { code: 'conversion_timed_out' });
    await pool.close();
    await assert.rejects(run(pool, { kind: 'echo', value: 1 }), { code: 'shutting_down' });
  });
});
