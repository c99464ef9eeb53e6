import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { previewMarkdown, withoutLinkTargets } from '../../src/markdown/preview-text.js';
import { excerptAround } from '../../src/search/excerpt.js';

describe('withoutLinkTargets', () => {
  const cases: [string, string, string][] = [
    ['a link', 'See [the guide](https://vuejs.org/guide/) first.', 'See the guide first.'],
    ['an image', 'A ![diagram of the flow](./flow.png) here.', 'A diagram of the flow here.'],
    ['a link with a title', '[Docs](https://example.com/a "The docs")!', 'Docs!'],
    ['a destination in angle brackets', '[x](<https://example.com/a>)', 'x'],
    ['code in the link text', 'Use [`$forceUpdate()`](/api/instance#forceupdate).', 'Use `$forceUpdate()`.'],
    ['a link inside a code span stays', 'Write `[text](url)` for a link.', 'Write `[text](url)` for a link.'],
    ['a destination with parentheses stays', '[f](https://en.wikipedia.org/wiki/F_(x))', '[f](https://en.wikipedia.org/wiki/F_(x))'],
    ['two on one line', '[a](/a) and [b](/b)', 'a and b'],
    ['brackets that make no link', 'Call (x)[y] or f[0] (once).', 'Call (x)[y] or f[0] (once).'],
  ];
  for (const [name, line, expected] of cases) it(name, () => assert.equal(withoutLinkTargets(line), expected));
});

describe('previewMarkdown', () => {
  it('reads the prose lines, autorefs included, and leaves fenced code as it is', () => {
    const markdown = 'A [`field`][pydantic.Field], [docs](https://x.dev).\n\n```md\n[keep](this)\n```\n\n- an [`int`][] item';
    assert.equal(previewMarkdown(markdown), 'A `field`, docs.\n\n```md\n[keep](this)\n```\n\n- an `int` item');
  });

  it('keeps a long link destination out of a preview', () => {
    const playground = `https://play.vuejs.org/#${'eNqFkl9PwjAUxb9K0ye'.repeat(20)}==`;
    const markdown = `${'Props are one-way. '.repeat(8)}[Try it in the Playground](${playground})\n\nAnother way of implementing \`v-model\` within this component is to use a writable \`computed\` property.`;
    const preview = excerptAround(previewMarkdown(markdown), ['comput', 'properti'], 300);
    assert.ok(!preview.includes('eNqF'), preview);
    assert.match(preview, /Try it in the Playground Another way/);
  });
});
