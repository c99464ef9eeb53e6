import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { excerptAround } from '../../src/search/excerpt.js';
import { queryTerms } from '../../src/indexes/tokenize.js';

const filler = (word: string, count: number): string => Array.from({ length: count }, (_, index) => `${word}${index}`).join(' ');
const middle = `${filler('alpha', 30)} To declare dependencies use Depends in the function. ${filler('omega', 30)}`;
const twoClusters = `${filler('alpha', 20)} one cookie here. ${filler('beta', 20)} set_cookie writes a cookie on the response. ${filler('omega', 20)}`;

describe('excerptAround', () => {
  const cases: { name: string; text: string; query: string; maxChars: number; expected: string }[] = [
    { name: 'short text comes back whole', text: 'Short text.', query: 'text', maxChars: 100, expected: 'Short text.' },
    { name: 'whitespace runs become single spaces', text: '  Short\n\n  text.  ', query: 'text', maxChars: 100, expected: 'Short text.' },
    { name: 'maxChars 0', text: middle, query: 'depends', maxChars: 0, expected: '' },
    {
      name: 'centred on the match',
      text: middle,
      query: 'Depends',
      maxChars: 60,
      expected: '…alpha28 alpha29 To declare dependencies use Depends in the…',
    },
    {
      name: 'no match falls back to the start',
      text: middle,
      query: 'zebra',
      maxChars: 40,
      expected: 'alpha0 alpha1 alpha2 alpha3 alpha4…',
    },
    {
      name: 'a match at the very end has no trailing ellipsis',
      text: `${filler('alpha', 30)} the last word`,
      query: 'last word',
      maxChars: 30,
      expected: '…alpha28 alpha29 the last word',
    },
    {
      name: 'the densest cluster wins over an earlier lone match',
      text: twoClusters,
      query: 'set cookie response',
      maxChars: 60,
      expected: '…beta19 set_cookie writes a cookie on the response. omega0…',
    },
    {
      name: 'terms match through tokenize (stems, identifiers)',
      text: middle,
      query: 'dependency',
      maxChars: 30,
      expected: '…dependencies use Depends in…',
    },
  ];
  for (const { name, text, query, maxChars, expected } of cases) {
    it(name, () => assert.equal(excerptAround(text, queryTerms(query), maxChars), expected));
  }

  it('never exceeds maxChars and, with room for words, cuts only between them', () => {
    const words = new Set(middle.split(/\s+/));
    for (const maxChars of [1, 3, 5, 12, 30, 33, 80, 150]) {
      for (const query of ['depends', 'omega3', 'alpha0', 'zebra']) {
        const excerpt = excerptAround(middle, queryTerms(query), maxChars);
        assert.ok(excerpt.length <= maxChars, `${maxChars}: ${excerpt}`);
        if (maxChars < 30) continue;
        for (const word of excerpt.replace(/^…|…$/g, '').split(' ')) assert.ok(words.has(word), `${word} in ${excerpt}`);
      }
    }
  });

  it('keeps the matching word when it is the only one that fits', () => {
    assert.equal(excerptAround(middle, queryTerms('declare'), 10), '…declare…');
  });

  it('cuts text without spaces into pieces rather than returning all of it', () => {
    const japanese = '東京都に住んでいます。'.repeat(30);
    const excerpt = excerptAround(japanese, queryTerms('住んで'), 60);
    assert.ok(excerpt.length <= 60 && excerpt.length > 40, excerpt);
    assert.ok(excerpt.includes('住ん'));
  });
});
