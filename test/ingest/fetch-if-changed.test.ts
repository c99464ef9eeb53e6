// Tests for conditional downloads: validators recorded from a 200, a 304 read as not modified without a body, the
// status of a failed answer kept on the error, and fetchUrl's redirects and limits still applying.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { fetchIfChanged, fetchUrl, type FetchedPage, type FetchLimits, type NotModified } from '../../src/ingest/fetch-url.js';
import { startChangingDocsSite, type ChangingDocsSite } from '../support/changing-docs-site.js';
import { startStaticSite } from '../support/static-site.js';

const limits: FetchLimits = { maxBytes: 1_000_000, timeoutMs: 5_000, allowPrivateAddresses: true };
const pageHtml = '<!doctype html><html><body><h1>Intro</h1><p>Version one of the introduction.</p></body></html>';

async function siteFor(context: TestContext, pages: Record<string, string>): Promise<ChangingDocsSite> {
  const site = await startChangingDocsSite(pages);
  context.after(() => site.close());
  return site;
}

function asPage(result: FetchedPage | NotModified): FetchedPage {
  assert.ok(!('notModified' in result), 'answered not modified');
  return result;
}

describe('fetchIfChanged', () => {
  test('a 200 carries the ETag and Last-Modified, from fetchUrl as from fetchIfChanged without validators', async (context) => {
    const site = await siteFor(context, { '/docs/intro.html': pageHtml });
    const plain = await fetchUrl(`${site.url}/docs/intro.html`, limits);
    assert.match(plain.etag ?? '', /^"[\w-]+"$/);
    assert.ok(Number.isFinite(Date.parse(plain.lastModified ?? '')), `Last-Modified ${plain.lastModified}`);
    const conditional = asPage(await fetchIfChanged(`${site.url}/docs/intro.html`, limits, {}));
    assert.equal(conditional.etag, plain.etag);
    assert.equal(conditional.lastModified, plain.lastModified);
    assert.equal(conditional.bytes.toString('utf8'), pageHtml);
  });

  test('a page answered without validators has none', async (context) => {
    const site = await startStaticSite({ '/page': { body: 'plain' } });
    context.after(() => site.close());
    const page = await fetchUrl(`${site.url}/page`, limits);
    assert.equal('etag' in page, false);
    assert.equal('lastModified' in page, false);
  });

  for (const validator of ['etag', 'lastModified'] as const) {
    test(`an unchanged page answers 304 to its ${validator}: not modified, no body sent`, async (context) => {
      const site = await siteFor(context, { '/docs/intro.html': pageHtml });
      const first = await fetchUrl(`${site.url}/docs/intro.html`, limits);
      const again = await fetchIfChanged(`${site.url}/docs/intro.html`, limits, { [validator]: first[validator] });
      assert.deepEqual(again, { url: `${site.url}/docs/intro.html`, notModified: true });
      assert.deepEqual(site.counts('/docs/intro.html'), { requests: 2, notModified: 1, bodyBytes: Buffer.byteLength(pageHtml) });
    });
  }

  test('a changed page is downloaded again, with its new validators', async (context) => {
    const site = await siteFor(context, { '/docs/intro.html': pageHtml });
    const first = await fetchUrl(`${site.url}/docs/intro.html`, limits);
    site.setPage('/docs/intro.html', pageHtml.replace('one', 'two'));
    const changed = asPage(await fetchIfChanged(`${site.url}/docs/intro.html`, limits, first));
    assert.match(changed.bytes.toString('utf8'), /Version two/);
    assert.notEqual(changed.etag, first.etag);
    assert.ok(Date.parse(changed.lastModified ?? '') > Date.parse(first.lastModified ?? ''));
    // Last-Modified alone tells the change too.
    site.setPage('/docs/intro.html', pageHtml.replace('one', 'three'));
    assert.match(
      asPage(await fetchIfChanged(`${site.url}/docs/intro.html`, limits, { lastModified: changed.lastModified })).bytes.toString('utf8'),
      /three/,
    );
  });

  for (const [status, change] of [
    [404, (site: ChangingDocsSite) => site.removePage('/docs/intro.html')],
    [410, (site: ChangingDocsSite) => site.removePage('/docs/intro.html', 410)],
    [503, (site: ChangingDocsSite) => site.failPage('/docs/intro.html', 503)],
  ] as const) {
    test(`HTTP ${status} fails with fetch_failed and upstreamStatus ${status}, validators sent or not`, async (context) => {
      const site = await siteFor(context, { '/docs/intro.html': pageHtml });
      const first = await fetchUrl(`${site.url}/docs/intro.html`, limits);
      change(site);
      const failure = { code: 'fetch_failed', message: new RegExp(`answered HTTP ${status}`), upstreamStatus: status };
      await assert.rejects(fetchIfChanged(`${site.url}/docs/intro.html`, limits, first), failure);
      await assert.rejects(fetchUrl(`${site.url}/docs/intro.html`, limits), failure);
    });
  }

  test('a refused connection has no upstreamStatus', async (context) => {
    const site = await siteFor(context, {});
    const url = site.url;
    await site.close();
    await assert.rejects(fetchIfChanged(`${url}/docs/`, limits, { etag: '"x"' }), { code: 'fetch_failed', upstreamStatus: undefined });
  });

  test('a 304 nobody asked for is a failed answer', async (context) => {
    const site = await startStaticSite({ '/page': { status: 304 } });
    context.after(() => site.close());
    await assert.rejects(fetchUrl(`${site.url}/page`, limits), { code: 'fetch_failed', upstreamStatus: 304 });
    await assert.rejects(fetchIfChanged(`${site.url}/page`, limits, {}), { code: 'fetch_failed', upstreamStatus: 304 });
  });

  test('redirects are followed; the validators go with the first request only', async (context) => {
    const site = await siteFor(context, { '/docs/intro.html': pageHtml });
    const first = await fetchUrl(`${site.url}/docs/intro.html`, limits);
    const redirecting = await startStaticSite({ '/old': { status: 301, location: `${site.url}/docs/intro.html` } });
    context.after(() => redirecting.close());
    const landed = asPage(await fetchIfChanged(`${redirecting.url}/old`, limits, first));
    assert.equal(landed.url, `${site.url}/docs/intro.html`);
    assert.equal(landed.bytes.toString('utf8'), pageHtml);
    assert.equal(site.counts('/docs/intro.html').notModified, 0);
  });

  test('the size cap still applies to a changed page, not to a 304', async (context) => {
    const site = await siteFor(context, { '/docs/intro.html': pageHtml });
    const first = await fetchUrl(`${site.url}/docs/intro.html`, limits);
    const small: FetchLimits = { ...limits, maxBytes: 20 };
    assert.deepEqual(await fetchIfChanged(`${site.url}/docs/intro.html`, small, first), {
      url: `${site.url}/docs/intro.html`,
      notModified: true,
    });
    site.setPage('/docs/intro.html', pageHtml.replace('one', 'two'));
    await assert.rejects(fetchIfChanged(`${site.url}/docs/intro.html`, small, first), { code: 'source_too_large' });
  });
});
