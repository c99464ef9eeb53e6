import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { queryTerms, stem, stopwords, tokenize } from '../../src/indexes/tokenize.js';

describe('tokenize', () => {
  const cases: { name: string; text: string; terms: string[] }[] = [
    { name: 'empty text', text: '', terms: [] },
    { name: 'punctuation only', text: '  ,;; -- !! ', terms: [] },
    {
      name: 'plain English is lowercased, stemmed, stopwords dropped',
      text: 'The quick brown foxes are running',
      terms: ['quick', 'brown', 'fox', 'run'],
    },
    { name: 'only stopwords', text: 'what is the answer to it', terms: ['answer'] },
    {
      name: 'Porter stemming joins inflections',
      text: 'connected connecting connection connections',
      terms: ['connect', 'connect', 'connect', 'connect'],
    },
    { name: 'digits are words', text: 'HTTP 404 error', terms: ['http', '404', 'error'] },
    { name: 'snake_case', text: 'read_file', terms: ['read_file', 'read', 'file'] },
    { name: 'camelCase', text: 'readFile', terms: ['readfile', 'read', 'file'] },
    { name: 'PascalCase with an acronym', text: 'XMLHttpRequest', terms: ['xmlhttprequest', 'xml', 'http', 'request'] },
    { name: 'digits before a capital split too', text: 'base64Encode', terms: ['base64encode', 'base64', 'encod'] },
    { name: 'plural acronyms stay one word', text: 'URLs APIs', terms: ['url', 'api'] },
    { name: 'dotted name', text: 'fastapi.Depends', terms: ['fastapi.depends', 'fastapi', 'depend'] },
    { name: 'kebab-case', text: 'kebab-case', terms: ['kebab-case', 'kebab', 'case'] },
    { name: 'path', text: 'src/search/tokenize.ts', terms: ['src/search/tokenize.ts', 'src', 'search', 'token', 'ts'] },
    { name: 'double colons', text: 'std::vec', terms: ['std::vec', 'std', 'vec'] },
    {
      name: 'dotted name with a camelCase part keeps that part whole too',
      text: 'self.readFile',
      terms: ['self.readfile', 'self', 'readfile', 'read', 'file'],
    },
    { name: 'stopwords stay inside a whole identifier', text: 'get_or_create', terms: ['get_or_create', 'get', 'creat'] },
    { name: 'leading and trailing underscores are not part of the name', text: '__init__', terms: ['init'] },
    { name: 'sentence punctuation does not join words', text: 'the end. Next-', terms: ['end', 'next'] },
    { name: 'a trailing period is not part of a file name', text: 'Open app.py.', terms: ['open', 'app.py', 'app', 'py'] },
    { name: 'dashes in front of a flag', text: '--reload', terms: ['reload'] },
    {
      name: 'apostrophes and possessives',
      text: "don't touch FastAPI's user’s",
      terms: ['dont', 'touch', 'fastapi', 'fast', 'api', 'user'],
    },
    { name: 'IP address', text: '127.0.0.1', terms: ['127.0.0.1', '127', '0', '0', '1'] },
    { name: 'Latin diacritics are removed', text: 'Café naïve Ångström', terms: ['cafe', 'naiv', 'angstrom'] },
    { name: 'identifier with diacritics', text: 'naïve_café', terms: ['naive_cafe', 'naiv', 'cafe'] },
    { name: 'Cyrillic keeps its letters (й is not stripped)', text: 'Привет, мир! Дома й', terms: ['привет', 'мир', 'дома', 'й'] },
    { name: 'Greek keeps its accents', text: 'Καλημέρα κόσμε', terms: ['καλημέρα', 'κόσμε'] },
    {
      name: 'Japanese becomes character bigrams',
      text: '東京都に住んでいます',
      terms: ['東京', '京都', '都に', 'に住', '住ん', 'んで', 'でい', 'いま', 'ます'],
    },
    { name: 'Latin inside Japanese is a word of its own', text: 'Pythonを使う', terms: ['python', 'を使', '使う'] },
    { name: 'a single ideograph', text: '猫', terms: ['猫'] },
    { name: 'half-width katakana are normalized (NFKC)', text: 'ｶﾀｶﾅ', terms: ['カタ', 'タカ', 'カナ'] },
    { name: 'full-width letters and ligatures are normalized (NFKC)', text: 'ＦＵＬＬ ﬁle', terms: ['full', 'file'] },
    { name: 'decomposed accents are folded like composed ones', text: 'cafe\u0301', terms: ['cafe'] },
    { name: 'terms longer than 64 characters are dropped', text: `${'x'.repeat(65)} short`, terms: ['short'] },
  ];
  for (const { name, text, terms } of cases) {
    it(name, () => assert.deepEqual(tokenize(text), terms));
  }

  it('gives a query the same terms as the text it should find', () => {
    assert.deepEqual(tokenize('How do I use readFile?'), ['us', 'readfile', 'read', 'file']);
    assert.ok(tokenize('def read_file(path):').includes('read'));
  });
});

describe('queryTerms', () => {
  const cases: { query: string; terms: string[] }[] = [
    { query: 'file files FILE', terms: ['file'] },
    { query: 'read_file read', terms: ['read_file', 'read', 'file'] },
    { query: 'the of and', terms: [] },
  ];
  for (const { query, terms } of cases) {
    it(`"${query}"`, () => assert.deepEqual(queryTerms(query), terms));
  }
});

describe('stem', () => {
  const cases: [string, string][] = [
    ['running', 'run'],
    ['ponies', 'poni'],
    ['caresses', 'caress'],
    ['relational', 'relat'],
    ['as', 'as'],
    ['дома', 'дома'],
    ['v2', 'v2'],
  ];
  for (const [word, expected] of cases) {
    it(`${word} -> ${expected}`, () => assert.equal(stem(word), expected));
  }
});

describe('stopwords', () => {
  it('is a small list of lowercase English words', () => {
    assert.ok(stopwords.size < 100);
    for (const word of stopwords) assert.match(word, /^[a-z]+$/);
  });
});
