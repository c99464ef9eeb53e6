import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bm25fTermScore, inverseDocumentFrequency } from '../../src/search/bm25.js';
import { LexicalIndex, defaultLexicalIndexOptions, type LexicalFields, type LexicalIndexOptions } from '../../src/search/lexical-index.js';
import { tokenize } from '../../src/search/tokenize.js';

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
    assert.deepEqual([one, two].map((fields) => [fields.title, fields.headings, fields.body].map((text) => tokenize(text).length)), [[1, 1, 3], [1, 0, 7]]);
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
      entries[`chunk-${number}`] = { title: `page ${number % 7}`, headings: `section ${number % 3}`, body: `word${number % 11} shared text number${number}` };
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
