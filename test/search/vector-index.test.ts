// Cosine math and the in-memory vector index: normalization, ranking, replacement, removal and compaction.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cosineSimilarity, normalize } from '../../src/search/cosine.js';
import { VectorIndex } from '../../src/search/vector-index.js';

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
    assert.deepEqual([...normalize([3, 4])].map((value) => Math.round(value * 1000) / 1000), [0.6, 0.8]);
    assert.deepEqual([...normalize([0, 0, 0])], [0, 0, 0]);
  });
});

describe('VectorIndex', () => {
  it('ranks by cosine, whatever the stored vectors\' lengths', () => {
    const index = new VectorIndex(3);
    index.add('x', [10, 0, 0]);
    index.add('y', [0.1, 0.1, 0]);
    index.add('z', [0, 0, 5]);
    const hits = index.search([1, 0.2, 0], 3);
    assert.deepEqual(hits.map((hit) => hit.key), ['x', 'y', 'z']);
    assert.ok(Math.abs((hits[0]?.score ?? 0) - 1 / Math.sqrt(1.04)) < 1e-6);
    assert.equal(hits[2]?.score, 0);
  });

  it('replaces a key, removes keys, and honours the limit', () => {
    const index = new VectorIndex(2);
    index.add('a', [1, 0]);
    index.add('b', [1, 1]);
    index.add('a', [0, 1]);
    assert.equal(index.size, 2);
    assert.deepEqual(index.search([0, 1], 2).map((hit) => hit.key), ['a', 'b']);
    assert.equal(index.remove('a'), true);
    assert.equal(index.remove('a'), false);
    assert.deepEqual(index.search([0, 1], 5).map((hit) => hit.key), ['b']);
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
