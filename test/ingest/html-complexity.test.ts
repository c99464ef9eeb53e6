// measureHtml counts elements and nesting from the markup as a parser would build them, stopping past a limit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { measureHtml } from '../../src/ingest/html-complexity.js';

const unlimited = { maxElements: Number.MAX_SAFE_INTEGER, maxDepth: Number.MAX_SAFE_INTEGER };

describe('measureHtml', () => {
  const cases: [name: string, html: string, elements: number, depth: number][] = [
    ['nested elements', '<html><body><div><p>text</p></div></body></html>', 4, 3],
    ['void and self-closing elements add no depth', '<div><br><img src="a.png"><input/><svg><path d="M0"/></svg></div>', 6, 2],
    ['unclosed paragraphs and list items close each other', `<div>${'<p>one'.repeat(50)}<ul>${'<li>item'.repeat(50)}</ul></div>`, 102, 2],
    ['an end tag closes the elements left open inside it', `<section>${'<div><span>'.repeat(3)}</section><section></section>`, 8, 7],
    ['stray end tags are ignored', '</div></span><div></p></div>', 1, 1],
    ['comments are not markup', '<div><!-- <div><div> --></div>', 1, 1],
    ['script and style content is text', '<script>if (a<b) document.write("<div><div>")</script><style>p>a{}</style><p>x</p>', 3, 0],
    ['attributes may hold >', '<div title="a > b"><span data-x=\'<div>\'>x</span></div>', 2, 2],
    ['upper-case tags', '<DIV><Div></div></DIV>', 2, 2],
  ];
  for (const [name, html, elements, depth] of cases) {
    it(name, () => assert.deepEqual(measureHtml(html, unlimited), { elements, depth }));
  }

  it('stops counting once past a limit', () => {
    assert.deepEqual(measureHtml('<span>x</span>'.repeat(1000), { maxElements: 10, maxDepth: 100 }), { elements: 11, depth: 1 });
    assert.deepEqual(measureHtml('<div>'.repeat(1000), { maxElements: 10_000, maxDepth: 20 }), { elements: 21, depth: 21 });
  });
});
