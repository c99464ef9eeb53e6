// TopK: the k best ids of a stream, best first, ties to the lower id.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TopK } from '../../src/indexes/top-k.js';

function topK(capacity: number, offers: [number, number][]): [number, number][] {
  const best = new TopK(capacity);
  for (const [id, score] of offers) best.offer(id, score);
  return best.drain().map(({ id, score }) => [id, score]);
}

describe('TopK', () => {
  const cases: { name: string; capacity: number; offers: [number, number][]; expected: [number, number][] }[] = [
    {
      name: 'keeps the best, best first',
      capacity: 2,
      offers: [
        [1, 0.1],
        [2, 0.9],
        [3, 0.5],
        [4, 0.7],
      ],
      expected: [
        [2, 0.9],
        [4, 0.7],
      ],
    },
    {
      name: 'fewer offers than capacity',
      capacity: 5,
      offers: [
        [7, 1],
        [3, 2],
      ],
      expected: [
        [3, 2],
        [7, 1],
      ],
    },
    { name: 'capacity 0 keeps nothing', capacity: 0, offers: [[1, 1]], expected: [] },
    {
      name: 'ties go to the lower id, whatever the order',
      capacity: 2,
      offers: [
        [9, 1],
        [4, 1],
        [6, 1],
        [2, 0.5],
      ],
      expected: [
        [4, 1],
        [6, 1],
      ],
    },
    {
      name: 'negative scores (cosine) are ranked too',
      capacity: 2,
      offers: [
        [1, -0.5],
        [2, -0.1],
        [3, -0.9],
      ],
      expected: [
        [2, -0.1],
        [1, -0.5],
      ],
    },
  ];
  for (const { name, capacity, offers, expected } of cases) {
    it(name, () => assert.deepEqual(topK(capacity, offers), expected));
  }

  it('agrees with a full sort on random input', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const offers: [number, number][] = Array.from({ length: 2000 }, (_, id) => [id, Math.round(random() * 100) / 100]);
    const sorted = [...offers].sort((left, right) => right[1] - left[1] || left[0] - right[0]).slice(0, 25);
    assert.deepEqual(topK(25, offers), sorted);
  });

  it('reports the entry threshold once full', () => {
    const best = new TopK(2);
    assert.equal(best.threshold, Number.NEGATIVE_INFINITY);
    best.offer(1, 0.3);
    best.offer(2, 0.8);
    assert.equal(best.threshold, 0.3);
  });
});
