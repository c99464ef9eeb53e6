// Tests for htmlToMarkdown: main-content extraction from real-shaped docs pages, Markdown shape, fallbacks, odd HTML.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { htmlToMarkdown } from '../../src/ingest/html-to-markdown.js';
import { packageRoot } from '../../src/package-root.js';

function fixture(name: string): string {
  return readFileSync(join(packageRoot, 'test', 'fixtures', 'html', name), 'utf8');
}

/** The Markdown with its fenced code blocks taken out, so prose rules are checked on prose only. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, 'CODE');
}

function assertAbsent(markdown: string, fragments: string[]): void {
  for (const fragment of fragments) assert.ok(!markdown.includes(fragment), `unexpected ${JSON.stringify(fragment)}`);
}

describe('htmlToMarkdown on a documentation page', () => {
  const url = 'https://widgetry.dev/docs/tutorial/query-params/';
  const { title, markdown } = htmlToMarkdown(fixture('docs-page.html'), { url });

  test('takes the title without the site name', () => {
    assert.equal(title, 'Query Parameters');
  });

  test('drops navigation, sidebar, header, footer, scripts, styles, forms, banners and edit links', () => {
    assertAbsent(markdown, [
      'top-nav-item',
      'sidebar-menu-item',
      'Advanced User Guide',
      'Search the docs',
      'tracked-script-text',
      'footer-script-text',
      'font-family',
      'footer-legal-text',
      'Privacy',
      'Accept all cookies',
      'We use cookies',
      'Edit this page',
      'Skip to content',
      'Widgetry logo',
    ]);
  });

  test('keeps the heading outline as ATX headings, without permalink marks', () => {
    assert.ok(markdown.startsWith('# Query Parameters\n\n'));
    assert.match(markdown, /^## Defaults$/m);
    assert.match(markdown, /^### Optional parameters$/m);
    assertAbsent(markdown, ['¶', 'Permanent link']);
  });

  test('keeps the code block fenced with its language and its indentation exact', () => {
    const code = [
      '```python',
      'from widgetry import Widgetry',
      '',
      'app = Widgetry()',
      '',
      '',
      '@app.get("/items/")',
      'async def read_items(skip: int = 0, limit: int = 10):',
      '    if limit > 100:',
      '        raise ValueError("limit too large")',
      '    return fake_items_db[skip : skip + limit]',
      '```',
    ].join('\n');
    assert.ok(markdown.includes(code), markdown);
  });

  test('keeps inline code, lists with dashes and links resolved against the page address', () => {
    assert.ok(markdown.includes('remember that `limit` defaults to `10`.'));
    assert.ok(markdown.includes('[the path parameters page](https://widgetry.dev/docs/tutorial/path-params/)'));
    assert.ok(markdown.includes('[parameters reference](https://widgetry.dev/docs/reference/parameters/)'));
    assert.ok(markdown.includes('- Required parameters have no default.\n- Optional parameters default to `None`.'));
    assert.doesNotMatch(markdown, /\]\((?!https?:)/);
  });

  test('turns the table into a GFM table and escapes pipes inside cells', () => {
    const table = [
      '| Parameter | Type | Default |',
      '| --- | --- | --- |',
      '| `skip` | int | 0 |',
      '| `limit` | int | 10 |',
      '| `q` | str \\| None | None |',
    ].join('\n');
    assert.ok(markdown.includes(table), markdown);
  });

  test('collapses blank lines outside code and leaves no trailing spaces', () => {
    assert.doesNotMatch(withoutCode(markdown), /\n{3,}/);
    assert.doesNotMatch(markdown, /[ \t]+$/m);
  });

  test('leaves relative links alone when no address is given', () => {
    const withoutUrl = htmlToMarkdown(fixture('docs-page.html')).markdown;
    assert.ok(withoutUrl.includes('[the path parameters page](../path-params/)'));
  });
});

describe('htmlToMarkdown on other documentation generators', () => {
  test('Sphinx: language from the wrapper class, headerless table, site suffix stripped, sidebar gone', () => {
    const url = 'https://tabulate.example.org/en/latest/api/reader.html';
    const { title, markdown } = htmlToMarkdown(fixture('sphinx-page.html'), { url });
    assert.equal(title, 'csvkit.reader — Reading delimited files');
    assert.ok(markdown.startsWith('# csvkit.reader — Reading delimited files\n\n'));
    assert.ok(markdown.includes('```python\nimport csvkit.reader\n\nwith open("data.csv") as handle:\n    for row in'));
    assert.ok(markdown.includes('        print(row)\n```'));
    assert.ok(markdown.includes('| delimiter | Field separator, default `,` |\n| --- | --- |'));
    assert.ok(markdown.includes('| pipes | Literal `a\\|b` stays one cell |'));
    assert.ok(markdown.includes('[RFC 4180](https://www.rfc-editor.org/rfc/rfc4180)'));
    assert.ok(markdown.includes('[`Dialect`](https://tabulate.example.org/en/latest/api/reader.html#csvkit.reader.Dialect)'));
    assert.ok(markdown.includes('may split quoted fields'), 'the note admonition is content');
    assertAbsent(markdown, ['related-nav-link', 'sidebar-heading', 'Show Source', 'sphinx-footer-text', '¶']);
  });

  test('Docusaurus: <br> code lines, hidden tab content, callouts kept; breadcrumbs, TOC, pager, copy button gone', () => {
    const { title, markdown } = htmlToMarkdown(fixture('docusaurus-page.html'), { url: 'https://harbor.example/docs/install' });
    assert.equal(title, 'Installation');
    assert.ok(markdown.startsWith('# Installation\n\n'));
    assert.ok(markdown.includes('```bash\nbrew install harbor\nharbor version\n```'));
    assert.ok(markdown.includes('```bash\ncurl -fsSL https://get.harbor.example/install.sh | sh\n```'));
    assert.ok(markdown.includes('```yaml\nserver:\n  port: 8080\n\n  tls: true\n```'));
    assert.match(markdown, /^## Package managers$/m);
    assert.ok(markdown.includes('move it before upgrading'));
    assertAbsent(markdown, [
      'breadcrumb-item',
      'toc-link',
      'pagination-label',
      'copy-button-label',
      'docs-sidebar-link',
      'navbar-brand',
      'site-footer-text',
      'Edit this page',
      '\u200b',
    ]);
  });

  test('code languages from lang-, language- on pre, highlight- and data-lang; fences outgrow backticks in code', () => {
    const html = `<main><h1>Variants</h1>
      <pre><code class="lang-ruby">puts 1</code></pre>
      <pre class="language-rust"><code>fn main() {}</code></pre>
      <div class="highlight-console notranslate"><div class="highlight"><pre>$ make</pre></div></div>
      <pre data-lang="toml"><code>[server]\nport = 1</code></pre>
      <pre><code class="language-markdown">\`\`\`js\ncode\n\`\`\`</code></pre></main>`;
    const { markdown } = htmlToMarkdown(html);
    for (const block of [
      '```ruby\nputs 1\n```',
      '```rust\nfn main() {}\n```',
      '```console\n$ make\n```',
      '```toml\n[server]\nport = 1\n```',
    ]) {
      assert.ok(markdown.includes(block), block);
    }
    assert.ok(markdown.includes('````markdown\n```js\ncode\n```\n````'));
  });

  test('images are dropped, an image-only link leaves nothing behind, script links keep their text', () => {
    const html = `<main><h1>Pipeline</h1><p>Data flows left to right. <img src="flow.png" alt="Diagram of the pipeline">
      <a href="https://ci.example/badge"><img src="badge.svg" alt="build passing"></a> <a href="javascript:void(0)">Toggle</a></p></main>`;
    const { markdown } = htmlToMarkdown(html);
    assert.equal(markdown, '# Pipeline\n\nData flows left to right. Toggle');
  });

  test('ordered lists keep their start number and nested lists indent under the item', () => {
    const html = '<main><h1>Steps</h1><ol start="3"><li>Install<ul><li>with <code>pip</code></li></ul></li><li>Run</li></ol></main>';
    assert.equal(htmlToMarkdown(html).markdown, '# Steps\n\n3. Install\n   - with `pip`\n4. Run');
  });

  test('a <base> element sets the address links resolve against', () => {
    const html =
      '<html><head><base href="https://cdn.example.com/docs/v2/"><title>Base</title></head><body><main><h1>Base</h1><p>See <a href="guide.html">the guide</a>.</p></main></body></html>';
    assert.ok(
      htmlToMarkdown(html, { url: 'https://example.com/' }).markdown.includes('[the guide](https://cdn.example.com/docs/v2/guide.html)'),
    );
  });

  test('keeps a title whose suffix is not a known site name', () => {
    const html = '<html><head><title>Release notes - 2024</title></head><body><main><p>Version 2.0 adds retries.</p></main></body></html>';
    const { title, markdown } = htmlToMarkdown(html);
    assert.equal(title, 'Release notes - 2024');
    assert.equal(markdown, '# Release notes - 2024\n\nVersion 2.0 adds retries.');
  });
});

describe('htmlToMarkdown fallbacks', () => {
  test('converts the main region when Readability finds no article', () => {
    const html =
      '<!doctype html><html><head><title>Down for maintenance</title></head><body><main><h1>Down for maintenance</h1><img src="/wrench.png" alt="A wrench"></main></body></html>';
    assert.equal(new Readability(parseHTML(html).document).parse(), null);
    assert.deepEqual(htmlToMarkdown(html), { title: 'Down for maintenance', markdown: '# Down for maintenance' });
  });

  test('converts the main region of a short page after removing its chrome', () => {
    const html = `<!doctype html><html><head><title>Rate limits - Acme API</title><meta property="og:site_name" content="Acme API"></head>
      <body><header><a href="/">Acme home-link</a></header><nav><a href="/docs">Docs nav-link</a></nav>
      <main><h1>Rate limits</h1><p>Requests over the limit get a 429.</p>
      <table><tr><th>Plan</th><th>Requests per minute</th></tr><tr><td>Free</td><td>60</td></tr></table></main>
      <aside class="sidebar">aside-text</aside><footer>footer-text</footer></body></html>`;
    const { title, markdown } = htmlToMarkdown(html);
    assert.equal(title, 'Rate limits');
    assert.equal(
      markdown,
      '# Rate limits\n\nRequests over the limit get a 429.\n\n| Plan | Requests per minute |\n| --- | --- |\n| Free | 60 |',
    );
  });

  test('a fragment without html or body still converts', () => {
    const { markdown } = htmlToMarkdown('<p>Use <a href="start">the start page</a>.</p>', { url: 'https://example.com/docs/' });
    assert.equal(markdown, 'Use [the start page](https://example.com/docs/start).');
  });

  test('empty input and chrome-only pages give empty Markdown', () => {
    assert.deepEqual(htmlToMarkdown(''), { title: null, markdown: '' });
    assert.equal(htmlToMarkdown('<html><body><nav><a href="/">Home</a></nav><footer>c</footer></body></html>').markdown, '');
  });
});

describe('htmlToMarkdown on malformed HTML', () => {
  const samples: Record<string, string> = {
    'unclosed and misnested tags':
      '<div><p>Open <b>bold <i>both</b> still</i><table><tr><td>cell<td>two</table></span></div><pre><code class="lang-js">let x = 1;\n  y()',
    'stray angle brackets': '<<<>>> <p>text',
    'unterminated comment': '<p>before</p><!-- never closed <p>after',
    'attributes without quotes and junk': '<a href=foo.html title=x"y>link</a><img src=<<>> <td>orphan cell</td></tr>',
    'bad link addresses': '<main><h1>Links</h1><p><a href="http://[::1">broken</a> <a href="">empty</a> <a href="  ">blank</a></p></main>',
    'private-use characters': '<main><h1>T</h1><table><tr><td>\uE000a\uE001</td></tr></table></main>',
    'deep nesting': `<html><body>${'<div>'.repeat(3000)}deep text${'</div>'.repeat(3000)}</body></html>`,
  };
  for (const [name, html] of Object.entries(samples)) {
    test(`${name} does not throw`, () => {
      const result = htmlToMarkdown(html, { url: 'https://example.com/a/' });
      assert.equal(typeof result.markdown, 'string');
    });
  }

  test('keeps the text of a page nested deeper than the converter can walk', () => {
    const html = `<html><body>${'<div>'.repeat(3000)}deep text${'</div>'.repeat(3000)}</body></html>`;
    assert.equal(htmlToMarkdown(html).markdown, 'deep text');
  });

  test('malformed markup still yields its structure', () => {
    const { markdown } = htmlToMarkdown(samples['unclosed and misnested tags'] ?? '');
    assert.ok(markdown.includes('| cell | two |'));
    assert.ok(markdown.includes('```js\nlet x = 1;\n  y()\n```'));
  });
});
