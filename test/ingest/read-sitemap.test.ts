// Tests for readSitemap: urlsets and sitemap indexes, entities and CDATA, namespace prefixes, each entry's lastmod
// normalized when it is a valid W3C date, and linear work on hostile input.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readSitemap } from '../../src/ingest/read-sitemap.js';

function urlset(...entries: string[]): string {
  return `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('\n')}</urlset>`;
}

describe('readSitemap', () => {
  test('reads urlset and sitemapindex, with entities and CDATA; other XML is not a sitemap', () => {
    assert.deepEqual(
      readSitemap('<urlset><url><loc>https://x.test/a?b=1&amp;c=2</loc></url><url><loc><![CDATA[https://x.test/b]]></loc></url></urlset>'),
      { kind: 'urlset', entries: [{ loc: 'https://x.test/a?b=1&c=2' }, { loc: 'https://x.test/b' }] },
    );
    assert.deepEqual(
      readSitemap(
        '\uFEFF<?xml version="1.0"?>\n<!DOCTYPE x>\n<sm:sitemapindex xmlns:sm="s"><sm:sitemap><sm:loc>https://x.test/s.xml</sm:loc></sm:sitemap></sm:sitemapindex>',
      ),
      { kind: 'sitemapindex', entries: [{ loc: 'https://x.test/s.xml' }] },
    );
    assert.equal(readSitemap('<rss><channel><loc>https://x.test/</loc></channel></rss>'), undefined);
    assert.equal(readSitemap('<!doctype html><html><body>urlset</body></html>'), undefined);
  });

  const lastmodCases: ReadonlyArray<readonly [written: string, expected: string | undefined]> = [
    ['2024-03-05', '2024-03-05T00:00:00.000Z'],
    ['2024-03', '2024-03-01T00:00:00.000Z'],
    ['2024', '2024-01-01T00:00:00.000Z'],
    ['2024-03-05T10:20Z', '2024-03-05T10:20:00.000Z'],
    ['2024-03-05T10:20:30Z', '2024-03-05T10:20:30.000Z'],
    ['2024-03-05T10:20:30.25+02:00', '2024-03-05T08:20:30.250Z'],
    ['2024-03-05T23:30:00-01:00', '2024-03-06T00:30:00.000Z'],
    ['  2024-03-05  ', '2024-03-05T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2023-02-29', undefined],
    ['2024-02-30', undefined],
    ['2024-13-01', undefined],
    ['2024-00-10', undefined],
    ['2024-03-05T24:00Z', undefined],
    ['2024-03-05T10:60Z', undefined],
    ['2024-03-05T10:20', undefined],
    ['2024-03-05T10:20+25:00', undefined],
    ['2024-3-5', undefined],
    ['05/03/2024', undefined],
    ['yesterday', undefined],
    ['Tue, 05 Mar 2024 10:20:30 GMT', undefined],
    ['', undefined],
  ];
  for (const [written, expected] of lastmodCases) {
    test(`lastmod ${JSON.stringify(written)} reads as ${expected ?? 'none'}`, () => {
      const sitemap = readSitemap(urlset(`<url><loc>https://x.test/a</loc><lastmod>${written}</lastmod></url>`));
      assert.deepEqual(sitemap?.entries, [
        expected === undefined ? { loc: 'https://x.test/a' } : { loc: 'https://x.test/a', lastmod: expected },
      ]);
    });
  }

  test('each entry keeps its own lastmod, written before or after its loc, in CDATA or not', () => {
    const sitemap = readSitemap(
      urlset(
        '<url><loc>https://x.test/a</loc><lastmod>2024-01-01</lastmod><changefreq>daily</changefreq></url>',
        '<url><loc>https://x.test/b</loc></url>',
        '<url><lastmod><![CDATA[2024-02-02T10:00:00Z]]></lastmod><priority>0.5</priority><loc>https://x.test/c</loc></url>',
        '<url><lastmod>2024-03-03</lastmod></url>',
        '<url><loc>https://x.test/d</loc><lastmod>not a date</lastmod><lastmod>2024-04-04</lastmod></url>',
      ),
    );
    assert.deepEqual(sitemap?.entries, [
      { loc: 'https://x.test/a', lastmod: '2024-01-01T00:00:00.000Z' },
      { loc: 'https://x.test/b' },
      { loc: 'https://x.test/c', lastmod: '2024-02-02T10:00:00.000Z' },
      { loc: 'https://x.test/d', lastmod: '2024-04-04T00:00:00.000Z' },
    ]);
  });

  test('a sitemap index gives the lastmod of each sitemap', () => {
    const sitemap = readSitemap(
      `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sitemap><loc>https://x.test/one.xml</loc><lastmod>2024-05-06T07:08:09+00:00</lastmod></sitemap>
        <sitemap><loc>https://x.test/two.xml</loc></sitemap>
      </sitemapindex>`,
    );
    assert.deepEqual(sitemap, {
      kind: 'sitemapindex',
      entries: [{ loc: 'https://x.test/one.xml', lastmod: '2024-05-06T07:08:09.000Z' }, { loc: 'https://x.test/two.xml' }],
    });
  });

  test("only the root's namespace prefix counts: an image's loc and a news lastmod are not the entry's", () => {
    const sitemap = readSitemap(
      `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="i" xmlns:news="n">
        <sm:url><sm:loc>https://x.test/a</sm:loc><image:image><image:loc>https://x.test/a.png</image:loc></image:image>
          <news:lastmod>2020-01-01</news:lastmod><sm:lastmod>2024-01-01</sm:lastmod></sm:url>
        <sm:url><sm:loc>https://x.test/b</sm:loc><news:lastmod>2020-01-01</news:lastmod></sm:url>
      </sm:urlset>`,
    );
    assert.deepEqual(sitemap?.entries, [{ loc: 'https://x.test/a', lastmod: '2024-01-01T00:00:00.000Z' }, { loc: 'https://x.test/b' }]);
  });

  test('without <url> tags, each loc starts an entry and a lastmod belongs to the loc before it', () => {
    const sitemap = readSitemap('<urlset><loc>https://x.test/a</loc><lastmod>2024-01-01</lastmod><loc>https://x.test/b</loc></urlset>');
    assert.deepEqual(sitemap?.entries, [{ loc: 'https://x.test/a', lastmod: '2024-01-01T00:00:00.000Z' }, { loc: 'https://x.test/b' }]);
  });

  test('stays linear on hostile input', () => {
    const started = performance.now();
    readSitemap(`<urlset>${'<loc>'.repeat(50_000)}${' '.repeat(200_000)}`);
    readSitemap(`<urlset>${'<url><lastmod>'.repeat(50_000)}${'9'.repeat(200_000)}`);
    readSitemap(`<urlset>${'<lastmod><![CDATA['.repeat(50_000)}${' '.repeat(200_000)}`);
    assert.ok(performance.now() - started < 2_000);
  });
});
