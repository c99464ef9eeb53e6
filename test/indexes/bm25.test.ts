import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inverseDocumentFrequency } from '../../src/indexes/bm25.js';
import { bm25fTermScore, bm25TermScore, lengthNormalization, saturate, type FieldFrequency } from '../support/bm25-reference.js';

function assertClose(actual: number, expected: number, tolerance = 1e-9): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);
}

describe('inverseDocumentFrequency', () => {
  // ln(1 + (N - n + 0.5) / (n + 0.5)), worked by hand.
  const cases: [documentCount: number, documentFrequency: number, expected: number][] = [
    [10, 1, Math.log(22 / 3)], // 1 + 9.5 / 1.5
    [10, 10, Math.log(1 + 0.5 / 10.5)],
    [1, 1, Math.log(4 / 3)],
    [1000, 500, Math.log(2)],
    [100, 0, Math.log(202)], // 1 + 100.5 / 0.5
  ];
  for (const [documentCount, documentFrequency, expected] of cases) {
    it(`N ${documentCount}, n ${documentFrequency}`, () =>
      assertClose(inverseDocumentFrequency(documentCount, documentFrequency), expected));
  }

  it('stays positive for a term in every document', () => assert.ok(inverseDocumentFrequency(5, 5) > 0));
  it('falls as the term gets commoner', () => assert.ok(inverseDocumentFrequency(100, 2) > inverseDocumentFrequency(100, 20)));
});

describe('lengthNormalization', () => {
  const cases: [length: number, average: number, b: number, expected: number][] = [
    [10, 10, 0.75, 1],
    [20, 10, 0.75, 1.75],
    [5, 10, 0.5, 0.75],
    [300, 10, 0, 1],
    [7, 0, 0.75, 1],
  ];
  for (const [length, average, b, expected] of cases) {
    it(`length ${length}, average ${average}, b ${b}`, () => assertClose(lengthNormalization(length, average, b), expected));
  }
});

describe('saturate', () => {
  const cases: [termFrequency: number, k1: number, expected: number][] = [
    [0, 1.2, 0],
    [1, 1.2, 1],
    [2, 1.2, 4.4 / 3.2],
    [3, 0, 1],
    [1e9, 1.2, 2.2],
  ];
  for (const [termFrequency, k1, expected] of cases) {
    it(`tf ${termFrequency}, k1 ${k1}`, () => assertClose(saturate(termFrequency, k1), expected, 1e-6));
  }
});

describe('bm25TermScore', () => {
  // idf * tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)), worked by hand.
  const cases: [tf: number, length: number, average: number, idf: number, k1: number, b: number, expected: number][] = [
    [3, 100, 50, 2, 1.2, 0.75, (2 * 6.6) / 5.1], // 3 * 2.2 / (3 + 1.2 * 1.75)
    [1, 10, 10, 1, 0.9, 0.4, 1], // average length: tf 1 scores exactly idf
    [1, 20, 10, 1, 0.9, 0.4, 1.9 / (1 + 0.9 * 1.4)],
    [2, 5, 10, 0.5, 1.2, 0, (0.5 * 2 * 2.2) / 3.2], // b 0 ignores length
    [0, 10, 10, 3, 1.2, 0.75, 0],
  ];
  for (const [tf, length, average, idf, k1, b, expected] of cases) {
    it(`tf ${tf}, dl ${length}, avgdl ${average}, idf ${idf}, k1 ${k1}, b ${b}`, () =>
      assertClose(bm25TermScore(tf, length, average, idf, { k1, b }), expected));
  }
});

describe('bm25fTermScore', () => {
  const title: FieldFrequency = { termFrequency: 1, length: 4, averageLength: 8, weight: 3, b: 0.5 };
  const body: FieldFrequency = { termFrequency: 2, length: 100, averageLength: 50, weight: 1, b: 0.4 };
  const cases: { name: string; fields: FieldFrequency[]; idf: number; k1: number; expected: number }[] = [
    // title: 3 * 1 / 0.75 = 4; body: 2 / 1.4; sum 5.428571…; 1.5 * sum * 2.2 / (sum + 1.2)
    { name: 'title and body', fields: [title, body], idf: 1.5, k1: 1.2, expected: 2.702586206896552 },
    { name: 'title only', fields: [title], idf: 1, k1: 1.2, expected: (4 * 2.2) / 5.2 },
    {
      name: 'a field without the term adds nothing',
      fields: [body, { ...title, termFrequency: 0 }],
      idf: 2,
      k1: 1.2,
      expected: bm25TermScore(2, 100, 50, 2, { k1: 1.2, b: 0.4 }),
    },
    { name: 'no fields', fields: [], idf: 2, k1: 1.2, expected: 0 },
  ];
  for (const { name, fields, idf, k1, expected } of cases) {
    it(name, () => assertClose(bm25fTermScore(fields, idf, k1), expected));
  }

  it('saturates once across fields, so a term in two fields scores less than twice', () => {
    const single = bm25fTermScore([body], 1, 1.2);
    assert.ok(bm25fTermScore([body, body], 1, 1.2) < 2 * single);
  });
});
