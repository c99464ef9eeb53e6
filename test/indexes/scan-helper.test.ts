// A large scan is shared with the scan helper's thread: its scores must be exactly those the calling thread computes
// alone, whoever scored which piece, and the helper must actually take part where there are two cores.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { normalize } from '../../src/indexes/cosine.js';
import { helperFromRows, helperPiecesScored } from '../../src/indexes/simd/scan-helper.js';
import { QuantizedRows } from '../../src/indexes/simd/quantized-rows.js';
import { seededRandom } from '../support/durability-documents.js';

const dimensions = 384;
/** Enough rows for the helper, with room for runs that leave some out. */
const rowCount = 3 * helperFromRows;

function randomUnitRows(count: number, seed: number): Float32Array {
  const next = seededRandom(seed);
  const rows = new Float32Array(count * dimensions);
  for (let row = 0; row < count; row++) {
    rows.set(normalize(Float32Array.from({ length: dimensions }, () => next() * 2 - 1)), row * dimensions);
  }
  return rows;
}

/** The scores of `runs`, each run scored by a call of its own below the helper's size: the calling thread's alone. */
function scoredAlone(rows: QuantizedRows, query: Float32Array, runs: readonly { first: number; count: number }[]): number[] {
  const scores: number[] = [];
  for (const { first, count } of runs) {
    for (let start = first; start < first + count; start += helperFromRows - 1) {
      const part = { first: start, count: Math.min(helperFromRows - 1, first + count - start) };
      scores.push(...rows.scoreRuns(query, [part]).scores);
    }
  }
  return scores;
}

/** Scans all of `scanned` again and again (200 times at most) until the helper has scored a piece of one. */
async function scanUntilHelped(scanned: QuantizedRows, query: Float32Array, failure: string): Promise<void> {
  const before = helperPiecesScored();
  // The helper joins a scan once it has started and wakes before the calling thread has claimed every piece.
  for (let attempt = 0; attempt < 200 && helperPiecesScored() === before; attempt++) {
    scanned.score(query, rowCount);
    await sleep(10);
  }
  assert.ok(helperPiecesScored() > before, failure);
}

describe('the scan helper', () => {
  const rows = new QuantizedRows(dimensions, rowCount);
  rows.set(0, randomUnitRows(rowCount, 11));
  const queries = Array.from({ length: 6 }, (_, index) => randomUnitRows(1, 100 + index));
  const runsOfEachScan = [
    [{ first: 0, count: rowCount }],
    // Lists of an inverted file: runs of uneven length, out of order, some rows left out.
    [
      { first: 70_000, count: 20_000 },
      { first: 5, count: 31_000 },
      { first: 40_000, count: 9_001 },
      { first: 31_100, count: 1 },
    ],
  ];

  it('gives the scores the calling thread computes alone, whoever scored each piece', async () => {
    for (const query of queries) {
      for (const runs of runsOfEachScan) {
        const shared = Array.from(rows.scoreRuns(query, runs).scores);
        assert.deepEqual(shared, scoredAlone(rows, query, runs));
        await sleep(1); // lets the helper start and wake between scans
      }
    }
  });

  it('scores pieces of large scans where there are two cores', { skip: availableParallelism() < 2 }, async () => {
    await scanUntilHelped(rows, queries[0] as Float32Array, 'the helper scored no piece of 200 large scans');
  });

  it('ends a helper holding the memory of a released index at once, without waiting for a collection', {
    skip: availableParallelism() < 2,
  }, async () => {
    const released = new QuantizedRows(dimensions, rowCount);
    released.set(0, randomUnitRows(rowCount, 13));
    await scanUntilHelped(released, queries[1] as Float32Array, 'the helper never scored a piece of the index to be released');
    released.release();
    assert.equal(helperPiecesScored(), 0, 'the helper kept running after the index it held was released');
    // Released is not unusable: a scan still scores every row (a search under way may finish on it).
    const whole = [{ first: 0, count: rowCount }];
    assert.deepEqual(
      Array.from(released.scoreRuns(queries[2] as Float32Array, whole).scores),
      scoredAlone(released, queries[2] as Float32Array, whole),
    );
  });

  it('ends a helper holding the memory of a collected index, and starts another for the next large scan', {
    skip: availableParallelism() < 2,
  }, async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    // An index the helper scores pieces of, then unreachable once this returns.
    const scanDropped = async () => {
      const dropped = new QuantizedRows(dimensions, rowCount);
      dropped.set(0, randomUnitRows(rowCount, 12));
      await scanUntilHelped(dropped, queries[1] as Float32Array, 'the helper never scored a piece of the index to be dropped');
    };
    await scanDropped();
    // A stopped helper is gone: the count starts again from none.
    for (let attempt = 0; attempt < 100 && helperPiecesScored() > 0; attempt++) {
      collectGarbage();
      await sleep(20);
    }
    assert.equal(helperPiecesScored(), 0, 'the helper kept running after the index it held was collected');
    const runs = runsOfEachScan[1] ?? [];
    assert.deepEqual(
      Array.from(rows.scoreRuns(queries[2] as Float32Array, runs).scores),
      scoredAlone(rows, queries[2] as Float32Array, runs),
    );
  });
});
