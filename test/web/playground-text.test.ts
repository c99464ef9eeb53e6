// The playground's pure text rules (web/src): what a streamed answer may show yet, its citations and Sources line,
// what the "URLs or text" box adds, and how excerpts are displayed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settledLength, splitSources } from '../../web/src/answer-text.js';
import { parseInlines, parseMarkdown, safeHref } from '../../web/src/markdown.js';
import { displayExcerpt } from '../../web/src/excerpt-text.js';
import { describePasted, parsePasted, toRequestSource } from '../../web/src/pasted-sources.js';

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

  it('separates the final Sources line', () => {
    assert.deepEqual(splitSources('Rotate [1].\n\nSources: rotation.md, keys.md\n'), {
      body: 'Rotate [1].',
      sources: ['rotation.md', 'keys.md'],
    });
    assert.deepEqual(splitSources('Nothing was found.\n\nSources: none'), { body: 'Nothing was found.', sources: [] });
    assert.deepEqual(splitSources('No sources line'), { body: 'No sources line', sources: undefined });
  });
});

describe('playground Markdown', () => {
  it('reads [n] citations of existing snippets, leaving other brackets as text', () => {
    assert.deepEqual(parseInlines('Rotate [1] and [3], see [2][1] or [0] or [x].', 2), [
      { kind: 'text', text: 'Rotate ' },
      { kind: 'citation', number: 1 },
      { kind: 'text', text: ' and [3], see ' },
      { kind: 'citation', number: 2 },
      { kind: 'citation', number: 1 },
      { kind: 'text', text: ' or [0] or [x].' },
    ]);
    assert.deepEqual(parseInlines('', 2), []);
  });

  it('reads code spans, bold, italics and links; snake_case and markup stay text', () => {
    assert.deepEqual(parseInlines('Set `max_connections` to **100** or *more*, see [the guide](https://a.example/g) [1].', 1), [
      { kind: 'text', text: 'Set ' },
      { kind: 'code', text: 'max_connections' },
      { kind: 'text', text: ' to ' },
      { kind: 'strong', children: [{ kind: 'text', text: '100' }] },
      { kind: 'text', text: ' or ' },
      { kind: 'emphasis', children: [{ kind: 'text', text: 'more' }] },
      { kind: 'text', text: ', see ' },
      { kind: 'link', href: 'https://a.example/g', children: [{ kind: 'text', text: 'the guide' }] },
      { kind: 'text', text: ' ' },
      { kind: 'citation', number: 1 },
      { kind: 'text', text: '.' },
    ]);
    assert.deepEqual(parseInlines('use snake_case_names and <img src=x onerror=alert(1)>', 0), [
      { kind: 'text', text: 'use snake_case_names and <img src=x onerror=alert(1)>' },
    ]);
    assert.deepEqual(parseInlines('Docs at https://a.example/docs.', 0), [
      { kind: 'text', text: 'Docs at ' },
      { kind: 'link', href: 'https://a.example/docs', children: [{ kind: 'text', text: 'https://a.example/docs' }] },
      { kind: 'text', text: '.' },
    ]);
  });

  it('follows only http(s) and mailto links', () => {
    for (const text of ['[click](javascript:alert(1))', '[click](javascript:void)', '[x](data:text/html,hi)', '<javascript:alert(1)>']) {
      assert.ok(!parseInlines(text, 0).some((inline) => inline.kind === 'link'), text);
    }
    assert.deepEqual(parseInlines('[click](javascript:void)', 0), [{ kind: 'text', text: 'click' }]);
    assert.equal(safeHref('javascript:alert(1)'), undefined);
    assert.equal(safeHref('data:text/html,<b>x</b>'), undefined);
    assert.equal(safeHref('/relative'), undefined);
    assert.equal(safeHref('mailto:team@a.example'), 'mailto:team@a.example');
  });

  it('reads headings, lists, quotes, rules and fenced code (unclosed while streaming)', () => {
    const blocks = parseMarkdown(
      '## Setup\n\nInstall it:\n\n```sh\nnpm install [1]\n<b>x</b>\n```\n\n- one [1]\n- two\n  more\n\n3. three\n4. four\n\n> quoted\n\n---\n\n```js\nlet open',
      1,
    );
    assert.deepEqual(
      blocks.map((block) => block.kind),
      ['heading', 'paragraph', 'code', 'list', 'list', 'quote', 'rule', 'code'],
    );
    assert.deepEqual(blocks[2], { kind: 'code', language: 'sh', text: 'npm install [1]\n<b>x</b>' });
    const bullets = blocks[3] as unknown as { ordered: boolean; items: unknown[][] };
    assert.equal(bullets.ordered, false);
    assert.deepEqual(bullets.items[1], [{ kind: 'text', text: 'two\nmore' }]);
    assert.deepEqual({ ...(blocks[4] as object), items: undefined }, { kind: 'list', ordered: true, start: 3, items: undefined });
    assert.deepEqual(blocks[7], { kind: 'code', language: 'js', text: 'let open' });
  });
});

describe('playground pasted sources', () => {
  it('takes each line that is a URL as a URL source and the rest as one text document beside them', () => {
    assert.deepEqual(parsePasted('  \n'), []);
    assert.deepEqual(parsePasted('https://a.example/x\n\nhttp://b.example/y\nhttps://a.example/x'), [
      { kind: 'url', url: 'https://a.example/x' },
      { kind: 'url', url: 'http://b.example/y' },
    ]);
    assert.deepEqual(parsePasted('# Holidays\n\nClosed in August. https://a.example'), [
      { kind: 'text', title: 'Holidays', text: '# Holidays\n\nClosed in August. https://a.example' },
    ]);
    assert.deepEqual(parsePasted('https://a.example/guide\n\n# Holidays\n\nClosed in August.\n  https://b.example/faq  \n'), [
      { kind: 'url', url: 'https://a.example/guide' },
      { kind: 'url', url: 'https://b.example/faq' },
      { kind: 'text', title: 'Holidays', text: '# Holidays\n\nClosed in August.' },
    ]);
    assert.equal(
      describePasted(parsePasted('https://a.example/guide\nSome notes')),
      '1 URL, fetched by the service; and text, added as the document "Some notes".',
    );
    assert.equal(describePasted(parsePasted('https://a.example/guide\nhttps://b.example')), '2 URLs, fetched by the service.');
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
