// A vector index whose rows are read from a file (a snapshot's row section: float16, or float32 in older snapshots)
// must search, change and write snapshots exactly as one holding its rows in memory, and close the file when it lets
// go of it.
import assert from 'node:assert/strict';
import { fstatSync, openSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { normalize } from '../../src/indexes/cosine.js';
import { encodeFloat16 } from '../../src/indexes/float16.js';
import { joinedRows, type RowEncoding, type RowsInFile } from '../../src/indexes/unit-rows.js';
import { type ApproximateSearch, VectorIndex } from '../../src/indexes/vector-index.js';
import { seededRandom } from '../support/durability-documents.js';

const dimensions = 16;
const approximate: ApproximateSearch = {
  fromRows: 400,
  probes: 3,
  scannedRows: 0,
  training: { listCount: 12, samplePerList: 16, iterations: 4 },
};

function randomVectors(count: number, seed: number): Float32Array[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => normalize(Float32Array.from({ length: dimensions }, () => next() * 2 - 1)));
}

/** Holds the row files of this file's tests; removed at the end (an open descriptor still reads a removed file). */
let folder: string;
before(async () => {
  folder = await mkdtemp(join(tmpdir(), 'rows-in-file-'));
});
after(() => rm(folder, { recursive: true, force: true }));
let filesWritten = 0;

/** Writes `rows` after `padding` bytes of something else, as a snapshot lays them out, and opens the file. */
function rowsFile(rows: Float32Array, encoding: RowEncoding = 'float16', padding = 24): RowsInFile {
  const path = join(folder, `rows-${filesWritten++}`);
  let values: Float32Array | Uint16Array = rows;
  if (encoding === 'float16') {
    values = new Uint16Array(rows.length);
    encodeFloat16(rows, values);
  }
  writeFileSync(path, Buffer.concat([Buffer.alloc(padding, 7), Buffer.from(values.buffer, values.byteOffset, values.byteLength)]));
  return { fd: openSync(path, 'r'), byteOffset: padding, count: rows.length / dimensions, encoding };
}

function isOpen(fd: number): boolean {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
}

/** The index's live rows, copied: what a snapshot of it holds. */
function liveOf(index: VectorIndex) {
  const { keys, rows, lists } = index.liveRows();
  return { keys, rows: joinedRows(rows(), keys.length * dimensions), lists };
}

for (const [name, settings, encoding] of [
  ['scanning every row', { ...approximate, fromRows: Number.POSITIVE_INFINITY }, 'float16'],
  ['through inverted lists', approximate, 'float16'],
  ['scanning every row, float32 rows (snapshots before format 4)', { ...approximate, fromRows: Number.POSITIVE_INFINITY }, 'float32'],
  ['through inverted lists, float32 rows (snapshots before format 4)', approximate, 'float32'],
] as const) {
  describe(`VectorIndex with its rows in a file, ${name}`, () => {
    const vectors = randomVectors(600, 3);
    const queries = randomVectors(20, 4);

    function inMemory(): VectorIndex {
      const index = new VectorIndex(dimensions, 64, settings);
      vectors.forEach((vector, row) => index.add(`k${row}`, vector));
      return index;
    }

    it('searches, gives vectors and changes as an index holding its rows in memory', async () => {
      const reference = inMemory();
      const live = liveOf(reference);
      const file = rowsFile(live.rows, encoding);
      const index = VectorIndex.fromRows(dimensions, live.keys, file, live.lists, settings);
      assert.equal(index.rowsInMemory, 0);
      for (const query of queries) assert.deepEqual(index.search(query, 10), reference.search(query, 10));
      assert.deepEqual(index.vector('k17'), reference.vector('k17'));
      // Changes after loading: new rows in memory, removed rows left out, replaced rows found by their new vector.
      for (const target of [index, reference]) {
        for (let row = 0; row < 600; row += 5) target.remove(`k${row}`);
        target.add('k1', queries[0] as Float32Array);
        randomVectors(30, 5).forEach((vector, row) => target.add(`new${row}`, vector));
      }
      assert.equal(index.rowsInMemory, 31);
      for (const query of queries) assert.deepEqual(index.search(query, 10), reference.search(query, 10));
      // A snapshot taken now leaves the removed rows out without reading the rows in, and its float16 rows (read from a
      // float16 file as they are) are the rows encoded.
      const written = liveOf(index);
      assert.deepEqual(written, liveOf(reference));
      const stored = index.liveRows();
      const expectedHalves = new Uint16Array(written.rows.length);
      encodeFloat16(written.rows, expectedHalves);
      assert.deepEqual(joinedRows(stored.halves(), written.rows.length, Uint16Array), expectedHalves);
      assert.equal(index.rowsInMemory, 31);
      index.close();
      assert.equal(isOpen(file.fd), false);
    });

    it('reads its rows from a snapshot written of it, unless it changed since', async () => {
      const index = inMemory();
      for (let row = 0; row < 600; row += 7) index.remove(`k${row}`);
      const reference = liveOf(index);
      const snapshot = index.liveRows();
      const file = rowsFile(joinedRows(snapshot.rows(), snapshot.keys.length * dimensions), encoding);
      assert.equal(index.readRowsFrom(file, snapshot.version), true);
      assert.equal(index.rowsInMemory, 0);
      assert.deepEqual(liveOf(index), reference);
      const expected = VectorIndex.fromRows(dimensions, reference.keys, reference.rows.slice(), reference.lists, settings);
      for (const query of queries) assert.deepEqual(index.search(query, 10), expected.search(query, 10));

      const stale = index.liveRows();
      const staleFile = rowsFile(joinedRows(stale.rows(), stale.keys.length * dimensions), encoding);
      index.add('later', queries[1] as Float32Array);
      assert.equal(index.readRowsFrom(staleFile, stale.version), false);
      assert.equal(isOpen(staleFile.fd), false);
      assert.equal(index.rowsInMemory, 1);
      assert.equal(index.search(queries[1] as Float32Array, 1)[0]?.key, 'later');
      index.close();
      assert.equal(isOpen(file.fd), false);
    });

    it('reads every row in when a quarter of them are removed (compaction), and closes the file', async () => {
      const reference = new VectorIndex(dimensions, 64, settings);
      randomVectors(2400, 6).forEach((vector, row) => reference.add(`k${row}`, vector));
      const live = liveOf(reference);
      const file = rowsFile(live.rows, encoding);
      const index = VectorIndex.fromRows(dimensions, live.keys, file, live.lists, settings);
      for (let row = 0; row < 2400; row += 2) {
        index.remove(`k${row}`);
        reference.remove(`k${row}`);
      }
      assert.equal(isOpen(file.fd), false);
      assert.ok(index.rowsInMemory >= index.size); // every row, and those removed since the compaction
      for (const query of queries) assert.deepEqual(index.search(query, 10), reference.search(query, 10));
    });
  });
}

describe('VectorIndex.fromRows with rows in a file', () => {
  it('trains its inverted lists on rows read from the file as an index in memory does, without reading them in', async () => {
    const vectors = randomVectors(500, 8);
    const reference = new VectorIndex(dimensions, 64, approximate);
    vectors.slice(0, 300).forEach((vector, row) => reference.add(`k${row}`, vector));
    const live = liveOf(reference);
    const index = VectorIndex.fromRows(dimensions, live.keys, rowsFile(live.rows), live.lists, approximate);
    for (const target of [index, reference]) vectors.slice(300).forEach((vector, row) => target.add(`k${300 + row}`, vector));
    assert.equal(index.approximates, true);
    assert.equal(index.rowsInMemory, 200);
    assert.deepEqual(liveOf(index).lists, liveOf(reference).lists);
    for (const query of randomVectors(20, 9)) assert.deepEqual(index.search(query, 10), reference.search(query, 10));
    index.close();
  });

  it('refuses a file whose rows do not match the keys, closing it', async () => {
    const file = rowsFile(new Float32Array(3 * dimensions));
    assert.throws(() => VectorIndex.fromRows(dimensions, ['a', 'b'], file), RangeError);
    assert.equal(isOpen(file.fd), false);
  });

  it('refuses a file cut short, with the reason, closing it', async () => {
    const file = rowsFile(normalize(new Float32Array(dimensions).fill(1)));
    assert.throws(() => VectorIndex.fromRows(dimensions, ['a', 'b'], { ...file, count: 2 }), /ends before row 2/);
    assert.equal(isOpen(file.fd), false);
  });
});
