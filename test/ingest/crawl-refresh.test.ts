// Tests for crawling again what a crawl remembered: page events carry their links, a fetcher answering UnchangedPage
// yields 'unchanged' and its remembered links are followed under the usual rules, and a sitemap's lastmod reaches the
// fetcher and the events.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { crawlSite, type CrawlEvent, type CrawlOptions, type FetchPage, type PageRequest } from '../../src/ingest/crawl-site.js';
import { fetchIfChanged, fetchUrl, type FetchLimits, type PageValidators } from '../../src/ingest/fetch-url.js';
import { docsPageHtml, docsSitePages, startChangingDocsSite, type ChangingDocsSite } from '../support/changing-docs-site.js';

const limits: FetchLimits = { maxBytes: 1_000_000, timeoutMs: 5_000, allowPrivateAddresses: true };

function html(title: string, ...links: string[]): string {
  const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><ul>${anchors}</ul></body></html>`;
}

async function siteFor(context: TestContext, pages: Record<string, string>): Promise<ChangingDocsSite> {
  const site = await startChangingDocsSite(pages);
  context.after(() => site.close());
  return site;
}

async function collect(events: AsyncIterable<CrawlEvent>): Promise<CrawlEvent[]> {
  const collected: CrawlEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

function crawl(startUrl: string, fetchPage: FetchPage, options: Partial<CrawlOptions> = {}): Promise<CrawlEvent[]> {
  return collect(crawlSite(startUrl, { maxPages: 50, maxDepth: 5, ...options }, fetchPage));
}

/** What a refresh keeps of a page: its validators, its links, the sitemap's lastmod. */
interface Remembered {
  readonly validators: PageValidators;
  readonly links: readonly string[];
  readonly lastmod?: string;
}

function remember(memory: Map<string, Remembered>, events: readonly CrawlEvent[]): void {
  for (const event of events) {
    if (event.type !== 'page') continue;
    const { etag, lastModified } = event.page;
    memory.set(event.page.url, { validators: { etag, lastModified }, links: event.links, lastmod: event.lastmod });
  }
}

/** The fetcher of a refresh: pages it remembers are fetched conditionally; the rest (robots.txt, sitemaps, new pages) in full. */
function refreshingFetcher(memory: ReadonlyMap<string, Remembered>): FetchPage {
  return async (url, signal, page) => {
    const known = page === undefined ? undefined : memory.get(url);
    if (known === undefined) return fetchUrl(url, limits, signal);
    const fetched = await fetchIfChanged(url, limits, known.validators, signal);
    return 'notModified' in fetched ? { ...fetched, links: known.links } : fetched;
  };
}

const plainFetcher: FetchPage = (url, signal) => fetchUrl(url, limits, signal);

/** `type path` of each page and unchanged event, sorted. */
function outcomes(site: ChangingDocsSite, events: readonly CrawlEvent[]): string[] {
  return events
    .flatMap((event) => {
      if (event.type === 'page') return [`page ${event.page.url.slice(site.url.length)}`];
      if (event.type === 'unchanged') return [`unchanged ${event.url.slice(site.url.length)}`];
      return [];
    })
    .sort();
}

describe('crawlSite: page events carry their links', () => {
  test('the in-scope links read from the page, normalized, even past the depth limit', async (context) => {
    const site = await siteFor(context, {
      '/docs/': html(
        'Home',
        'a.html#part',
        'sub/b.html?utm_source=x',
        '/blog/',
        'https://example.invalid/',
        'logo.png',
        'a.html',
        'mailto:x@y.z',
      ),
      '/docs/a.html': html('A'),
    });
    const events = await crawl(site.startUrl, plainFetcher, { maxDepth: 0 });
    assert.equal(events.length, 1);
    const [home] = events;
    assert.ok(home?.type === 'page');
    assert.deepEqual(home.links, [`${site.url}/docs/a.html`, `${site.url}/docs/sub/b.html`, `${site.url}/docs/logo.png`]);
    assert.equal('lastmod' in home, false);
  });

  test('a Markdown page has no links; a page event keeps the validators the fetcher gave', async (context) => {
    const site = await siteFor(context, { '/docs/': html('Home', 'notes.md') });
    site.setPage('/docs/notes.md', '# Notes\n\n[elsewhere](/docs/other.html)\n');
    const events = await crawl(site.startUrl, plainFetcher);
    const notes = events.find((event) => event.type === 'page' && event.page.url.endsWith('notes.md'));
    assert.ok(notes?.type === 'page');
    assert.deepEqual(notes.links, []);
    assert.match(notes.page.etag ?? '', /^".+"$/);
    assert.ok(notes.page.lastModified !== undefined);
  });
});

describe('crawlSite: a refresh with remembered links', () => {
  test('an unchanged site answers 304 everywhere, yields every page as unchanged and sends no page body', async (context) => {
    const site = await siteFor(context, {
      '/docs/': html('Home', 'a.html', 'b.html'),
      '/docs/a.html': html('A', 'deep/c.html'),
      '/docs/b.html': html('B', 'a.html'),
      '/docs/deep/c.html': html('C'),
    });
    const memory = new Map<string, Remembered>();
    const first = await crawl(site.startUrl, refreshingFetcher(memory));
    remember(memory, first);
    assert.deepEqual(outcomes(site, first), ['page /docs/', 'page /docs/a.html', 'page /docs/b.html', 'page /docs/deep/c.html']);
    site.resetCounts();

    const again = await crawl(site.startUrl, refreshingFetcher(memory));
    assert.deepEqual(outcomes(site, again), [
      'unchanged /docs/',
      'unchanged /docs/a.html',
      'unchanged /docs/b.html',
      'unchanged /docs/deep/c.html',
    ]);
    const depths = Object.fromEntries(
      again.flatMap((event) => (event.type === 'unchanged' ? [[event.url.slice(site.url.length), event.depth]] : [])),
    );
    assert.deepEqual(depths, { '/docs/': 0, '/docs/a.html': 1, '/docs/b.html': 1, '/docs/deep/c.html': 2 });
    for (const path of ['/docs/', '/docs/a.html', '/docs/b.html', '/docs/deep/c.html']) {
      assert.deepEqual(site.counts(path), { requests: 1, notModified: 1, bodyBytes: 0 }, path);
    }
  });

  test('a refresh of a 100-page site with one page changed transfers under 5% of the first crawl’s bytes', async (context) => {
    const site = await siteFor(context, docsSitePages(100));
    const memory = new Map<string, Remembered>();
    const first = await crawl(site.startUrl, refreshingFetcher(memory), { maxPages: 200, maxDepth: 2, concurrency: 4 });
    remember(memory, first);
    assert.equal(memory.size, 101);
    const firstBytes = site.totals().bodyBytes;
    site.resetCounts();
    site.setPage('/docs/page-42.html', docsPageHtml(42, 100, 1));

    const again = await crawl(site.startUrl, refreshingFetcher(memory), { maxPages: 200, maxDepth: 2, concurrency: 4 });
    assert.deepEqual(
      again.filter((event) => event.type === 'page').map((event) => event.type === 'page' && event.page.url),
      [`${site.url}/docs/page-42.html`],
    );
    assert.equal(again.filter((event) => event.type === 'unchanged').length, 100);
    const { bodyBytes, notModified } = site.totals();
    assert.equal(notModified, 100);
    assert.ok(bodyBytes < firstBytes * 0.05, `${bodyBytes} of ${firstBytes} bytes`);
  });

  test('a changed page is downloaded and its new links followed; the others stay unchanged', async (context) => {
    const site = await siteFor(context, {
      '/docs/': html('Home', 'a.html', 'b.html'),
      '/docs/a.html': html('A'),
      '/docs/b.html': html('B'),
    });
    const memory = new Map<string, Remembered>();
    remember(memory, await crawl(site.startUrl, refreshingFetcher(memory)));
    site.setPage('/docs/b.html', html('B, revised', 'new.html'));
    site.setPage('/docs/new.html', html('New'));
    const again = await crawl(site.startUrl, refreshingFetcher(memory));
    assert.deepEqual(outcomes(site, again), ['page /docs/b.html', 'page /docs/new.html', 'unchanged /docs/', 'unchanged /docs/a.html']);
    const revised = again.find((event) => event.type === 'page' && event.page.url.endsWith('/b.html'));
    assert.ok(revised?.type === 'page');
    assert.deepEqual(revised.links, [`${site.url}/docs/new.html`]);
  });

  test('unchanged pages count against maxPages; what is left is skipped for the page limit', async (context) => {
    const site = await siteFor(context, {});
    const chain = Array.from({ length: 6 }, (_, index) => `${site.url}/docs/p${index}.html`);
    const requested: string[] = [];
    // Every page unchanged, each remembering a link to the next: no HTTP request but robots.txt.
    const unchangedChain: FetchPage = async (url, signal, page) => {
      if (page === undefined) return fetchUrl(url, limits, signal);
      requested.push(url);
      const next = chain[chain.indexOf(url) + 1];
      return { url, notModified: true, links: next === undefined ? [] : [next] };
    };
    const events = await crawl(chain[0] as string, unchangedChain, { maxPages: 3, concurrency: 1 });
    assert.deepEqual(
      events.map((event) => `${event.type} ${'url' in event ? event.url : ''}`),
      [`unchanged ${chain[0]}`, `unchanged ${chain[1]}`, `unchanged ${chain[2]}`, `skipped ${chain[3]}`],
    );
    assert.ok(events[3]?.type === 'skipped' && events[3].reason === 'page_limit');
    assert.deepEqual(requested, chain.slice(0, 3));
  });

  test('remembered links follow the scope, depth and robots.txt rules of links read from a page', async (context) => {
    const site = await siteFor(context, {
      '/robots.txt': 'User-agent: *\nDisallow: /docs/private/\n',
      '/docs/a.html': html('A', 'deeper.html'),
      '/docs/deeper.html': html('Deeper'),
    });
    const remembered = [
      `${site.url}/docs/a.html#top`,
      `${site.url}/docs/private/secret.html`,
      `${site.url}/blog/post.html`,
      `${site.url}/docs/logo.png`,
      'not a url',
    ];
    const homeUnchanged: FetchPage = async (url, signal, page) =>
      page !== undefined && url === site.startUrl ? { url, notModified: true, links: remembered } : fetchUrl(url, limits, signal);

    const events = await crawl(site.startUrl, homeUnchanged, { maxDepth: 1 });
    assert.deepEqual(outcomes(site, events), ['page /docs/a.html', 'unchanged /docs/']);
    const skips = events.flatMap((event) => (event.type === 'skipped' ? [`${event.reason} ${event.url.slice(site.url.length)}`] : []));
    assert.deepEqual(skips.sort(), ['not_a_document /docs/logo.png', 'robots_txt /docs/private/secret.html']);
    assert.equal(site.counts('/docs/private/secret.html').requests, 0);
    assert.equal(site.counts('/blog/post.html').requests, 0);
    assert.equal(site.counts('/docs/deeper.html').requests, 0, 'went past maxDepth');

    const startOnly = await crawl(site.startUrl, homeUnchanged, { maxDepth: 0 });
    assert.deepEqual(
      startOnly.map((event) => event.type),
      ['unchanged'],
    );
  });

  test('robots.txt and the sitemaps of an index are fetched without a PageRequest; answered unchanged, a sitemap fails', async (context) => {
    const site = await siteFor(context, { '/docs/a.html': html('A') });
    site.setPage('/index.xml', `<sitemapindex><sitemap><loc>${site.sitemapUrl}</loc></sitemap></sitemapindex>`);
    const requests: Array<[string, PageRequest | undefined]> = [];
    const unchangedSitemap: FetchPage = async (url, signal, page) => {
      requests.push([url.slice(site.url.length), page]);
      return url === site.sitemapUrl ? { url, notModified: true, links: [] } : fetchUrl(url, limits, signal);
    };
    const events = await crawl(`${site.url}/index.xml`, unchangedSitemap);
    assert.deepEqual(requests, [
      ['/robots.txt', undefined],
      // The start is fetched as a page: only its body tells it is a sitemap.
      ['/index.xml', {}],
      ['/sitemap.xml', undefined],
    ]);
    assert.equal(events.length, 1);
    assert.ok(events[0]?.type === 'failed');
    assert.equal(events[0].error.code, 'fetch_failed');
    assert.match(events[0].error.message, /answer UnchangedPage only to fetches given a PageRequest/);
  });
});

describe('crawlSite: sitemap lastmod', () => {
  test("each page's lastmod reaches the fetcher and the page's event; links found on pages have none", async (context) => {
    const site = await siteFor(context, {
      '/docs/a.html': html('A', 'linked.html'),
      '/docs/b.html': html('B'),
      '/docs/linked.html': html('Linked'),
    });
    const sitemap = (await fetchUrl(site.sitemapUrl, limits)).bytes.toString('utf8');
    const lastmods = Object.fromEntries(
      [...sitemap.matchAll(/<loc>([^<]+)<\/loc><lastmod>([^<]+)<\/lastmod>/g)].map((match) => [match[1], match[2]]),
    );
    // The site's own sitemap lists every page; this one lists A and B.
    site.setPage('/docs/sitemap.xml', sitemap.replace(/<url><loc>[^<]+linked\.html<\/loc>.*?<\/url>/, ''));

    const pageRequests = new Map<string, PageRequest | undefined>();
    const recording: FetchPage = (url, signal, page) => {
      pageRequests.set(url.slice(site.url.length), page);
      return fetchUrl(url, limits, signal);
    };
    const events = await crawl(`${site.url}/docs/sitemap.xml`, recording, { maxDepth: 2 });
    const aLastmod = lastmods[`${site.url}/docs/a.html`];
    const bLastmod = lastmods[`${site.url}/docs/b.html`];
    assert.ok(aLastmod !== undefined && bLastmod !== undefined && aLastmod !== bLastmod);
    assert.deepEqual(pageRequests.get('/docs/a.html'), { lastmod: new Date(aLastmod).toISOString() });
    assert.deepEqual(pageRequests.get('/docs/b.html'), { lastmod: new Date(bLastmod).toISOString() });
    assert.deepEqual(pageRequests.get('/docs/linked.html'), {});
    const eventLastmods = Object.fromEntries(
      events.flatMap((event) => (event.type === 'page' ? [[event.page.url.slice(site.url.length), event.lastmod]] : [])),
    );
    assert.deepEqual(eventLastmods, {
      '/docs/a.html': new Date(aLastmod).toISOString(),
      '/docs/b.html': new Date(bLastmod).toISOString(),
      '/docs/linked.html': undefined,
    });
  });

  test('a fetcher that trusts lastmod answers unchanged without a request; a newer lastmod is fetched', async (context) => {
    const site = await siteFor(context, {
      '/docs/a.html': html('A'),
      '/docs/b.html': html('B'),
    });
    const memory = new Map<string, Remembered>();
    remember(memory, await crawl(site.sitemapUrl, refreshingFetcher(memory)));
    assert.equal(memory.size, 2);
    const trustingLastmod: FetchPage = async (url, signal, page) => {
      const known = memory.get(url);
      if (page?.lastmod !== undefined && known?.lastmod !== undefined && page.lastmod <= known.lastmod) {
        return { url, notModified: true, links: known.links };
      }
      return refreshingFetcher(memory)(url, signal, page);
    };
    site.setPage('/docs/b.html', html('B, revised'));
    site.resetCounts();

    const events = await crawl(site.sitemapUrl, trustingLastmod);
    assert.deepEqual(outcomes(site, events), ['page /docs/b.html', 'unchanged /docs/a.html']);
    const unchanged = events.find((event) => event.type === 'unchanged');
    assert.equal(unchanged?.lastmod, memory.get(`${site.url}/docs/a.html`)?.lastmod);
    assert.equal(site.counts('/docs/a.html').requests, 0);
    assert.equal(site.counts('/docs/b.html').requests, 1);
  });
});
