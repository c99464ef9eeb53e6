// Fusion math: reciprocal rank fusion, scaling to the best score, relative score fusion, Rocchio feedback, hybrid ranking.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { relativeScoreFusion, scaleToBest } from '../../bench/fusion-candidates.js';
import { diversificationDepth, diversifyByDocument, searchDiverseEnough } from '../../src/search/diversify.js';
import fc from 'fast-check';
import { discountBySize, feedbackQuery, hybridRanking, medianChunkCount, reciprocalRankFusion } from '../../src/search/fusion.js';
import type { ScoredHit } from '../../src/indexes/scored-hit.js';

const hits = (...entries: [key: string, score: number][]): ScoredHit[] => entries.map(([key, score]) => ({ key, score }));

function assertHitsClose(actual: readonly ScoredHit[], expected: readonly ScoredHit[]): void {
  assert.deepEqual(
    actual.map((hit) => hit.key),
    expected.map((hit) => hit.key),
  );
  actual.forEach((hit, index) => {
    const wanted = expected[index]?.score ?? Number.NaN;
    assert.ok(Math.abs(hit.score - wanted) < 1e-9, `${hit.key}: expected ${wanted}, got ${hit.score}`);
  });
}

function assertVectorClose(actual: ArrayLike<number>, expected: readonly number[]): void {
  assert.equal(actual.length, expected.length);
  expected.forEach((value, index) =>
    assert.ok(Math.abs((actual[index] as number) - value) < 1e-6, `[${index}]: expected ${value}, got ${actual[index]}`),
  );
}

describe('reciprocalRankFusion', () => {
  const cases: { name: string; lists: { hits: ScoredHit[]; weight: number }[]; k?: number; expected: ScoredHit[] }[] = [
    { name: 'no lists', lists: [], expected: [] },
    {
      name: 'one list keeps its order',
      lists: [{ hits: hits(['a', 9], ['b', 1]), weight: 1 }],
      k: 1,
      expected: hits(['a', 1 / 2], ['b', 1 / 3]),
    },
    {
      name: 'a key in both lists adds up',
      lists: [
        { hits: hits(['a', 5], ['b', 4]), weight: 1 },
        { hits: hits(['b', 0.9], ['c', 0.8]), weight: 1 },
      ],
      k: 60,
      expected: hits(['b', 1 / 62 + 1 / 61], ['a', 1 / 61], ['c', 1 / 62]),
    },
    {
      name: 'weights scale a list',
      lists: [
        { hits: hits(['a', 5]), weight: 1 },
        { hits: hits(['b', 0.9]), weight: 2 },
      ],
      k: 0,
      expected: hits(['b', 2], ['a', 1]),
    },
    {
      name: 'ties go to the smaller key',
      lists: [
        { hits: hits(['y', 5]), weight: 1 },
        { hits: hits(['x', 0.9]), weight: 1 },
      ],
      k: 60,
      expected: hits(['x', 1 / 61], ['y', 1 / 61]),
    },
  ];
  for (const { name, lists, k, expected } of cases) {
    it(name, () => assertHitsClose(reciprocalRankFusion(lists, k), expected));
  }
});

describe('scaleToBest', () => {
  const cases: { name: string; input: ScoredHit[]; expected: [string, number][] }[] = [
    { name: 'empty', input: [], expected: [] },
    {
      name: 'divides by the best score',
      input: hits(['a', 8], ['b', 2], ['c', 0]),
      expected: [
        ['a', 1],
        ['b', 0.25],
        ['c', 0],
      ],
    },
    {
      name: 'the best need not come first',
      input: hits(['a', 0.3], ['b', 0.6]),
      expected: [
        ['a', 0.5],
        ['b', 1],
      ],
    },
    {
      name: 'negative scores count as zero',
      input: hits(['a', 0.5], ['b', -0.2]),
      expected: [
        ['a', 1],
        ['b', 0],
      ],
    },
    {
      name: 'no positive score: every key zero',
      input: hits(['a', 0], ['b', -1]),
      expected: [
        ['a', 0],
        ['b', 0],
      ],
    },
  ];
  for (const { name, input, expected } of cases) {
    it(name, () => assert.deepEqual([...scaleToBest(input)], expected));
  }
});

describe('relativeScoreFusion', () => {
  const lexical = hits(['a', 10], ['b', 5]);
  const embedding = hits(['b', 0.8], ['c', 0.4]);
  const cases: { name: string; lexical: ScoredHit[]; embedding: ScoredHit[]; denseWeight: number; expected: ScoredHit[] }[] = [
    // a: 0.4 * 1; b: 0.4 * 0.5 + 0.6 * 1; c: 0.6 * 0.5
    { name: 'weighted sum of scaled scores', lexical, embedding, denseWeight: 0.6, expected: hits(['b', 0.8], ['a', 0.4], ['c', 0.3]) },
    { name: 'weight 0 is the lexical ranking', lexical, embedding, denseWeight: 0, expected: hits(['a', 1], ['b', 0.5], ['c', 0]) },
    { name: 'weight 1 is the embedding ranking', lexical, embedding, denseWeight: 1, expected: hits(['b', 1], ['c', 0.5], ['a', 0]) },
    { name: 'no lexical hits', lexical: [], embedding, denseWeight: 0.6, expected: hits(['b', 0.6], ['c', 0.3]) },
    { name: 'no embedding hits', lexical, embedding: [], denseWeight: 0.6, expected: hits(['a', 0.4], ['b', 0.2]) },
    { name: 'nothing at all', lexical: [], embedding: [], denseWeight: 0.6, expected: [] },
    // Only the ratio to the best counts: BM25 in the tens and cosines below 1 weigh the same.
    {
      name: 'score scales do not matter',
      lexical: hits(['a', 1000], ['b', 500]),
      embedding: hits(['b', 0.08], ['c', 0.04]),
      denseWeight: 0.6,
      expected: hits(['b', 0.8], ['a', 0.4], ['c', 0.3]),
    },
  ];
  for (const { name, lexical: left, embedding: right, denseWeight, expected } of cases) {
    it(name, () => assertHitsClose(relativeScoreFusion(left, right, denseWeight), expected));
  }

  for (const denseWeight of [-0.1, 1.5, Number.NaN]) {
    it(`refuses a dense weight of ${denseWeight}`, () =>
      assert.throws(() => relativeScoreFusion(lexical, embedding, denseWeight), RangeError));
  }
});

describe('feedbackQuery', () => {
  const half = Math.SQRT1_2;
  const cases: { name: string; query: number[]; feedback: number[][]; weight: number; expected: number[] }[] = [
    { name: 'no feedback: the query, unit length', query: [3, 4], feedback: [], weight: 1, expected: [0.6, 0.8] },
    { name: 'one orthogonal vector at weight 1', query: [1, 0], feedback: [[0, 1]], weight: 1, expected: [half, half] },
    { name: 'feedback vectors count at unit length', query: [1, 0], feedback: [[0, 10]], weight: 1, expected: [half, half] },
    {
      name: 'several vectors count by their mean',
      query: [1, 0, 0],
      feedback: [
        [0, 1, 0],
        [0, 0, 1],
      ],
      weight: 2,
      expected: [1 / Math.sqrt(3), 1 / Math.sqrt(3), 1 / Math.sqrt(3)],
    },
    { name: 'weight 0 leaves the query', query: [1, 0], feedback: [[0, 1]], weight: 0, expected: [1, 0] },
    { name: 'vectors of another length are ignored', query: [1, 0], feedback: [[0, 1, 0]], weight: 1, expected: [1, 0] },
    { name: 'zero vectors stay zero', query: [0, 0], feedback: [[0, 0]], weight: 1, expected: [0, 0] },
  ];
  for (const { name, query, feedback, weight, expected } of cases) {
    it(name, () => assertVectorClose(feedbackQuery(query, feedback, weight), expected));
  }
});

describe('hybridRanking', () => {
  // Unit vectors: "near" is the query's direction; "far" lies close to "lexical" and away from the query.
  const vectors = new Map<string, number[]>([
    ['near', [1, 0]],
    ['lexical', [0.6, 0.8]],
    ['far', [0.2, Math.sqrt(0.96)]],
  ]);
  const lexical = hits(['lexical', 12], ['far', 3]);
  const query = Float32Array.of(1, 0);
  const cosine = (vector: ArrayLike<number>, [x = 0, y = 0]: number[]) => (vector[0] as number) * x + (vector[1] as number) * y;
  const embedding = [...vectors]
    .map(([key, vector]) => ({ key, score: cosine(query, vector) }))
    .sort((left, right) => right.score - left.score);
  function run(feedbackHits: number, vectorOf: (key: string) => number[] | undefined): { ranking: ScoredHit[]; looked: string[] } {
    const looked: string[] = [];
    const ranking = hybridRanking(
      {
        lexical,
        query,
        embedding,
        vectorOf: (key) => {
          looked.push(key);
          const vector = vectorOf(key);
          return vector === undefined ? undefined : Float32Array.from(vector);
        },
      },
      { rankConstant: 1, denseWeight: 2, feedbackHits, feedbackWeight: 1, sizeDiscount: 0 },
    );
    return { ranking, looked };
  }
  // Without feedback, k = 1: lexical 1/2 + 2/3, near 2/2, far 1/3 + 2/4; scaled by the best possible, (1 + 2) / 2.
  const once = hits(['lexical', (1 / 2 + 2 / 3) / 1.5], ['near', 1 / 1.5], ['far', (1 / 3 + 2 / 4) / 1.5]);

  it('without feedback hits fuses once and reads no vector', () => {
    const { ranking, looked } = run(0, (key) => vectors.get(key));
    assert.deepEqual(looked, []);
    assertHitsClose(ranking, once);
  });

  it('without stored vectors keeps the first fusion', () => {
    assertHitsClose(run(2, () => undefined).ranking, once);
  });

  it('with feedback, ranks the candidates again by cosine with the query moved towards the best fused hits', () => {
    const { ranking } = run(2, (key) => vectors.get(key));
    // The best two fused hits are "lexical" and "near"; stored vectors are float32, as the ranking reads them.
    const stored = (vector: number[]) => [...Float32Array.from(vector)];
    const refined = feedbackQuery(query, [stored([0.6, 0.8]), stored([1, 0])], 1);
    const refinedList = [...vectors]
      .map(([key, vector]) => ({ key, score: cosine(refined, stored(vector)) }))
      .sort((left, right) => right.score - left.score);
    const expected = reciprocalRankFusion(
      [
        { hits: lexical, weight: 1 },
        { hits: refinedList, weight: 2 },
      ],
      1,
    ).map(({ key, score }) => ({ key, score: score / 1.5 }));
    assertHitsClose(ranking, expected);
    assert.deepEqual(
      ranking.map((hit) => hit.key),
      ['lexical', 'near', 'far'],
    );
  });

  it('discounts chunks of documents far longer than the median before fusing', () => {
    const ranking = hybridRanking(
      { lexical, query, embedding, vectorOf: () => undefined, relativeSize: (key) => (key === 'lexical' ? 1e6 : 1) },
      { rankConstant: 1, denseWeight: 2, feedbackHits: 0, feedbackWeight: 1, sizeDiscount: 0.5 },
    );
    // First in the lexical list and second by cosine, "lexical" drops to last once its document's size counts.
    assert.deepEqual(
      ranking.map((hit) => hit.key),
      ['far', 'near', 'lexical'],
    );
  });

  it('re-ranks only the candidates of the two lists: a chunk neither list holds stays out', () => {
    const { ranking } = run(2, (key) => (key === 'elsewhere' ? [0.8, 0.6] : vectors.get(key)));
    assert.ok(!ranking.some((hit) => hit.key === 'elsewhere'));
  });
});

describe('discountBySize', () => {
  it('divides by relativeSize^exponent only above 1, and ranks again', () => {
    const sizes = new Map([
      ['long', 16],
      ['short', 0.5],
    ]);
    assertHitsClose(
      discountBySize(hits(['long', 1], ['short', 0.8], ['plain', 0.7]), (key) => sizes.get(key) ?? 1, 0.25),
      hits(['short', 0.8], ['plain', 0.7], ['long', 0.5]),
    );
  });

  it('leaves the hits alone without sizes or with exponent 0', () => {
    const input = hits(['a', 2], ['b', 1]);
    assert.deepEqual(discountBySize(input, undefined, 0.5), input);
    assert.deepEqual(
      discountBySize(input, () => 100, 0),
      input,
    );
  });
});

describe('diversifyByDocument', () => {
  const documentOf = (key: string) => key.split(':')[0];
  it('lets no document take more than its share of the first places, keeping its further hits after the others', () => {
    const ranked = hits(['long:1', 9], ['long:2', 8], ['long:3', 7], ['other:1', 6], ['long:4', 5], ['third:1', 4]);
    assert.deepEqual(
      diversifyByDocument(ranked, documentOf, 2).map((hit) => hit.key),
      ['long:1', 'long:2', 'other:1', 'third:1', 'long:3', 'long:4'],
    );
  });

  it('keeps the order of a ranking that is already diverse, and of one with a single document', () => {
    const diverse = hits(['a:1', 3], ['b:1', 2], ['a:2', 1]);
    assert.deepEqual(diversifyByDocument(diverse, documentOf, 2), diverse);
    const single = hits(['a:1', 3], ['a:2', 2], ['a:3', 1]);
    assert.deepEqual(diversifyByDocument(single, documentOf, 1), single);
  });
});

describe('searchDiverseEnough', () => {
  const documentOf = (key: string) => key.split(':')[0];
  /** A ranking of chunks of `documents` (a document each, best first) and the depths it was searched at. */
  const ranking = (documents: readonly string[]) => {
    const all = documents.map((document, rank) => ({ key: `${document}:${rank}`, score: documents.length - rank }));
    const depths: number[] = [];
    return { depths, search: (depth: number) => (depths.push(depth), all.slice(0, depth)) };
  };

  it('searches twice the limit when that many lead for their document, and the deeper depth only when fewer do', () => {
    const diverse = ranking('abcdefghijklmnopqrstuvwxyz'.split(''));
    assert.equal(searchDiverseEnough(diverse.search, 5, documentOf).length, 10);
    assert.deepEqual(diverse.depths, [10]);
    const oneLongPage = ranking([...'aaaaaaaa', ...'bcdefghijklmnopqrstuvwxyz']);
    searchDiverseEnough(oneLongPage.search, 5, documentOf);
    assert.deepEqual(oneLongPage.depths, [10, diversificationDepth(5)]);
    const few = ranking(['a', 'a', 'a']);
    assert.equal(searchDiverseEnough(few.search, 5, documentOf).length, 3);
    assert.deepEqual(few.depths, [10], 'fewer hits than asked: nothing deeper to find');
  });

  it('gives the same diversified first places as the deep search', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 80 }),
        fc.integer({ min: 1, max: 12 }),
        (documents, limit) => {
          const { search } = ranking(documents);
          const first = (found: readonly ScoredHit[]) => diversifyByDocument(found, documentOf).slice(0, limit);
          assert.deepEqual(first(searchDiverseEnough(search, limit, documentOf)), first(search(diversificationDepth(limit))));
        },
      ),
    );
  });
});

describe('medianChunkCount', () => {
  const cases: [number[], number][] = [
    [[], 1],
    [[5], 5],
    [[1, 9, 3], 3],
    [[4, 1, 2, 8], 4],
    [[0, 0, 0], 1],
  ];
  for (const [counts, expected] of cases)
    it(`${JSON.stringify(counts)} -> ${expected}`, () => assert.equal(medianChunkCount(counts), expected));
});
