// Tests for the changing docs site: validators and 304s, edits between requests, removals and failures, the sitemap
// with lastmod, the counts, and the generated N-page site.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { docsSitePages, startChangingDocsSite, type ChangingDocsSite } from './changing-docs-site.js';

async function siteFor(context: TestContext, pages: Record<string, string>): Promise<ChangingDocsSite> {
  const site = await startChangingDocsSite(pages);
  context.after(() => site.close());
  return site;
}

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: string }> {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

describe('changing docs site', () => {
  test('a page carries a strong ETag and Last-Modified and answers 304 to either, until it changes', async (context) => {
    const site = await siteFor(context, { '/docs/': '<p>one</p>' });
    const first = await get(site.startUrl);
    const etag = first.headers.get('etag') ?? '';
    const lastModified = first.headers.get('last-modified') ?? '';
    assert.match(etag, /^"[\w-]+"$/);
    assert.equal((await get(site.startUrl, { 'if-none-match': etag })).status, 304);
    assert.equal((await get(site.startUrl, { 'if-modified-since': lastModified })).status, 304);
    // If-None-Match decides when both are sent.
    assert.equal((await get(site.startUrl, { 'if-none-match': '"other"', 'if-modified-since': lastModified })).status, 200);
    site.setPage('/docs/', '<p>one</p>');
    assert.equal((await get(site.startUrl, { 'if-none-match': etag })).status, 304, 'the same HTML is no change');
    site.setPage('/docs/', '<p>two</p>');
    const changed = await get(site.startUrl, { 'if-none-match': etag });
    assert.equal(changed.status, 200);
    assert.equal(changed.body, '<p>two</p>');
    assert.equal((await get(site.startUrl, { 'if-modified-since': lastModified })).status, 200);
    assert.deepEqual(site.counts('/docs/'), { requests: 7, notModified: 3, bodyBytes: 10 + 10 + 10 + 10 });
  });

  test('removed pages answer 404 or 410, failing ones their status until they recover; the sitemap follows', async (context) => {
    const site = await siteFor(context, { '/docs/a.html': 'a', '/docs/b.html': 'b', '/docs/c.html': 'c' });
    const before = await get(site.sitemapUrl);
    assert.equal([...before.body.matchAll(/<lastmod>\d{4}-\d\d-\d\dT[\d:.]+Z<\/lastmod>/g)].length, 3);
    site.removePage('/docs/a.html');
    site.removePage('/docs/b.html', 410);
    site.failPage('/docs/c.html', 503);
    assert.equal((await get(`${site.url}/docs/a.html`)).status, 404);
    assert.equal((await get(`${site.url}/docs/b.html`)).status, 410);
    assert.equal((await get(`${site.url}/docs/c.html`)).status, 503);
    const after = await get(site.sitemapUrl, { 'if-none-match': before.headers.get('etag') ?? '' });
    assert.equal(after.status, 200);
    assert.deepEqual(
      [...after.body.matchAll(/<loc>[^<]+\/docs\/(\w)\.html<\/loc>/g)].map((match) => match[1]),
      ['c'],
    );
    site.recoverPage('/docs/c.html');
    assert.equal((await get(`${site.url}/docs/c.html`)).body, 'c');
    site.setPage('/docs/b.html', 'b again');
    assert.equal((await get(`${site.url}/docs/b.html`)).status, 200);
  });

  test('a changed page gets a later lastmod in the sitemap than the others', async (context) => {
    const site = await siteFor(context, { '/docs/a.html': 'a', '/docs/b.html': 'b' });
    site.setPage('/docs/a.html', 'a, revised');
    const lastmods = Object.fromEntries(
      [...(await get(site.sitemapUrl)).body.matchAll(/<loc>[^<]+\/(\w)\.html<\/loc><lastmod>([^<]+)<\/lastmod>/g)].map((match) => [
        match[1],
        match[2],
      ]),
    );
    assert.ok(Date.parse(lastmods.a ?? '') > Date.parse(lastmods.b ?? ''), JSON.stringify(lastmods));
  });

  test('docsSitePages builds an index and N linked pages of a few KB of text', () => {
    const pages = docsSitePages(500);
    assert.equal(Object.keys(pages).length, 501);
    const page = pages['/docs/page-250.html'] ?? '';
    assert.ok(page.length > 2_000 && page.length < 8_000, `${page.length} bytes`);
    for (const link of ['/docs/', '/docs/page-249.html', '/docs/page-251.html']) assert.ok(page.includes(`href="${link}"`), link);
    assert.notEqual(pages['/docs/page-1.html'], pages['/docs/page-2.html']);
    assert.equal((pages['/docs/'] ?? '').match(/href="\/docs\/page-\d+\.html"/g)?.length, 500);
  });
});
