import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { inverseDocumentFrequency } from '../../src/indexes/bm25.js';
import {
  arrayOfType,
  LexicalIndex,
  defaultLexicalIndexOptions,
  type LexicalFields,
  type LexicalIndexOptions,
  type LexicalSnapshot,
} from '../../src/indexes/lexical-index.js';
import { forEachId } from '../../src/indexes/term-id-lists.js';
import { queryTerms, tokenize } from '../../src/indexes/tokenize.js';
import { bm25fTermScore } from '../support/bm25-reference.js';
import { seededRandom } from '../support/durability-documents.js';
import { fixturesDirectory } from '../support/fixtures.js';

const corpus: Record<string, LexicalFields> = {
  dependencies: {
    title: 'Dependencies',
    headings: 'First steps',
    body: 'Declare a dependency with Depends. FastAPI resolves every dependency before calling your path operation.',
  },
  security: {
    title: 'Security',
    headings: 'OAuth2 with password',
    body: 'OAuth2PasswordBearer is a dependency that reads the bearer token from the request.',
  },
  files: {
    title: 'Request files',
    headings: 'UploadFile',
    body: 'Use read_file to read an uploaded file; UploadFile keeps large files on disk.',
  },
  cookies: {
    title: 'Response cookies',
    headings: 'Set cookies',
    body: 'Set a cookie on the response with response.set_cookie(key, value).',
  },
  testing: {
    title: 'Testing',
    headings: 'TestClient',
    body: 'The TestClient sends requests to your application without a server. Override a dependency in tests.',
  },
};

function build(entries: Record<string, LexicalFields> = corpus, options: Partial<LexicalIndexOptions> = {}): LexicalIndex {
  const index = new LexicalIndex(options);
  for (const [key, fields] of Object.entries(entries)) index.add(key, fields);
  return index;
}

const keys = (index: LexicalIndex, query: string, limit = 10): string[] => index.search(query, limit).map((hit) => hit.key);

describe('LexicalIndex ranking', () => {
  const index = build();
  const cases: { query: string; expected: string[] }[] = [
    { query: 'dependency', expected: ['dependencies', 'security', 'testing'] },
    { query: 'how do I set a cookie', expected: ['cookies'] },
    { query: 'read_file', expected: ['files', 'security'] }, // "reads" in security stems to "read"
    { query: 'readFile', expected: ['files', 'security'] },
    { query: 'upload a file', expected: ['files'] },
    { query: 'oauth2 bearer token', expected: ['security'] },
    { query: 'testclient override dependencies', expected: ['testing', 'dependencies', 'security'] },
    { query: 'responses', expected: ['cookies'] },
  ];
  for (const { query, expected } of cases) {
    it(`"${query}"`, () => assert.deepEqual(keys(index, query), expected));
  }

  it('scores are positive and sorted best first', () => {
    const hits = index.search('dependency request', 10);
    assert.ok(hits.length > 1);
    for (const [position, hit] of hits.entries()) {
      assert.ok(hit.score > 0);
      if (position > 0) assert.ok((hits[position - 1]?.score ?? 0) >= hit.score);
    }
  });

  it('a whole identifier ranks above its parts scattered in prose', () => {
    const identifiers = build({
      scattered: { title: '', headings: '', body: 'read the file then read another file' },
      exact: { title: '', headings: '', body: 'call read_file on the path' },
    });
    assert.deepEqual(keys(identifiers, 'read_file'), ['exact', 'scattered']);
  });

  it('computes BM25F exactly as the pure function does', () => {
    const one: LexicalFields = { title: 'Cookies', headings: 'Set', body: 'set a cookie cookie' };
    const two: LexicalFields = { title: 'Files', headings: '', body: 'a cookie in a long body about other things entirely' };
    const small = build({ one, two });
    const { k1, title, headings, body } = defaultLexicalIndexOptions;
    // Field lengths in terms: one has 1, 1, 3 and two has 1, 0, 7 (stopwords dropped).
    const expected = bm25fTermScore(
      [
        { termFrequency: 1, length: 1, averageLength: 1, ...title },
        { termFrequency: 0, length: 1, averageLength: 0.5, ...headings },
        { termFrequency: 2, length: 3, averageLength: 5, ...body },
      ],
      inverseDocumentFrequency(2, 2),
      k1,
    );
    assert.deepEqual(
      [one, two].map((fields) => [fields.title, fields.headings, fields.body].map((text) => tokenize(text).length)),
      [
        [1, 1, 3],
        [1, 0, 7],
      ],
    );
    const hit = small.search('cookie', 10).find((candidate) => candidate.key === 'one');
    assert.ok(hit !== undefined);
    assert.ok(Math.abs(hit.score - expected) < 1e-9, `${hit.score} vs ${expected}`);
  });

  it('breaks ties by the order chunks were added', () => {
    const twins = build({ b: { title: '', headings: '', body: 'same words' }, a: { title: '', headings: '', body: 'same words' } });
    assert.deepEqual(keys(twins, 'words'), ['b', 'a']);
  });
});

describe('LexicalIndex field weights', () => {
  const entries: Record<string, LexicalFields> = {
    inTitle: { title: 'middleware', headings: 'other', body: 'some text about requests and responses' },
    inHeadings: { title: 'other', headings: 'middleware', body: 'some text about requests and responses' },
    inBody: { title: 'other', headings: 'other', body: 'middleware text about requests and responses' },
    neither: { title: 'other', headings: 'other', body: 'some text about requests and responses' },
  };
  const cases: { name: string; options: Partial<LexicalIndexOptions>; expected: string[] }[] = [
    { name: 'defaults: title, then headings, then body', options: {}, expected: ['inTitle', 'inHeadings', 'inBody'] },
    {
      name: 'a heavy body and light title reverse the order',
      options: { title: { weight: 0.5, b: 0.5 }, headings: { weight: 0.8, b: 0.5 }, body: { weight: 3, b: 0.4 } },
      expected: ['inBody', 'inHeadings', 'inTitle'],
    },
    {
      name: 'a field weighted 0 does not match at all',
      options: { title: { weight: 0, b: 0.5 } },
      expected: ['inHeadings', 'inBody'],
    },
  ];
  for (const { name, options, expected } of cases) {
    it(name, () => assert.deepEqual(keys(build(entries, options), 'middleware'), expected));
  }
});

describe('LexicalIndex updates', () => {
  it('counts chunks in size', () => {
    const index = new LexicalIndex();
    assert.equal(index.size, 0);
    index.add('a', corpus.files as LexicalFields);
    index.add('b', corpus.cookies as LexicalFields);
    assert.equal(index.size, 2);
  });

  it('removes a chunk, and re-adding brings it back with the same score', () => {
    const index = build();
    const before = index.search('cookie', 10);
    assert.equal(index.remove('cookies'), true);
    assert.equal(index.remove('cookies'), false);
    assert.equal(index.size, 4);
    assert.deepEqual(index.search('cookie', 10), []);
    assert.ok(!keys(index, 'response').includes('cookies'));
    index.add('cookies', corpus.cookies as LexicalFields);
    assert.deepEqual(index.search('cookie', 10), before);
  });

  it('scores after removals equal those of an index that never held the removed chunks', () => {
    const index = build();
    index.remove('security');
    index.remove('files');
    const { security: _security, files: _files, ...rest } = corpus;
    assert.deepEqual(index.search('dependency request token', 10), build(rest).search('dependency request token', 10));
  });

  it('replaces a chunk added again under the same key', () => {
    const index = build();
    index.add('files', { title: 'Background tasks', headings: '', body: 'Run work after returning a response.' });
    assert.equal(index.size, 5);
    assert.deepEqual(keys(index, 'upload file'), []);
    assert.deepEqual(keys(index, 'background tasks'), ['files']);
  });

  it('compacts after many removals and keeps answering the same', () => {
    const entries: Record<string, LexicalFields> = {};
    for (let number = 0; number < 200; number++) {
      entries[`chunk-${number}`] = {
        title: `page ${number % 7}`,
        headings: `section ${number % 3}`,
        body: `word${number % 11} shared text number${number}`,
      };
    }
    const index = build(entries);
    const survivors: Record<string, LexicalFields> = {};
    for (const [key, fields] of Object.entries(entries)) {
      if (Number(key.slice(6)) % 4 === 0) survivors[key] = fields;
      else index.remove(key);
    }
    assert.equal(index.size, 50);
    const fresh = build(survivors);
    for (const query of ['shared text', 'word3 page 2', 'number40 section', 'number41']) {
      assert.deepEqual(index.search(query, 20), fresh.search(query, 20), query);
    }
    index.add('late', { title: 'page 2', headings: '', body: 'word3 arrives late' });
    fresh.add('late', { title: 'page 2', headings: '', body: 'word3 arrives late' });
    assert.deepEqual(index.search('word3 late', 20), fresh.search('word3 late', 20));
  });

  it('an explicit compaction changes no result', () => {
    const index = build();
    index.remove('testing');
    const before = index.search('dependency', 10);
    index.compact();
    assert.deepEqual(index.search('dependency', 10), before);
    assert.equal(index.size, 4);
  });
});

describe('LexicalIndex queries and limits', () => {
  const index = build();
  const cases: { name: string; query: string; limit: number; count: number }[] = [
    { name: 'empty query', query: '', limit: 10, count: 0 },
    { name: 'whitespace and punctuation', query: '  ?! ', limit: 10, count: 0 },
    { name: 'stopwords only', query: 'what is the', limit: 10, count: 0 },
    { name: 'unknown words', query: 'zebra quokka', limit: 10, count: 0 },
    { name: 'limit 0', query: 'dependency', limit: 0, count: 0 },
    { name: 'negative limit', query: 'dependency', limit: -3, count: 0 },
    { name: 'limit 1', query: 'dependency', limit: 1, count: 1 },
    { name: 'fractional limit rounds down', query: 'dependency', limit: 2.7, count: 2 },
    { name: 'limit above the matches', query: 'dependency', limit: 100, count: 3 },
    { name: 'NaN limit', query: 'dependency', limit: Number.NaN, count: 0 },
  ];
  for (const { name, query, limit, count } of cases) {
    it(name, () => assert.equal(index.search(query, limit).length, count));
  }

  it('a limit keeps the best of the full ranking', () => {
    assert.deepEqual(keys(index, 'dependency request', 2), keys(index, 'dependency request', 10).slice(0, 2));
  });

  it('an empty index answers nothing', () => assert.deepEqual(new LexicalIndex().search('anything', 10), []));
});

describe('LexicalIndex.matchedTerms', () => {
  const index = build();
  const cases: [query: string, terms: string[]][] = [
    ['How do I set cookies?', ['set', 'cooki']],
    ['read_file zebra', ['read_file', 'read', 'file']],
    ['the', []],
  ];
  for (const [query, terms] of cases) {
    it(`"${query}"`, () => assert.deepEqual(index.matchedTerms(query), terms));
  }
});

describe('LexicalIndex.termsStartingWith', () => {
  it('counts the terms live chunks hold that start with a prefix, up to a cap', () => {
    const index = new LexicalIndex();
    index.add('a', { title: '', headings: '', body: 'set UV_CACHE_DIR and UV_INDEX_URL' });
    index.add('b', { title: '', headings: '', body: 'or UV_PYTHON, UV_NO_CACHE' });
    assert.equal(index.termsStartingWith('uv_', 10), 4);
    assert.equal(index.termsStartingWith('uv_', 3), 3);
    assert.equal(index.termsStartingWith('uv_z', 10), 0);
    index.remove('b');
    assert.equal(index.termsStartingWith('uv_', 10), 2);
  });
});

describe('LexicalIndex.termsHeld', () => {
  it('says which terms a chunk holds in any field, from its own term list, fresh and restored', () => {
    const index = new LexicalIndex();
    index.add('a', { title: 'Caching', headings: 'Cache directory', body: 'Set UV_CACHE_DIR to move it.' });
    index.add('b', { title: 'Proxies', headings: '', body: 'Behind a proxy, set HTTPS_PROXY.' });
    index.add('c', { title: 'Gone', headings: '', body: 'cache proxy' });
    index.remove('c');
    const terms = ['cach', 'directori', 'uv_cache_dir', 'proxi', 'https_proxy', 'unknown'];
    assert.deepEqual(tokenize('Cache directory proxy'), ['cach', 'directori', 'proxi'], 'the terms are those tokenize gives');
    for (const copy of [index, restored(index)]) {
      assert.deepEqual(copy.termsHeld('a', terms), [true, true, true, false, false, false]);
      assert.deepEqual(copy.termsHeld('b', terms), [false, false, false, true, true, false]);
      assert.deepEqual(copy.termsHeld('c', terms), [false, false, false, false, false, false], 'a removed chunk holds nothing');
      assert.deepEqual(copy.termsHeld('a', []), []);
    }
  });
});

/** What the storage layer does with a snapshot: strings through JSON, each typed array into a buffer of its own. */
/**
 * The index's snapshot as storage keeps it: its pieces joined into arrays of their own (as a file or a database row
 * holds them), the names through JSON.
 */
function throughStorage(index: LexicalIndex): LexicalSnapshot {
  const { terms, keys, lengthTotals, arrays } = index.toSnapshotInPieces();
  const joined = Object.entries(arrays).map(([name, { type, length, pieces }]) => {
    const array = new arrayOfType[type](length);
    let offset = 0;
    for (const piece of pieces()) {
      array.set(piece, offset);
      offset += piece.length;
    }
    assert.equal(offset, length, `${name}: the pieces hold the length announced`);
    return [name, array] as const;
  });
  return { ...JSON.parse(JSON.stringify({ terms, keys, lengthTotals })), arrays: Object.fromEntries(joined) };
}

const restored = (index: LexicalIndex, options: Partial<LexicalIndexOptions> = {}): LexicalIndex =>
  LexicalIndex.fromSnapshot(throughStorage(index), options);

function assertSameAnswers(actual: LexicalIndex, expected: LexicalIndex, queries: readonly string[], limit = 20): void {
  assert.equal(actual.size, expected.size);
  for (const query of queries) assert.deepEqual(actual.search(query, limit), expected.search(query, limit), query);
}

describe('LexicalIndex snapshots of real text', () => {
  const msmarco = join(fixturesDirectory, 'msmarco-trecdl-5k');
  const readLines = (file: string) =>
    readFileSync(join(msmarco, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
  const passages = readLines('corpus.jsonl').map((line) => JSON.parse(line) as { _id: string; text: string });
  const queries = [
    ...readLines('queries.jsonl').map((line) => (JSON.parse(line) as { text: string }).text),
    // Phrases from every 16th passage (125 of the fixture's 2,000), so that rare terms are asked for too.
    ...passages.filter((_, number) => number % 16 === 0).map(({ text }) => text.split(/\s+/).slice(8, 13).join(' ')),
  ];
  const asFields = (text: string): LexicalFields => {
    const words = text.split(/\s+/);
    return { title: words.slice(0, 5).join(' '), headings: words.slice(5, 10).join(' '), body: text };
  };
  const original = new LexicalIndex();
  for (const { _id, text } of passages) original.add(_id, asFields(text));
  // Too few removals for a compaction by itself: the snapshot has to leave the tombstones out.
  for (const [number, { _id }] of passages.entries()) if (number % 7 === 3) original.remove(_id);

  it('a restored index answers every query with the same hits and scores', () => {
    assert.equal(passages.length, 2000);
    assert.ok(queries.length > 150);
    assertSameAnswers(restored(original), original, queries);
  });
});

describe('LexicalIndex snapshots', () => {
  const queries = [
    'dependency',
    'cookie response',
    'upload file',
    'oauth2 token request',
    'testclient override',
    'background tasks',
    'late',
  ];

  it('takes its scoring options at restore time: they are not saved', () => {
    const options: Partial<LexicalIndexOptions> = { k1: 0.9, title: { weight: 0.5, b: 0.3 } };
    assertSameAnswers(restored(build(), options), build(corpus, options), queries);
  });

  it('keeps accepting adds, replacements and removals after a restore', () => {
    const changes = (index: LexicalIndex) => {
      index.add('tasks', { title: 'Background tasks', headings: 'BackgroundTasks', body: 'Run work after returning a response.' });
      index.add('files', { title: 'Request files', headings: '', body: 'File uploads arrive late, as UploadFile objects.' });
      index.remove('cookies');
    };
    const original = build();
    const copy = restored(original);
    changes(original);
    changes(copy);
    assertSameAnswers(copy, original, queries);
    copy.compact();
    assertSameAnswers(copy, original, queries);
  });

  it('restores the term lists of formats 2 to 5 (whole ids, in any order), which then change like its own', () => {
    const changes = (index: LexicalIndex) => {
      index.remove('files');
      index.add('tasks', { title: 'Background tasks', headings: '', body: 'Run work after returning a response.' });
    };
    const original = build();
    const snapshot = throughStorage(original);
    const bytes = snapshot.arrays.slotTerms as Uint8Array;
    const byteOffsets = snapshot.arrays.slotTermOffsets as Uint32Array;
    const ids: number[] = [];
    const offsets = [0];
    for (let slot = 0; slot + 1 < byteOffsets.length; slot++) {
      const list: number[] = [];
      forEachId(bytes, byteOffsets[slot] as number, byteOffsets[slot + 1] as number, (id) => list.push(id));
      ids.push(...list.reverse());
      offsets.push(ids.length);
    }
    const legacy = LexicalIndex.fromSnapshot({
      ...snapshot,
      arrays: { ...snapshot.arrays, slotTerms: Uint32Array.from(ids), slotTermOffsets: Uint32Array.from(offsets) },
    });
    const terms = snapshot.terms;
    for (const key of snapshot.keys) assert.deepEqual(legacy.termsHeld(key, terms), original.termsHeld(key, terms), key);
    changes(original);
    changes(legacy);
    assertSameAnswers(legacy, original, queries);
    for (const term of ['file', 'uploadfile', 'request', 'task'])
      assert.equal(legacy.chunksWithTerm(term), original.chunksWithTerm(term), term);
    assert.deepEqual(throughStorage(legacy), throughStorage(original));
  });

  it('leaves out removed chunks and unused terms, and the index it came from unchanged', () => {
    const index = build();
    index.remove('security');
    const before = queries.map((query) => index.search(query, 10));
    const snapshot = throughStorage(index);
    assert.deepEqual(snapshot.keys, ['dependencies', 'files', 'cookies', 'testing']);
    assert.ok(!snapshot.terms.includes('oauth2') && snapshot.terms.includes('cooki'));
    assert.deepEqual(
      queries.map((query) => index.search(query, 10)),
      before,
    );
    assertSameAnswers(LexicalIndex.fromSnapshot(snapshot), index, queries);
  });

  it('restores an empty index, which then grows like a new one', () => {
    const snapshot = throughStorage(new LexicalIndex());
    assert.deepEqual([snapshot.terms, snapshot.keys, snapshot.lengthTotals], [[], [], [0, 0, 0]]);
    const empty = LexicalIndex.fromSnapshot(snapshot);
    assert.equal(empty.size, 0);
    assert.deepEqual(empty.search('dependency', 10), []);
    for (const [key, fields] of Object.entries(corpus)) empty.add(key, fields);
    assertSameAnswers(empty, build(), queries);
  });

  it('an index whose chunks were all removed saves what an empty one does', () => {
    const index = build();
    for (const key of Object.keys(corpus)) index.remove(key);
    assert.deepEqual(throughStorage(index), throughStorage(new LexicalIndex()));
  });

  it('restores the same answers after any sequence of adds, removals and compactions', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'cookie', 'cookies', 'read_file', 'readFile', 'depends', 'the', 'zeta', 'eta'];
    const text = fc.array(fc.constantFrom(...words), { maxLength: 8 }).map((picked) => picked.join(' '));
    const fields = fc.record({ title: text, headings: text, body: text });
    const key = fc.constantFrom(...'abcdefghijkl');
    const operation = fc.oneof(
      { arbitrary: fc.tuple(fc.constant('add' as const), key, fields), weight: 6 },
      { arbitrary: fc.tuple(fc.constant('remove' as const), key), weight: 3 },
      { arbitrary: fc.constant(['compact' as const] as const), weight: 1 },
    );
    type Operation = typeof operation extends fc.Arbitrary<infer Value> ? Value : never;
    const wordQueries = [...words, 'alpha beta', 'cookie read_file zeta', 'gamma gamma delta'];
    const apply = (index: LexicalIndex, operations: readonly Operation[]) => {
      for (const [kind, key, fields] of operations) {
        if (kind === 'compact') index.compact();
        else if (kind === 'remove') index.remove(key);
        else index.add(key, fields);
      }
    };
    /** The chunks left after `operations`, in the index's order: a replaced chunk moves to the end. */
    const liveAfter = (operations: readonly Operation[]): Record<string, LexicalFields> => {
      const live = new Map<string, LexicalFields>();
      for (const [kind, key, fields] of operations) {
        if (kind === 'compact') continue;
        live.delete(key);
        if (kind === 'add') live.set(key, fields);
      }
      return Object.fromEntries(live);
    };
    const sequences = fc.array(operation, { maxLength: 80 });
    const property = fc.property(sequences, sequences, (before, after) => {
      const original = new LexicalIndex();
      apply(original, before);
      const copy = restored(original);
      assertSameAnswers(copy, original, wordQueries);
      apply(original, after);
      apply(copy, after);
      assertSameAnswers(copy, original, wordQueries);
      assertSameAnswers(copy, build(liveAfter([...before, ...after])), wordQueries);
    });
    fc.assert(property, { numRuns: 300 });
  });
});

describe('LexicalIndex.fromSnapshot refuses an inconsistent snapshot', () => {
  const snapshot = throughStorage(build());
  const { postings, slotTerms, slotTermOffsets, fieldLengths } = snapshot.arrays as {
    [name in 'postings' | 'slotTermOffsets']: Uint32Array;
  } & { slotTerms: Uint8Array; fieldLengths: Float32Array };
  const changed = (array: Uint32Array, offset: number, value: number): Uint32Array => {
    const copy = array.slice();
    copy[offset] = value;
    return copy;
  };
  const cases: { name: string; change: Partial<LexicalSnapshot>; message: RegExp }[] = [
    { name: 'one key too many', change: { keys: [...snapshot.keys, 'extra'] }, message: /slotTermOffsets has 6 entries for 6 keys/ },
    {
      name: 'a key twice',
      change: { keys: snapshot.keys.map((key, slot) => (slot === 1 ? snapshot.keys[0] : key) as string) },
      message: /keys: some appear twice/,
    },
    { name: 'one term too few', change: { terms: snapshot.terms.slice(1) }, message: /postings holds \d+ postings, slotTerms \d+/ },
    {
      name: 'a term twice',
      change: { terms: snapshot.terms.map((term, id) => (id === 1 ? snapshot.terms[0] : term) as string) },
      message: /terms: some appear twice/,
    },
    { name: 'two length totals', change: { lengthTotals: [1, 2] }, message: /lengthTotals must be 3 totals/ },
    { name: 'no arrays', change: { arrays: {} }, message: /postings must be a Uint32Array/ },
    {
      name: 'an array of the wrong type',
      change: { arrays: { ...snapshot.arrays, fieldLengths: new Uint32Array(fieldLengths.length) } },
      message: /fieldLengths must be a Float32Array/,
    },
    {
      name: 'fieldLengths one chunk short',
      change: { arrays: { ...snapshot.arrays, fieldLengths: fieldLengths.slice(3) } },
      message: /fieldLengths has 12 entries for 5 keys/,
    },
    {
      name: 'slotTerms one short',
      change: { arrays: { ...snapshot.arrays, slotTerms: slotTerms.slice(1) } },
      message: /slotTermOffsets run from 0 to \d+, slotTerms has \d+ entries/,
    },
    {
      // One more id at the end of the last list: the offsets still add up, the number of ids does not.
      name: 'slotTerms one id too many',
      change: {
        arrays: {
          ...snapshot.arrays,
          slotTerms: Uint8Array.from([...slotTerms, 0]),
          slotTermOffsets: changed(slotTermOffsets, slotTermOffsets.length - 1, slotTerms.length + 1),
        },
      },
      message: /postings holds (\d+) postings, slotTerms (?!\1)\d+/,
    },
    {
      name: 'decreasing slotTermOffsets',
      change: { arrays: { ...snapshot.arrays, slotTermOffsets: changed(slotTermOffsets, 2, 0) } },
      message: /slotTermOffsets decreases at slot 1/,
    },
    {
      name: 'postings cut short',
      change: { arrays: { ...snapshot.arrays, postings: postings.slice(0, -2) } },
      message: /postings holds \d+ postings, slotTerms \d+/,
    },
    {
      name: 'a wrong posting count in a block',
      change: { arrays: { ...snapshot.arrays, postings: changed(postings, 3, 2) } },
      message: /postings: the block of term 1 at word \d+ of \d+ is missing, empty or chained/,
    },
    {
      name: 'an empty block',
      change: { arrays: { ...snapshot.arrays, postings: changed(postings, 3, 0) } },
      message: /postings: the block of term 0 at word \d+ of \d+ is missing, empty or chained/,
    },
    {
      name: 'a chained block',
      change: { arrays: { ...snapshot.arrays, postings: changed(postings, 2, 7) } },
      message: /postings: the block of term 0 at word \d+ of \d+ is missing, empty or chained/,
    },
  ];
  for (const { name, change, message } of cases) {
    it(name, () => {
      assert.throws(
        () => LexicalIndex.fromSnapshot({ ...throughStorage(build()), ...change }),
        (error: Error) => {
          assert.match(error.message, /^Lexical snapshot is unusable: /);
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }

  it('a wrong posting count in the last block', () => {
    const single = throughStorage(build({ only: { title: '', headings: '', body: 'cookie' } }));
    const arrays = { ...single.arrays, postings: changed(single.arrays.postings as Uint32Array, 3, 2) };
    assert.throws(() => LexicalIndex.fromSnapshot({ ...single, arrays }), /postings: the blocks of 1 terms end at word 8, the array at 6/);
  });

  it('something that is not a snapshot at all', () => {
    assert.throws(
      () => LexicalIndex.fromSnapshot(JSON.parse('{"terms": []}') as LexicalSnapshot),
      /^Error: Lexical snapshot is unusable: /,
    );
  });
});

describe('LexicalIndex search skips postings that cannot change the result', () => {
  // 12,000 chunks (three scoring windows) over a skewed vocabulary: a few words in most chunks, many in a few, so
  // the common words' postings are skipped once the result's last score is high enough.
  const random = seededRandom(7);
  const vocabulary = Array.from({ length: 400 }, (_, rank) => `w${rank}x`);
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)] as string;
  const text = (length: number) => Array.from({ length }, word).join(' ');
  const live = new Map<string, LexicalFields>();
  const index = new LexicalIndex();
  for (let number = 0; number < 12_000; number++) {
    const fields = {
      title: text(1 + Math.floor(random() * 3)),
      headings: text(Math.floor(random() * 4)),
      body: text(5 + Math.floor(random() * 40)),
    };
    const key = `c${number % 11_000}`;
    live.delete(key);
    live.set(key, fields);
    index.add(key, fields);
    if (number % 7 === 0) {
      const removed = `c${Math.floor(random() * number)}`;
      live.delete(removed);
      index.remove(removed);
    }
  }
  const queries = Array.from({ length: 40 }, (_, number) => text(2 + (number % 6)));

  const tokenized = [...live].map(([key, fields]) => ({ key, fields: [fields.title, fields.headings, fields.body].map(tokenize) }));
  const averages = [0, 1, 2].map(
    (field) => tokenized.reduce((sum, chunk) => sum + (chunk.fields[field] as string[]).length, 0) / tokenized.length,
  );
  const settings = [defaultLexicalIndexOptions.title, defaultLexicalIndexOptions.headings, defaultLexicalIndexOptions.body];

  /** Every live chunk's score for `query`, written out with the reference formulas, best first. */
  function fullRanking(query: string): { key: string; score: number }[] {
    const terms = queryTerms(query).map((term) => ({
      term,
      chunks: tokenized.filter((chunk) => chunk.fields.some((terms) => terms.includes(term))).length,
    }));
    const ranking = tokenized.map(({ key, fields }) => {
      let score = 0;
      for (const { term, chunks } of terms) {
        if (!fields.some((terms) => terms.includes(term))) continue;
        score += bm25fTermScore(
          fields.map((terms, field) => ({
            termFrequency: terms.filter((candidate) => candidate === term).length,
            length: terms.length,
            averageLength: averages[field] as number,
            ...(settings[field] as { weight: number; b: number }),
          })),
          inverseDocumentFrequency(tokenized.length, chunks),
          defaultLexicalIndexOptions.k1,
        );
      }
      return { key, score };
    });
    return ranking.filter(({ score }) => score > 0).sort((left, right) => right.score - left.score);
  }

  it('returns the exhaustive ranking, fresh and restored from a snapshot', () => {
    const copy = restored(index);
    for (const query of queries) {
      const expected = fullRanking(query);
      const scoreOf = new Map(expected.map(({ key, score }) => [key, score]));
      for (const limit of [1, 5, 40]) {
        for (const searched of [index, copy]) {
          const hits = searched.search(query, limit);
          assert.equal(hits.length, Math.min(limit, expected.length), query);
          hits.forEach((hit, rank) => {
            // Each hit carries its own full score, and the scores are the best ones (ties aside, by 1e-9).
            assert.ok(Math.abs(hit.score - (scoreOf.get(hit.key) ?? 0)) < 1e-9, `${query}: ${hit.key}`);
            assert.ok(Math.abs(hit.score - (expected[rank] as { score: number }).score) < 1e-9, `${query}: rank ${rank}`);
          });
        }
      }
    }
  });
});
