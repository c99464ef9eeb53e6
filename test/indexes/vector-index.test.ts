// Cosine math and the in-memory vector index: normalization, ranking, replacement, removal, compaction, bulk load and
// snapshot rows, the int8 kernel against a naive float32 scan, and the committed .wasm against its .wat source.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import wabtInit from 'wabt';
import { cosineSimilarity, normalize } from '../../src/indexes/cosine.js';
import { encodeFloat16, roundToFloat16 } from '../../src/indexes/float16.js';
import type { ScoredHit } from '../../src/indexes/scored-hit.js';
import { QuantizedRows } from '../../src/indexes/simd/quantized-rows.js';
import { VectorIndex } from '../../src/indexes/vector-index.js';
import { joinedRows } from '../../src/indexes/unit-rows.js';
import { packageRoot } from '../../src/package-root.js';

describe('cosine', () => {
  const cases: { left: number[]; right: number[]; expected: number }[] = [
    { left: [1, 0], right: [1, 0], expected: 1 },
    { left: [1, 0], right: [0, 1], expected: 0 },
    { left: [1, 0], right: [-1, 0], expected: -1 },
    { left: [3, 4], right: [6, 8], expected: 1 },
    { left: [1, 1, 0, 0, 1], right: [1, 0, 0, 0, 1], expected: 2 / Math.sqrt(6) },
    { left: [0, 0], right: [1, 0], expected: 0 },
  ];
  for (const { left, right, expected } of cases) {
    it(`cos(${left}, ${right}) = ${expected.toFixed(4)}`, () => assert.ok(Math.abs(cosineSimilarity(left, right) - expected) < 1e-6));
  }

  it('normalizes to unit length and leaves a zero vector at zero', () => {
    assert.deepEqual(
      [...normalize([3, 4])].map((value) => Math.round(value * 1000) / 1000),
      [0.6, 0.8],
    );
    assert.deepEqual([...normalize([0, 0, 0])], [0, 0, 0]);
  });
});

describe('VectorIndex', () => {
  it("ranks by cosine, whatever the stored vectors' lengths", () => {
    const index = new VectorIndex(3);
    index.add('x', [10, 0, 0]);
    index.add('y', [0.1, 0.1, 0]);
    index.add('z', [0, 0, 5]);
    const hits = index.search([1, 0.2, 0], 3);
    assert.deepEqual(
      hits.map((hit) => hit.key),
      ['x', 'y', 'z'],
    );
    assert.ok(Math.abs((hits[0]?.score ?? 0) - 1 / Math.sqrt(1.04)) < 1e-6);
    assert.equal(hits[2]?.score, 0);
  });

  it('replaces a key, removes keys, and honours the limit', () => {
    const index = new VectorIndex(2);
    index.add('a', [1, 0]);
    index.add('b', [1, 1]);
    index.add('a', [0, 1]);
    assert.equal(index.size, 2);
    assert.deepEqual(
      index.search([0, 1], 2).map((hit) => hit.key),
      ['a', 'b'],
    );
    assert.equal(index.remove('a'), true);
    assert.equal(index.remove('a'), false);
    assert.deepEqual(
      index.search([0, 1], 5).map((hit) => hit.key),
      ['b'],
    );
    assert.deepEqual(index.search([0, 1], 0), []);
  });

  it('stays correct across growth and compaction after many removals', () => {
    const index = new VectorIndex(4, 1);
    for (let key = 0; key < 5000; key++) index.add(`k${key}`, [Math.cos(key), Math.sin(key), key % 7, 1]);
    for (let key = 0; key < 5000; key += 2) index.remove(`k${key}`);
    assert.equal(index.size, 2500);
    const hits = index.search([Math.cos(1), Math.sin(1), 1, 1], 3);
    assert.equal(hits[0]?.key, 'k1');
    assert.ok(hits.every((hit) => Number(hit.key.slice(1)) % 2 === 1));
  });

  it('refuses vectors of the wrong size', () => {
    const index = new VectorIndex(3);
    assert.throws(() => index.add('a', [1, 2]), RangeError);
    index.add('b', [1, 2, 3]);
    assert.throws(() => index.search([1, 2], 1), RangeError);
  });
});

/** Unit vectors by key in row order (a replaced key moves to the end, as in the index): the naive reference. */
type Reference = Map<string, Float32Array>;

/** What the index stores of `vector`: its unit vector, rounded to float16 as the index's files keep it. */
function storedUnit(vector: ArrayLike<number>): Float32Array {
  const unit = normalize(vector);
  roundToFloat16(unit);
  return unit;
}

/** Every live key scored by a plain float32 scan, best first, ties to the earlier row. */
function naiveScan(reference: Reference, query: ArrayLike<number>): ScoredHit[] {
  const unitQuery = normalize(query);
  const scored = [...reference].map(([key, unit], row) => {
    let score = 0;
    for (let index = 0; index < unit.length; index++) score += (unit[index] as number) * (unitQuery[index] as number);
    return { key, score, row };
  });
  scored.sort((left, right) => right.score - left.score || left.row - right.row);
  return scored.map(({ key, score }) => ({ key, score }));
}

/**
 * The hits are the naive top `limit`: same scores rank by rank and each key's own score, within 1e-6. Keys are
 * compared too unless `tiesPossible` (equal cosines summed in another order may differ in the last bit and swap).
 */
function assertSameAsNaiveScan(
  index: VectorIndex,
  reference: Reference,
  query: ArrayLike<number>,
  limit: number,
  tiesPossible = false,
): void {
  const hits = index.search(query, limit);
  const expected = naiveScan(reference, query).slice(0, Math.max(0, limit));
  assert.equal(hits.length, expected.length);
  if (!tiesPossible)
    assert.deepEqual(
      hits.map((hit) => hit.key),
      expected.map((hit) => hit.key),
    );
  const scoreOfKey = new Map(naiveScan(reference, query).map((hit) => [hit.key, hit.score]));
  assert.equal(new Set(hits.map((hit) => hit.key)).size, hits.length, 'no key twice');
  hits.forEach((hit, rank) => {
    assert.ok(Math.abs(hit.score - (expected[rank]?.score ?? Number.NaN)) <= 1e-6, `score at rank ${rank}`);
    assert.ok(Math.abs(hit.score - (scoreOfKey.get(hit.key) ?? Number.NaN)) <= 1e-6, `score of ${hit.key}`);
  });
}

/** Seeded Gaussian vectors (mulberry32 + Box-Muller), so failures reproduce. */
function gaussianSource(seed: number): (dimensions: number) => Float32Array {
  let state = seed >>> 0;
  const uniform = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return (((mixed ^ (mixed >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  return (dimensions) =>
    Float32Array.from({ length: dimensions }, () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform()));
}

function addAll(index: VectorIndex, reference: Reference, vectors: readonly Float32Array[], keyPrefix = 'k'): void {
  vectors.forEach((vector, row) => {
    index.add(`${keyPrefix}${row}`, vector);
    reference.delete(`${keyPrefix}${row}`);
    reference.set(`${keyPrefix}${row}`, storedUnit(vector));
  });
}

describe('VectorIndex against a naive float32 scan', () => {
  for (const { dimensions, rows } of [
    { dimensions: 5, rows: 3000 },
    { dimensions: 384, rows: 2000 },
    { dimensions: 1536, rows: 400 },
  ]) {
    it(`returns the exact top k for random ${dimensions}-dimensional vectors`, () => {
      const gaussian = gaussianSource(dimensions);
      const index = new VectorIndex(dimensions, 1);
      const reference: Reference = new Map();
      addAll(
        index,
        reference,
        Array.from({ length: rows }, () => gaussian(dimensions)),
      );
      for (const limit of [1, 10, 100]) {
        for (let query = 0; query < 5; query++) assertSameAsNaiveScan(index, reference, gaussian(dimensions), limit);
      }
    });
  }

  it('ranks near-duplicates that the int8 scan cannot tell apart by their exact cosines', () => {
    const dimensions = 384;
    const gaussian = gaussianSource(7);
    const base = gaussian(dimensions);
    const nearBase = (): Float32Array => gaussian(dimensions).map((noise, index) => (base[index] as number) + noise * 1e-3);
    const index = new VectorIndex(dimensions);
    const reference: Reference = new Map();
    addAll(
      index,
      reference,
      Array.from({ length: 1000 }, (_, row) => (row % 2 === 0 ? nearBase() : gaussian(dimensions))),
    );
    for (let query = 0; query < 10; query++) assertSameAsNaiveScan(index, reference, nearBase(), 20);
  });

  it('agrees on any sequence of adds, replacements and removals (property)', () => {
    const operation = (dimensions: number) =>
      fc.oneof(
        fc.record({
          key: fc.nat({ max: 40 }),
          vector: fc.array(fc.integer({ min: -4, max: 4 }), { minLength: dimensions, maxLength: dimensions }),
        }),
        fc.record({ key: fc.nat({ max: 40 }) }),
      );
    const scenario = fc.integer({ min: 1, max: 40 }).chain((dimensions) =>
      fc.record({
        dimensions: fc.constant(dimensions),
        operations: fc.array(operation(dimensions), { maxLength: 120 }),
        query: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: dimensions, maxLength: dimensions }),
        limit: fc.integer({ min: 0, max: 50 }),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ dimensions, operations, query, limit }) => {
        const index = new VectorIndex(dimensions, 1);
        const reference: Reference = new Map();
        for (const step of operations) {
          const key = `k${step.key}`;
          reference.delete(key);
          if ('vector' in step) {
            index.add(key, step.vector);
            reference.set(key, storedUnit(step.vector));
          } else {
            index.remove(key);
          }
        }
        assert.equal(index.size, reference.size);
        assertSameAsNaiveScan(index, reference, query, limit, true);
      }),
      { numRuns: 300 },
    );
  });

  it('stays exact through replacements, removals and compaction', () => {
    const dimensions = 48;
    const gaussian = gaussianSource(11);
    const index = new VectorIndex(dimensions);
    const reference: Reference = new Map();
    addAll(
      index,
      reference,
      Array.from({ length: 4000 }, () => gaussian(dimensions)),
    );
    addAll(
      index,
      reference,
      Array.from({ length: 500 }, () => gaussian(dimensions)),
    ); // replaces k0 to k499
    for (let row = 500; row < 4000; row += 2) {
      index.remove(`k${row}`); // 1750 removals: more than 1024 and a quarter of the rows, so the index compacts
      reference.delete(`k${row}`);
    }
    assert.equal(index.size, reference.size);
    for (let query = 0; query < 10; query++) assertSameAsNaiveScan(index, reference, gaussian(dimensions), 25);
    addAll(
      index,
      reference,
      Array.from({ length: 100 }, () => gaussian(dimensions)),
      'new',
    );
    for (let query = 0; query < 5; query++) assertSameAsNaiveScan(index, reference, gaussian(dimensions), 25);
  });

  it('returns every live row, best first, when the limit exceeds the size', () => {
    const index = new VectorIndex(3);
    const reference: Reference = new Map();
    addAll(index, reference, [Float32Array.of(1, 0, 0), Float32Array.of(0, 1, 0), Float32Array.of(1, 1, 0)]);
    index.remove('k1');
    reference.delete('k1');
    assertSameAsNaiveScan(index, reference, [1, 0.5, 0], 10);
    assert.equal(index.search([1, 0.5, 0], 10).length, 2);
  });

  it('scores zero vectors and zero queries 0, in row order', () => {
    const index = new VectorIndex(3);
    index.add('zero', [0, 0, 0]);
    index.add('x', [1, 0, 0]);
    assert.deepEqual(index.search([1, 0, 0], 2), [
      { key: 'x', score: 1 },
      { key: 'zero', score: 0 },
    ]);
    assert.deepEqual(index.search([0, 0, 0], 2), [
      { key: 'zero', score: 0 },
      { key: 'x', score: 0 },
    ]);
  });
});

describe('VectorIndex bulk load, snapshot rows and stored vectors', () => {
  it('round-trips through liveRows and fromRows, with the same results', () => {
    const dimensions = 20;
    const gaussian = gaussianSource(3);
    const original = new VectorIndex(dimensions);
    const reference: Reference = new Map();
    addAll(
      original,
      reference,
      Array.from({ length: 2000 }, () => gaussian(dimensions)),
    );
    for (let row = 0; row < 2000; row += 3) {
      original.remove(`k${row}`);
      reference.delete(`k${row}`);
    }
    const live = original.liveRows();
    const { keys } = live;
    assert.deepEqual(keys, [...reference.keys()]);
    const loaded = VectorIndex.fromRows(dimensions, keys, joinedRows(live.rows(), keys.length * dimensions));
    assert.equal(loaded.size, original.size);
    for (let query = 0; query < 5; query++) {
      const vector = gaussian(dimensions);
      assert.deepEqual(loaded.search(vector, 15), original.search(vector, 15));
      assertSameAsNaiveScan(loaded, reference, vector, 15);
    }
    loaded.add('added', gaussian(dimensions));
    assert.ok(loaded.has('added') && loaded.has('k1') && !loaded.has('k0'));
  });

  it('adopts the float16 rows it loads rather than copying them, and keeps float32 ones as float16', () => {
    const rows = new Uint16Array(4);
    encodeFloat16(Float32Array.of(1, 0, 0, 1), rows);
    const index = VectorIndex.fromRows(2, ['a', 'b'], rows);
    assert.equal([...index.liveRows().halves()][0]?.buffer, rows.buffer);
    assert.deepEqual(index.search([0, 1], 1), [{ key: 'b', score: 1 }]);
    const fromFloats = VectorIndex.fromRows(2, ['a', 'b'], Float32Array.of(1, 0, 0, 1));
    assert.deepEqual([...fromFloats.liveRows().halves()], [rows]);
    assert.deepEqual(fromFloats.search([1, 0], 1), [{ key: 'a', score: 1 }]);
  });

  it('keeps a copy of the keys it loads: a snapshot gives the lexical index the same array, which it adds to', () => {
    const keys = ['a', 'b'];
    const index = VectorIndex.fromRows(2, keys, Float32Array.of(1, 0, 0, 1));
    keys.push('c');
    keys[0] = 'z';
    assert.deepEqual(index.liveRows().keys, ['a', 'b']);
    assert.deepEqual(index.search([1, 0], 1), [{ key: 'a', score: 1 }]);
  });

  it('refuses rows that do not match the keys, and duplicate keys', () => {
    assert.throws(() => VectorIndex.fromRows(2, ['a'], Float32Array.of(1, 0, 0)), RangeError);
    assert.throws(() => VectorIndex.fromRows(2, ['a', 'a'], Float32Array.of(1, 0, 0, 1)), RangeError);
    assert.throws(() => new VectorIndex(0), RangeError);
    assert.throws(() => new VectorIndex(2.5), RangeError);
  });

  it('handles an empty index', () => {
    const index = VectorIndex.fromRows(4, [], new Float32Array(0));
    assert.equal(index.size, 0);
    assert.deepEqual(index.search([1, 0, 0, 0], 5), []);
    const live = index.liveRows();
    assert.deepEqual(live.keys, []);
    assert.deepEqual(joinedRows(live.rows(), 0), new Float32Array(0));
    assert.equal(index.vector('a'), undefined);
  });

  it('returns a copy of a stored unit vector, rounded to float16', () => {
    const index = new VectorIndex(2);
    index.add('a', [3, 4]);
    const stored = index.vector('a');
    // 0.6 and 0.8 to the nearest float16.
    const expected = Float32Array.of(0.60009765625, 0.7998046875);
    assert.deepEqual(stored, expected);
    stored?.fill(0);
    assert.deepEqual(index.vector('a'), expected);
    index.remove('a');
    assert.equal(index.vector('a'), undefined);
  });
});

describe('WebAssembly kernels', () => {
  const kernelDirectory = pathToFileURL(join(packageRoot, 'src', 'indexes', 'simd', '/'));
  const sources = readdirSync(kernelDirectory).filter((name) => name.endsWith('.wat'));

  it('has kernels to check', () => assert.ok(sources.includes('int8-dot.wat')));

  it('quantizes float16 rows exactly as their float32 values, subnormals, zeros and signs included', () => {
    const dimensions = 40; // not a multiple of 16: the rows are padded
    fc.assert(
      fc.property(fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: dimensions, maxLength: 3 * dimensions }), (values) => {
        const rowCount = Math.floor(values.length / dimensions);
        const floats = Float32Array.from(values.slice(0, rowCount * dimensions));
        // Tiny values become float16 subnormals or zeros of either sign.
        floats[0] = 3e-6;
        floats[1] = -2e-8;
        floats[2] = -0;
        roundToFloat16(floats);
        const halves = new Uint16Array(floats.length);
        encodeFloat16(floats, halves);
        const [fromFloats, fromHalves] = [new QuantizedRows(dimensions, rowCount), new QuantizedRows(dimensions, rowCount)];
        fromFloats.set(0, floats);
        fromHalves.set(0, halves);
        const query = normalize(Float32Array.from({ length: dimensions }, (_, index) => Math.sin(index + 1)));
        const [expected, actual] = [fromFloats.score(query, rowCount), fromHalves.score(query, rowCount)];
        assert.deepEqual(Array.from(actual.scores), Array.from(expected.scores));
        assert.equal(actual.margin, expected.margin);
        fromFloats.release();
        fromHalves.release();
      }),
      { numRuns: 50 },
    );
  });

  for (const name of sources) {
    it(`${name.replace(/\.wat$/, '.wasm')} is the compilation of ${name} (rerun scripts/build-wasm.mjs)`, async () => {
      const wabt = await wabtInit();
      // The same options as scripts/build-wasm.mjs.
      const module = wabt.parseWat(name, readFileSync(new URL(name, kernelDirectory), 'utf8'), { simd: true, threads: true });
      try {
        const compiled = Buffer.from(module.toBinary({}).buffer);
        assert.ok(compiled.equals(readFileSync(new URL(name.replace(/\.wat$/, '.wasm'), kernelDirectory))));
      } finally {
        module.destroy();
      }
    });
  }
});
