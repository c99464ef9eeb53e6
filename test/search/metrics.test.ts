import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { discountedCumulativeGain, exponentialGain, mean, ndcgAt, recallAt, reciprocalRankAt } from '../../src/search/metrics.js';
import { linearGain } from '../../bench/ranking-scores.js';

function assertClose(actual: number, expected: number, tolerance = 1e-9): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);
}

const judgments = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('discountedCumulativeGain', () => {
  const cases: [gains: number[], expected: number][] = [
    [[], 0],
    [[1], 1],
    [[0, 1], 1 / Math.log2(3)],
    // The worked example on Wikipedia's DCG page: 6.861.
    [[3, 2, 3, 0, 1, 2], 3 + 2 / Math.log2(3) + 3 / 2 + 0 + 1 / Math.log2(6) + 2 / Math.log2(7)],
  ];
  for (const [gains, expected] of cases) {
    it(`[${gains.join(', ')}]`, () => assertClose(discountedCumulativeGain(gains), expected));
  }
});

describe('gains', () => {
  const cases: [grade: number, linear: number, exponential: number][] = [
    [-1, 0, 0],
    [0, 0, 0],
    [1, 1, 1],
    [2, 2, 3],
    [3, 3, 7],
  ];
  for (const [grade, linear, exponential] of cases) {
    it(`grade ${grade}`, () => {
      assert.equal(linearGain(grade), linear);
      assert.equal(exponentialGain(grade), exponential);
    });
  }
});

describe('ndcgAt', () => {
  const wikipedia = judgments({ d1: 3, d2: 2, d3: 3, d4: 0, d5: 1, d6: 2 });
  const cases: { name: string; ranking: string[]; judged: Map<string, number>; cutoff: number; linear?: boolean; expected: number }[] = [
    {
      name: 'Wikipedia example, linear gains (0.961)',
      ranking: ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'],
      judged: wikipedia,
      cutoff: 6,
      linear: true,
      expected: 6.861126688593502 / 7.1409951840957,
    },
    { name: 'perfect ranking', ranking: ['a', 'b'], judged: judgments({ a: 3, b: 1 }), cutoff: 10, expected: 1 },
    // gains 1, 7 against the ideal 7, 1
    {
      name: 'reversed, exponential gains',
      ranking: ['a', 'b'],
      judged: judgments({ a: 1, b: 3 }),
      cutoff: 10,
      expected: (1 + 7 / Math.log2(3)) / (7 + 1 / Math.log2(3)),
    },
    {
      name: 'reversed, linear gains',
      ranking: ['a', 'b'],
      judged: judgments({ a: 1, b: 3 }),
      cutoff: 10,
      linear: true,
      expected: (1 + 3 / Math.log2(3)) / (3 + 1 / Math.log2(3)),
    },
    { name: 'unjudged results gain nothing', ranking: ['x', 'a'], judged: judgments({ a: 1 }), cutoff: 10, expected: 1 / Math.log2(3) },
    {
      name: 'the ideal counts relevant documents never retrieved',
      ranking: ['a'],
      judged: judgments({ a: 1, b: 1 }),
      cutoff: 10,
      expected: 1 / (1 + 1 / Math.log2(3)),
    },
    { name: 'results past the cutoff are ignored', ranking: ['x', 'a'], judged: judgments({ a: 1 }), cutoff: 1, expected: 0 },
    { name: 'nothing relevant', ranking: ['a'], judged: judgments({ a: 0 }), cutoff: 10, expected: 0 },
    { name: 'empty ranking', ranking: [], judged: judgments({ a: 2 }), cutoff: 10, expected: 0 },
  ];
  for (const { name, ranking, judged, cutoff, linear, expected } of cases) {
    it(name, () => assertClose(ndcgAt(ranking, judged, cutoff, linear === true ? linearGain : exponentialGain), expected));
  }
});

describe('recallAt', () => {
  const judged = judgments({ a: 1, b: 2, c: 1, d: 3, e: 0 });
  const cases: [ranking: string[], cutoff: number, expected: number][] = [
    [['a', 'x', 'b'], 3, 0.5],
    [['a', 'x', 'b'], 2, 0.25],
    [['e', 'x'], 10, 0],
    [['a', 'b', 'c', 'd'], 10, 1],
    [['a', 'a'], 10, 0.25],
  ];
  for (const [ranking, cutoff, expected] of cases) {
    it(`[${ranking.join(', ')}] at ${cutoff}`, () => assertClose(recallAt(ranking, judged, cutoff), expected));
  }
  it('is 0 when nothing is relevant', () => assert.equal(recallAt(['a'], judgments({ a: 0 }), 10), 0));
});

describe('reciprocalRankAt', () => {
  const judged = judgments({ a: 1, b: 0 });
  const cases: [ranking: string[], cutoff: number, expected: number][] = [
    [['a'], 10, 1],
    [['x', 'b', 'a'], 10, 1 / 3],
    [['x', 'b', 'a'], 2, 0],
    [[], 10, 0],
  ];
  for (const [ranking, cutoff, expected] of cases) {
    it(`[${ranking.join(', ')}] at ${cutoff}`, () => assertClose(reciprocalRankAt(ranking, judged, cutoff), expected));
  }
});

describe('mean', () => {
  const cases: [values: number[], expected: number][] = [
    [[], 0],
    [[1, 2, 3], 2],
    [[0.5], 0.5],
  ];
  for (const [values, expected] of cases) {
    it(`[${values.join(', ')}]`, () => assertClose(mean(values), expected));
  }
});
