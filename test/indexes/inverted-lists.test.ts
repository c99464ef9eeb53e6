// The vector index past the size where it searches through inverted lists: recall on clustered vectors, exactness
// when every list is scanned (through removals, replacements and compaction), the switch at the size and back, and
// the lists carried through a snapshot instead of trained again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvertedLists } from '../../src/indexes/inverted-lists.js';
import { joinedRows } from '../../src/indexes/unit-rows.js';
import { type ApproximateSearch, VectorIndex } from '../../src/indexes/vector-index.js';
import { seededRandom } from '../support/durability-documents.js';

const dimensions = 32;
const listCount = 24;
const approximate: ApproximateSearch = {
  fromRows: 600,
  probes: 4,
  scannedRows: 0,
  training: { listCount, samplePerList: 16, iterations: 6 },
};
/** Scans every list: then the lists must give exactly what a whole scan gives. */
const everyList: ApproximateSearch = { ...approximate, probes: listCount };

function centres(count: number, seed: number): Float32Array[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dimensions }, () => next() * 2 - 1));
}

/** `count` vectors around the centres in turn, each component of the noise up to `spread`. */
function around(centres: readonly Float32Array[], count: number, spread: number, seed: number): Float32Array[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, (_, row) =>
    Float32Array.from(centres[row % centres.length] as Float32Array, (value) => value + (next() * 2 - 1) * spread),
  );
}

function filled(vectors: readonly Float32Array[], settings: ApproximateSearch, prefix = 'k'): VectorIndex {
  const index = new VectorIndex(dimensions, 64, settings);
  vectors.forEach((vector, row) => index.add(`${prefix}${row}`, vector));
  return index;
}

const keysOf = (index: VectorIndex, query: Float32Array, limit = 10) => index.search(query, limit).map((hit) => hit.key);

describe('VectorIndex with inverted lists', () => {
  const clusters = centres(60, 7);
  const vectors = around(clusters, 3000, 0.35, 8);
  const queries = around(clusters, 40, 0.35, 9);
  const wholeScan = filled(vectors, { ...approximate, fromRows: Number.POSITIVE_INFINITY });

  it('scans every row below the size and switches to lists at it', () => {
    const index = new VectorIndex(dimensions, 64, approximate);
    vectors.slice(0, approximate.fromRows - 1).forEach((vector, row) => index.add(`k${row}`, vector));
    assert.equal(index.approximates, false);
    index.add('last', vectors[approximate.fromRows] as Float32Array);
    assert.equal(index.approximates, true);
  });

  it('finds at least 90% of the exact top 10 on clustered vectors, scanning 4 of 24 lists', () => {
    const index = filled(vectors, approximate);
    assert.equal(index.approximates, true);
    let found = 0;
    for (const query of queries) {
      const exact = new Set(keysOf(wholeScan, query));
      found += keysOf(index, query).filter((key) => exact.has(key)).length;
    }
    assert.ok(found / (10 * queries.length) >= 0.9, `recall@10 ${found / (10 * queries.length)}`);
  });

  it('gives exact scores, and exactly the whole scan when every list is scanned', () => {
    const index = filled(vectors, everyList);
    for (const query of queries) {
      const hits = index.search(query, 10);
      assert.deepEqual(hits, wholeScan.search(query, 10));
    }
  });

  it('never returns a removed key, and finds a replaced one by its new vector only, through compaction', () => {
    const index = filled(vectors, everyList);
    const reference = filled(vectors, { ...everyList, fromRows: Number.POSITIVE_INFINITY });
    // 1,500 removals pass the compaction threshold (over 1,024 and a quarter of the rows): the lists are renumbered.
    for (let row = 0; row < 3000; row += 2) {
      assert.equal(index.remove(`k${row}`), true);
      reference.remove(`k${row}`);
    }
    const moved = queries[0] as Float32Array;
    index.add('k1', moved);
    reference.add('k1', moved);
    assert.equal(index.approximates, true);
    assert.equal(index.size, 1500);
    for (const query of queries) {
      const hits = index.search(query, 20);
      assert.deepEqual(hits, reference.search(query, 20));
      assert.ok(hits.every((hit) => Number(hit.key.slice(1)) % 2 === 1));
    }
    assert.deepEqual(keysOf(index, moved, 1), ['k1']);
  });

  it('goes back to scanning every row once it shrinks below half the size', () => {
    const index = filled(vectors.slice(0, 700), approximate);
    assert.equal(index.approximates, true);
    for (let row = 0; row < 401; row++) index.remove(`k${row}`);
    assert.equal(index.approximates, false);
    const reference = filled(vectors.slice(401, 700), { ...approximate, fromRows: Number.POSITIVE_INFINITY }, 'r');
    for (const query of queries.slice(0, 10)) {
      assert.deepEqual(
        index.search(query, 10).map((hit) => hit.score),
        reference.search(query, 10).map((hit) => hit.score),
      );
    }
  });

  it('keeps its lists through its live rows (a snapshot): the same results, with no training', () => {
    const index = filled(vectors, approximate);
    for (let row = 0; row < 1200; row++) index.remove(`k${row}`); // compaction first
    const liveRows = index.liveRows();
    const live = { ...liveRows, rows: joinedRows(liveRows.rows(), liveRows.keys.length * dimensions) };
    assert.ok(live.lists !== undefined);
    assert.equal(live.lists.listOfRow.length, live.keys.length);
    const restored = VectorIndex.fromRows(dimensions, live.keys, live.rows.slice(), live.lists, approximate);
    assert.equal(restored.approximates, true);
    for (const query of queries) assert.deepEqual(restored.search(query, 10), index.search(query, 10));
    // Lists that do not fit the rows are refused rather than searched.
    assert.throws(
      () => VectorIndex.fromRows(dimensions, live.keys.slice(1), live.rows.slice(dimensions), live.lists, approximate),
      /lists of/,
    );
  });

  it('trains the same lists from the same rows', () => {
    const rows = new Float32Array(vectors.length * dimensions);
    vectors.forEach((vector, row) => {
      const length = Math.hypot(...vector);
      rows.set(
        vector.map((value) => value / length),
        row * dimensions,
      );
    });
    const rowAt = (row: number) => rows.subarray(row * dimensions, (row + 1) * dimensions);
    const train = () => InvertedLists.train(dimensions, rowAt, vectors.length, () => true, approximate.training).toSnapshot(vectors.length);
    assert.deepEqual(train(), train());
  });
});
