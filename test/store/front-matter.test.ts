// Stored documents' front matter, and the first heading used as a title.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { titleHeading, parseDocument, renderDocument } from '../../src/store/front-matter.js';

describe('front matter', () => {
  it('round-trips title, origin (as source), hash and ingest time, quotes and newlines included', () => {
    const frontMatter = {
      title: 'A "quoted" title: with colon',
      origin: 'https://example.com/a?b=c',
      hash: 'sha256:abc',
      ingestedAt: '2026-11-22T08:00:00.000Z',
    };
    const text = renderDocument(frontMatter, '# Body\n\nLine two.\n');
    assert.deepEqual(parseDocument(text), { frontMatter, body: '# Body\n\nLine two.' });
    assert.match(text, /^source: "https:\/\/example\.com\/a\?b=c"$/m, 'the origin is written under its file key, source');
  });

  it('reads hand-written front matter with plain and single-quoted values, and documents without any', () => {
    assert.deepEqual(parseDocument("---\ntitle: Plain title\nsource: 'it''s here'\n---\nBody").frontMatter, {
      title: 'Plain title',
      origin: "it's here",
    });
    assert.deepEqual(parseDocument('# Just Markdown\r\n\r\nText'), { frontMatter: {}, body: '# Just Markdown\n\nText' });
  });
});

describe('titleHeading', () => {
  const cases: [string, string | undefined][] = [
    ['# First Steps { #first-steps }\n\ntext', 'First Steps'],
    ['## Closing hashes ##\n\nintro', 'Closing hashes'],
    // A section's heading after the page's opening text is not the page's title; a level-1 heading later is.
    ['intro\n\n## Install\n\ntext', undefined],
    ['intro\n\n## Install\n\n# Late title', 'Late title'],
    ['\n\n### First thing on the page', 'First thing on the page'],
    ['#not a heading\n', undefined],
    ['no heading at all', undefined],
    ['# { #only-an-anchor }', undefined],
    ['# Title {#a} ##', 'Title'],
    ['#   \n## Second', undefined],
    ['```sh\n# install it\npip install x\n```\n\n# Title', 'Title'],
    ['````md\n```\n# still code\n```\n````\n# After', 'After'],
    ['~~~\n# unclosed fence runs to the end', undefined],
    ['    # indented code\n\n   # Indented three #', 'Indented three'],
  ];
  for (const [markdown, expected] of cases) {
    it(`${JSON.stringify(markdown.slice(0, 30))} -> ${JSON.stringify(expected)}`, () => assert.equal(titleHeading(markdown), expected));
  }

  it('reads a heading line of megabytes in time linear in it (runs of # and spaces backtracked quadratically before)', () => {
    const runs = [`# a${'#'.repeat(3_000_000)}x`, `# a${' '.repeat(3_000_000)}b`, `# a${' '.repeat(3_000_000)}{x`];
    const started = performance.now();
    assert.deepEqual(
      runs.map((markdown) => titleHeading(markdown)?.length),
      [3_000_002, 3_000_002, 3_000_003],
    );
    // Quadratic, these took hours; linear, a few milliseconds each.
    assert.ok(performance.now() - started < 5_000);
  });
});
