// Documentation-site syntax turned into plain Markdown: what readers, rankers and answers see.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeDocSiteMarkup } from '../../src/markdown/doc-site-markup.js';

describe('normalizeDocSiteMarkup', () => {
  const cases: { name: string; input: string; expected: string }[] = [
    { name: 'heading attributes go', input: '## Origin { #origin }\n\nText.', expected: '## Origin\n\nText.' },
    { name: 'attribute lists with classes go too', input: '# Title {: .big #top }', expected: '# Title' },
    { name: 'include directives go', input: 'Before.\n\n{* ../../docs_src/app.py hl[3] *}\n\nAfter.', expected: 'Before.\n\nAfter.' },
    {
      name: 'a line that starts like a fence but holds backticks in its info string opens none (the chunker agrees)',
      input: '```js``` is inline code.\n\n{* ../../docs_src/app.py *}\n\nAfter.',
      expected: '```js``` is inline code.\n\nAfter.',
    },
    {
      name: 'an admonition fence becomes its kind in bold, the content stays',
      input: '/// tip\n\nUse it.\n\n///',
      expected: '**Tip**\n\nUse it.\n',
    },
    {
      name: 'a titled admonition keeps its title in bold',
      input: '/// note | Technical Details\n\nDetails.\n\n///',
      expected: '**Technical Details**\n\nDetails.\n',
    },
    {
      name: 'tabs (four slashes) keep their label',
      input: '//// tab | Python 3.10+\n\nCode.\n\n////',
      expected: '**Python 3.10+**\n\nCode.\n',
    },
    {
      name: 'Python-Markdown admonitions are dedented',
      input: '!!! warning "Careful"\n    Indented text.\n\nNext.',
      expected: '**Careful**\n\nIndented text.\n\nNext.',
    },
    {
      name: 'API reference directives go with their options',
      input: '::: fastapi.Request\n    options:\n      show: true\n\nProse.',
      expected: 'Prose.',
    },
    { name: 'abbreviations keep their text', input: 'Use an <abbr title="Object-Relational Mapper">ORM</abbr>.', expected: 'Use an ORM.' },
    {
      name: 'HTML emphasis and code become Markdown',
      input: 'A <b>bold</b> and <code>x</code> and <kbd>Ctrl</kbd>.',
      expected: 'A **bold** and `x` and `Ctrl`.',
    },
    {
      name: 'absolute HTML links become Markdown links',
      input: 'See <a href="https://example.com/x">here</a>.',
      expected: 'See [here](https://example.com/x).',
    },
    {
      name: 'relative links keep their text',
      input: 'See [Background Tasks](background-tasks.md#caveat).',
      expected: 'See Background Tasks.',
    },
    {
      name: 'absolute links stay',
      input: 'See [MDN](https://developer.mozilla.org/).',
      expected: 'See [MDN](https://developer.mozilla.org/).',
    },
    { name: 'relative images go', input: 'Look: ![diagram](/img/a.svg) done.', expected: 'Look:  done.' },
    {
      name: 'placeholders that are not HTML stay',
      input: 'Send <your-token> as the header.',
      expected: 'Send <your-token> as the header.',
    },
    { name: 'inline code is left alone', input: 'Write `<b>` and `{ #x }` literally.', expected: 'Write `<b>` and `{ #x }` literally.' },
    {
      name: 'code blocks are left alone, except colour tags in terminal transcripts',
      input: '```html\n<span>kept</span>\n```\n\n```console\n<span style="color: green;">INFO</span>: ok\n```',
      expected: '```html\n<span>kept</span>\n```\n\n```console\nINFO: ok\n```',
    },
    {
      name: 'plain Markdown passes unchanged',
      input: '# Title\n\nText with `code` and [a link](https://a.b).\n\n- item',
      expected: '# Title\n\nText with `code` and [a link](https://a.b).\n\n- item',
    },
  ];
  for (const { name, input, expected } of cases) {
    it(name, () => assert.equal(normalizeDocSiteMarkup(input), expected));
  }

  it('drops the targets of relative links whose text is code only when asked (for quoted text)', () => {
    const input = 'Use the provided [`GzipMiddleware`](../advanced/middleware.md#gzip) or [the `Request`](request.md), not `[a](b.md)`.';
    assert.equal(normalizeDocSiteMarkup(input), input);
    assert.equal(
      normalizeDocSiteMarkup(input, { plainCodeLinks: true }),
      'Use the provided `GzipMiddleware` or the `Request`, not `[a](b.md)`.',
    );
    assert.equal(normalizeDocSiteMarkup('See [`Query`](https://x.dev/q).', { plainCodeLinks: true }), 'See [`Query`](https://x.dev/q).');
  });

  it('is idempotent', () => {
    const input = '## A { #a }\n\n/// tip\n\nSee [B](b.md) and <abbr title="t">C</abbr>.\n\n///\n';
    const once = normalizeDocSiteMarkup(input);
    assert.equal(normalizeDocSiteMarkup(once), once);
  });
});
