// The playground's pure text rules (web/src): what a streamed answer may show yet, its citations and Sources line,
// what the "URLs or text" box adds, and how excerpts are displayed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settledLength, splitCitations, splitSources } from '../../web/src/answer-text.js';
import { displayExcerpt } from '../../web/src/excerpt-text.js';
import { parsePasted, toRequestSource } from '../../web/src/pasted-sources.js';

describe('playground answer text', () => {
  it('holds back a citation still being written, trailing space and a line that may become the Sources line', () => {
    const cases: [text: string, shown: string][] = [
      ['Tokens rotate every 90 days', 'Tokens rotate every 90 days'],
      ['Tokens rotate [', 'Tokens rotate'],
      ['Tokens rotate [1', 'Tokens rotate'],
      ['Tokens rotate [12]', 'Tokens rotate [12]'],
      ['Tokens rotate [1] ', 'Tokens rotate [1]'],
      ['Tokens rotate [1].\n\nSour', 'Tokens rotate [1].'],
      ['Tokens rotate [1].\n\nSources: Token rotation', 'Tokens rotate [1].'],
      ['Tokens rotate [1].\n\nSee also', 'Tokens rotate [1].\n\nSee also'],
      ['S', ''],
      ['Sure', 'Sure'],
      ['a [b] c', 'a [b] c'],
    ];
    for (const [text, shown] of cases) assert.equal(text.slice(0, settledLength(text)), shown, JSON.stringify(text));
  });

  it('splits [n] citations of existing snippets from the text, leaving other brackets as text', () => {
    assert.deepEqual(splitCitations('Rotate [1] and [3], see [2][1] or [0] or [x].', 2), [
      { kind: 'text', text: 'Rotate ' },
      { kind: 'citation', number: 1 },
      { kind: 'text', text: ' and [3], see ' },
      { kind: 'citation', number: 2 },
      { kind: 'citation', number: 1 },
      { kind: 'text', text: ' or [0] or [x].' },
    ]);
    assert.deepEqual(splitCitations('', 2), []);
  });

  it('separates the final Sources line', () => {
    assert.deepEqual(splitSources('Rotate [1].\n\nSources: rotation.md, keys.md\n'), { body: 'Rotate [1].', sources: ['rotation.md', 'keys.md'] });
    assert.deepEqual(splitSources('Nothing was found.\n\nSources: none'), { body: 'Nothing was found.', sources: [] });
    assert.deepEqual(splitSources('No sources line'), { body: 'No sources line', sources: undefined });
  });
});

describe('playground pasted sources', () => {
  it('takes lines that are all URLs as URL sources, anything else as one text document', () => {
    assert.deepEqual(parsePasted('  \n'), []);
    assert.deepEqual(parsePasted('https://a.example/x\n\nhttp://b.example/y\nhttps://a.example/x'), [
      { kind: 'url', url: 'https://a.example/x' },
      { kind: 'url', url: 'http://b.example/y' },
    ]);
    assert.deepEqual(parsePasted('# Holidays\n\nClosed in August. https://a.example'), [{ kind: 'text', title: 'Holidays', text: '# Holidays\n\nClosed in August. https://a.example' }]);
    assert.deepEqual(parsePasted('ftp://a.example/file'), [{ kind: 'text', title: 'ftp://a.example/file', text: 'ftp://a.example/file' }]);
    assert.equal((parsePasted(`${'x'.repeat(100)}\nmore`)[0] as { title: string }).title.length, 80);
  });

  it('sends them as Variant 2 sources', () => {
    assert.deepEqual(toRequestSource({ kind: 'url', url: 'https://a.example' }), { type: 'url', value: 'https://a.example' });
    assert.deepEqual(toRequestSource({ kind: 'text', title: 'T', text: 'body' }), { type: 'markdown', value: 'body', title: 'T' });
  });
});

describe('playground excerpts', () => {
  it('drops a leading Markdown heading that repeats the title shown above the excerpt', () => {
    assert.equal(displayExcerpt('# Caching Responses are cached.', 'Caching'), 'Responses are cached.');
    assert.equal(displayExcerpt('## Rollback A failed rollout…', 'Deployment'), '## Rollback A failed rollout…');
    assert.equal(displayExcerpt('…cached for five minutes', 'Caching'), '…cached for five minutes');
  });
});
