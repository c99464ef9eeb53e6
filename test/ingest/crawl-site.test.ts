// Tests for crawlSite against small sites on loopback: scope, links, dedupe, robots.txt, limits, sitemaps, redirects, abort.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, test, type TestContext } from 'node:test';
import { CrawlBudget } from '../../src/ingest/crawl-budget.js';
import { crawlSite, type CrawlEvent, type CrawlOptions, type FetchPage } from '../../src/ingest/crawl-site.js';
import { fetchUrl } from '../../src/ingest/fetch-url.js';
import { normalizeCrawlUrl, readPageLinks } from '../../src/ingest/page-links.js';
import { startEndlessSite } from '../support/endless-site.js';
import { startStaticSite, type SitePage, type StaticSite } from '../support/static-site.js';

const fetchPage: FetchPage = (url) => fetchUrl(url, { maxBytes: 6_000_000, timeoutMs: 5000, allowPrivateAddresses: true });

function html(title: string, ...links: string[]): SitePage {
  const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return { body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><ul>${anchors}</ul></body></html>` };
}

async function siteFor(context: TestContext, pages: Record<string, SitePage>): Promise<StaticSite> {
  const site = await startStaticSite(pages);
  context.after(() => site.close());
  return site;
}

async function collect(events: AsyncIterable<CrawlEvent>): Promise<CrawlEvent[]> {
  const collected: CrawlEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

function crawl(
  site: StaticSite,
  startPath: string,
  options: Partial<CrawlOptions> = {},
  fetcher: FetchPage = fetchPage,
): Promise<CrawlEvent[]> {
  return collect(crawlSite(`${site.url}${startPath}`, { maxPages: 50, maxDepth: 5, ...options }, fetcher));
}

/**
 * Paths of the pages yielded, by depth and then by path (pages of one depth arrive in whatever order
 * their fetches end). Checks on the way that the events come breadth-first.
 */
function pagePaths(site: StaticSite, events: readonly CrawlEvent[]): string[] {
  const pages = events.flatMap((event) =>
    event.type === 'page' ? [{ path: event.page.url.slice(site.url.length), depth: event.depth }] : [],
  );
  pages.forEach((page, index) =>
    assert.ok(index === 0 || (pages[index - 1]?.depth ?? 0) <= page.depth, `${page.path} came before a shallower page`),
  );
  return pages.sort((left, right) => left.depth - right.depth || (left.path < right.path ? -1 : 1)).map((page) => page.path);
}

function skippedPaths(site: StaticSite, events: readonly CrawlEvent[], reason: RegExp): string[] {
  return events.flatMap((event) => (event.type === 'skipped' && reason.test(event.message) ? [event.url.slice(site.url.length)] : []));
}

function assertEachRequestedOnce(site: StaticSite): void {
  const repeated = site.requests.filter((path, index) => site.requests.indexOf(path) !== index);
  assert.deepEqual(repeated, [], `requested more than once: ${repeated.join(', ')}`);
}

const pdfBytes = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n', 'latin1');

describe('crawlSite: a docs site', () => {
  test('follows same-origin links under the start directory, once each, breadth-first', async (context) => {
    const site = await siteFor(context, {
      '/docs/': html(
        'Home',
        'guide/intro.html',
        '/docs/api.html',
        'https://example.invalid/elsewhere',
        '/blog/post.html',
        'mailto:docs@example.com',
        'javascript:void(0)',
        'tel:+123',
      ),
      '/docs/guide/intro.html': html('Intro', 'setup.html#install', 'setup.html', '../api.html#top', '/docs/guide/intro.html'),
      '/docs/guide/setup.html': html('Setup', 'intro.html', '../manual.pdf', '../notes.md', '../logo.png', '../styles.css'),
      '/docs/api.html': html('API', 'guide/setup.html?utm_source=newsletter&utm_medium=email'),
      '/docs/manual.pdf': { contentType: 'application/pdf', body: pdfBytes },
      '/docs/notes.md': { contentType: 'text/markdown', body: '# Notes\n\nSee [hidden](/docs/from-markdown.html).\n' },
      '/docs/from-markdown.html': html('From Markdown'),
      '/blog/post.html': html('Blog'),
    });
    const events = await crawl(site, '/docs/');
    assert.deepEqual(pagePaths(site, events), [
      '/docs/',
      '/docs/api.html',
      '/docs/guide/intro.html',
      '/docs/guide/setup.html',
      '/docs/manual.pdf',
      '/docs/notes.md',
    ]);
    const depths = Object.fromEntries(
      events.flatMap((event) => (event.type === 'page' ? [[event.page.url.slice(site.url.length), event.depth]] : [])),
    );
    assert.deepEqual(depths, {
      '/docs/': 0,
      '/docs/guide/intro.html': 1,
      '/docs/api.html': 1,
      '/docs/guide/setup.html': 2,
      '/docs/manual.pdf': 3,
      '/docs/notes.md': 3,
    });
    assert.deepEqual(skippedPaths(site, events, /not a document type/).sort(), ['/docs/logo.png', '/docs/styles.css']);
    assert.equal(events.filter((event) => event.type === 'failed').length, 0);
    assertEachRequestedOnce(site);
    assert.equal(site.requests.includes('/blog/post.html'), false, 'left the start directory');
    assert.equal(site.requests.includes('/docs/from-markdown.html'), false, 'followed a link inside Markdown');
    assert.equal(site.requests.includes('/docs/logo.png'), false);
    assert.equal(site.requests[0], '/robots.txt');
    const page = events.find((event) => event.type === 'page' && event.page.url.endsWith('/manual.pdf'));
    assert.ok(page?.type === 'page');
    assert.equal(page.page.contentType, 'application/pdf');
    assert.deepEqual(page.page.bytes, pdfBytes);
  });

  test('a cycle A ↔ B is crawled once', async (context) => {
    const site = await siteFor(context, {
      '/a.html': html('A', 'b.html'),
      '/b.html': html('B', 'a.html', './a.html', '/a.html#again'),
    });
    const events = await crawl(site, '/a.html');
    assert.deepEqual(pagePaths(site, events), ['/a.html', '/b.html']);
    assert.deepEqual(site.requests, ['/robots.txt', '/a.html', '/b.html']);
  });

  test('a link to a missing page fails with fetch_failed and the crawl goes on', async (context) => {
    const site = await siteFor(context, {
      '/docs/index.html': html('Home', 'missing.html', 'present.html'),
      '/docs/present.html': html('Present', 'deeper.html'),
      '/docs/deeper.html': html('Deeper'),
    });
    const events = await crawl(site, '/docs/index.html');
    const failed = events.filter((event) => event.type === 'failed');
    assert.equal(failed.length, 1);
    assert.ok(failed[0]?.type === 'failed');
    assert.equal(failed[0].url, `${site.url}/docs/missing.html`);
    assert.equal(failed[0].error.code, 'fetch_failed');
    assert.deepEqual(pagePaths(site, events), ['/docs/index.html', '/docs/present.html', '/docs/deeper.html']);
  });

  test('the start page failing ends the crawl with one failed event', async (context) => {
    const site = await siteFor(context, {});
    const events = await crawl(site, '/docs/');
    assert.deepEqual(
      events.map((event) => event.type),
      ['failed'],
    );
    assert.deepEqual(site.requests, ['/robots.txt', '/docs/']);
  });

  test('a start URL that is not http(s) is a failed event, nothing fetched', async () => {
    let fetched = 0;
    const events = await collect(
      crawlSite('ftp://example.com/docs/', { maxPages: 5, maxDepth: 1 }, async () => {
        fetched++;
        throw new Error('not reached');
      }),
    );
    assert.equal(events.length, 1);
    assert.ok(events[0]?.type === 'failed');
    assert.equal(events[0].error.code, 'url_not_allowed');
    assert.equal(fetched, 0);
  });

  test('a resource without a document type is skipped, not yielded', async (context) => {
    const site = await siteFor(context, {
      '/index.html': html('Home', 'download', 'data'),
      '/download': { contentType: 'application/octet-stream', body: Buffer.from([0, 1, 2, 3]) },
      '/data': { contentType: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
    });
    const events = await crawl(site, '/index.html');
    assert.deepEqual(pagePaths(site, events), ['/index.html']);
    assert.deepEqual(skippedPaths(site, events, /not a document type \((application\/octet-stream|image\/png)\)/).sort(), [
      '/data',
      '/download',
    ]);
  });

  test('rel=nofollow links and pages with a robots meta tag of nofollow or noindex', async (context) => {
    const site = await siteFor(context, {
      '/index.html': {
        body: '<html><body><a href="followed.html">f</a><a rel="external NoFollow" href="not-followed.html">n</a><a href="no-links.html">x</a><a href="hidden.html">h</a></body></html>',
      },
      '/followed.html': html('Followed'),
      '/not-followed.html': html('Not followed'),
      '/no-links.html': {
        body: '<html><head><meta name="robots" content="nofollow"></head><body><a href="behind-nofollow.html">b</a></body></html>',
      },
      '/behind-nofollow.html': html('Behind'),
      '/hidden.html': {
        body: '<html><head><meta name="ROBOTS" content="noindex, follow"></head><body><a href="behind-noindex.html">b</a></body></html>',
      },
      '/behind-noindex.html': html('Behind noindex'),
    });
    const events = await crawl(site, '/index.html');
    assert.deepEqual(pagePaths(site, events), ['/index.html', '/followed.html', '/no-links.html', '/behind-noindex.html']);
    assert.deepEqual(skippedPaths(site, events, /not to be indexed/), ['/hidden.html']);
    assert.equal(site.requests.includes('/not-followed.html'), false);
    assert.equal(site.requests.includes('/behind-nofollow.html'), false);
  });

  test('tracking parameters are dropped, other query strings kept', async (context) => {
    const site = await siteFor(context, {
      '/index.html': html(
        'Home',
        'list.html?utm_source=x',
        'list.html?utm_campaign=y&fbclid=z',
        'list.html?page=2&utm_medium=mail',
        'list.html',
      ),
      '/list.html': html('List'),
      '/list.html?page=2': html('List, page 2'),
    });
    const events = await crawl(site, '/index.html');
    assert.deepEqual(pagePaths(site, events), ['/index.html', '/list.html', '/list.html?page=2']);
    assertEachRequestedOnce(site);
  });
});

describe('crawlSite: robots.txt', () => {
  test('disallowed URLs are skipped and never requested; the crawler’s own group applies', async (context) => {
    const site = await siteFor(context, {
      '/robots.txt': {
        contentType: 'text/plain',
        body: 'User-agent: *\nDisallow: /\n\nUser-agent: knowledge-agent\nDisallow: /docs/internal/\nAllow: /docs/internal/public.html\nDisallow: /*.pdf$\n',
      },
      '/docs/': html('Home', 'internal/secret.html', 'internal/other.html', 'internal/public.html', 'guide.pdf', 'open.html'),
      '/docs/internal/secret.html': html('Secret'),
      '/docs/internal/other.html': html('Other'),
      '/docs/internal/public.html': html('Public'),
      '/docs/guide.pdf': { contentType: 'application/pdf', body: pdfBytes },
      '/docs/open.html': html('Open', 'internal/secret.html'),
    });
    const events = await crawl(site, '/docs/');
    assert.deepEqual(pagePaths(site, events), ['/docs/', '/docs/internal/public.html', '/docs/open.html']);
    assert.deepEqual(skippedPaths(site, events, /robots\.txt/), [
      '/docs/internal/secret.html',
      '/docs/internal/other.html',
      '/docs/guide.pdf',
    ]);
    for (const path of ['/docs/internal/secret.html', '/docs/internal/other.html', '/docs/guide.pdf']) {
      assert.equal(site.requests.includes(path), false, `${path} was requested`);
    }
    assert.equal(site.requests.filter((path) => path === '/robots.txt').length, 1);
  });

  test('a start page robots.txt disallows is skipped and nothing else is fetched', async (context) => {
    const site = await siteFor(context, {
      '/robots.txt': { contentType: 'text/plain', body: 'User-agent: *\nDisallow: /\n' },
      '/docs/': html('Home', 'a.html'),
    });
    const events = await crawl(site, '/docs/');
    assert.deepEqual(events, [{ type: 'skipped', url: `${site.url}/docs/`, reason: 'robots_txt', message: 'disallowed by robots.txt' }]);
    assert.deepEqual(site.requests, ['/robots.txt']);
  });

  test('a user agent from the options selects its own group', async (context) => {
    const site = await siteFor(context, {
      '/robots.txt': { contentType: 'text/plain', body: 'User-agent: docs-bot\nDisallow: /b.html\n' },
      '/a.html': html('A', 'b.html'),
      '/b.html': html('B'),
    });
    const events = await crawl(site, '/a.html', { userAgent: 'Docs-Bot/1.0' });
    assert.deepEqual(pagePaths(site, events), ['/a.html']);
    assert.deepEqual(skippedPaths(site, events, /robots/), ['/b.html']);
  });

  test('Crawl-delay spaces the fetches out', async (context) => {
    const site = await siteFor(context, {
      '/robots.txt': { contentType: 'text/plain', body: 'User-agent: *\nCrawl-delay: 0.15\n' },
      '/index.html': html('Home', 'a.html', 'b.html', 'c.html'),
      '/a.html': html('A'),
      '/b.html': html('B'),
      '/c.html': html('C'),
    });
    const started = performance.now();
    const events = await crawl(site, '/index.html', { concurrency: 4 });
    assert.equal(pagePaths(site, events).length, 4);
    // Three fetches after the start page, each at least 150 ms after the one before.
    assert.ok(performance.now() - started >= 400, `took only ${Math.round(performance.now() - started)} ms`);
  });
});

function chainSite(length: number): Record<string, SitePage> {
  const pages: Record<string, SitePage> = { '/docs/': html('Page 0', 'p1.html') };
  for (let index = 1; index <= length; index++) pages[`/docs/p${index}.html`] = html(`Page ${index}`, `p${index + 1}.html`);
  return pages;
}

describe('crawlSite: limits', () => {
  for (const [maxDepth, expected] of [
    [0, ['/docs/']],
    [1, ['/docs/', '/docs/p1.html']],
    [2, ['/docs/', '/docs/p1.html', '/docs/p2.html']],
  ] as const) {
    test(`maxDepth ${maxDepth} stops ${maxDepth} hops from the start`, async (context) => {
      const site = await siteFor(context, chainSite(5));
      const events = await crawl(site, '/docs/', { maxDepth });
      assert.deepEqual(pagePaths(site, events), expected);
      assert.deepEqual(
        site.requests.filter((path) => path !== '/robots.txt'),
        expected,
      );
      assert.equal(events.filter((event) => event.type === 'skipped').length, 0, 'links past the depth limit are not reported');
    });
  }

  test('maxPages stops at that many pages, fetches no more, and reports the rest as skipped', async (context) => {
    const links = Array.from({ length: 12 }, (_, index) => `p${index}.html`);
    const pages: Record<string, SitePage> = { '/docs/': html('Home', ...links) };
    for (const link of links) pages[`/docs/${link}`] = html(link);
    const site = await siteFor(context, pages);
    const events = await crawl(site, '/docs/', { maxPages: 3, concurrency: 4 });
    assert.equal(pagePaths(site, events).length, 3);
    assert.equal(site.requests.filter((path) => path !== '/robots.txt').length, 3, 'fetched past the page limit');
    assert.equal(skippedPaths(site, events, /page limit \(3\) reached/).length, 10);
    assert.ok(
      events.every((event) => event.type !== 'skipped' || event.reason === 'page_limit'),
      'a page-limit skip typed otherwise',
    );
  });

  // The consumer takes a while over each page (as ingesting it does), so fetches end while it is busy: counted only
  // when handled, they let further fetches start and the crawl overshot (maxPages 5 stored 11).
  for (const maxPages of [1, 5, 10, 50]) {
    test(`maxPages ${maxPages} yields and fetches exactly ${maxPages} pages of a larger site, 4 fetches at once, slow consumer`, async (context) => {
      const site = await startEndlessSite({ fanOut: 8 });
      context.after(() => site.close());
      let pages = 0;
      for await (const event of crawlSite(site.startUrl, { maxPages, maxDepth: 10, concurrency: 4 }, fetchPage)) {
        if (event.type === 'page') pages++;
        await delay(5);
      }
      assert.equal(pages, maxPages);
      assert.equal(site.pageRequests().length, maxPages, 'fetched past the page limit');
    });
  }

  test('crawls sharing a budget yield no more pages together than it holds, and say whose limit stopped them', async (context) => {
    const sites = await Promise.all([startEndlessSite(), startEndlessSite()]);
    context.after(() => Promise.all(sites.map((site) => site.close())));
    const shared = new CrawlBudget(12, "the request's ");
    const crawled = await Promise.all(
      sites.map(async (site) => {
        const events: CrawlEvent[] = [];
        for await (const event of crawlSite(
          site.startUrl,
          { maxPages: 10, maxDepth: 10, concurrency: 3, sharedBudget: shared },
          fetchPage,
        )) {
          events.push(event);
          await delay(2);
        }
        return events;
      }),
    );
    const pageCounts = crawled.map((events) => events.filter((event) => event.type === 'page').length);
    assert.equal(pageCounts[0]! + pageCounts[1]!, 12, `pages per crawl: ${pageCounts.join(', ')}`);
    assert.ok(
      pageCounts.every((count) => count <= 10),
      'a crawl went past its own maxPages',
    );
    assert.equal(sites[0]!.pageRequests().length + sites[1]!.pageRequests().length, 12, 'fetched past the shared budget');
    const requestLimitSkips = crawled
      .flat()
      .filter((event) => event.type === 'skipped' && /^the request's page limit \(12\) reached$/.test(event.message));
    assert.ok(requestLimitSkips.length > 0, 'no URL skipped for the shared limit');
    assert.ok(requestLimitSkips.every((event) => event.type === 'skipped' && event.reason === 'page_limit'));
  });

  test('failed fetches do not count as pages', async (context) => {
    const site = await siteFor(context, {
      '/docs/': html('Home', 'gone1.html', 'gone2.html', 'a.html', 'b.html'),
      '/docs/a.html': html('A'),
      '/docs/b.html': html('B'),
    });
    const events = await crawl(site, '/docs/', { maxPages: 3, concurrency: 1 });
    assert.deepEqual(pagePaths(site, events), ['/docs/', '/docs/a.html', '/docs/b.html']);
    assert.equal(events.filter((event) => event.type === 'failed').length, 2);
  });

  test('a site of dead links stops at the fetch limit (maxPages + max(maxPages, 20) fetches)', async (context) => {
    const links = Array.from({ length: 30 }, (_, index) => `gone${index}.html`);
    const site = await siteFor(context, { '/docs/': html('Home', ...links) });
    const events = await crawl(site, '/docs/', { maxPages: 2 });
    assert.deepEqual(pagePaths(site, events), ['/docs/']);
    assert.equal(events.filter((event) => event.type === 'failed').length, 21);
    assert.equal(skippedPaths(site, events, /fetch limit \(22\) reached/).length, 9);
    assert.ok(
      events.every((event) => event.type !== 'skipped' || event.reason === 'fetch_limit'),
      'a fetch-limit skip typed otherwise',
    );
    assert.equal(site.requests.filter((path) => path !== '/robots.txt').length, 22);
  });

  test('no more fetches at once than the concurrency', async (context) => {
    const links = Array.from({ length: 10 }, (_, index) => `p${index}.html`);
    const pages: Record<string, SitePage> = { '/docs/': html('Home', ...links) };
    for (const link of links) pages[`/docs/${link}`] = html(link);
    const site = await siteFor(context, pages);
    let inFlight = 0;
    let mostInFlight = 0;
    const slowFetch: FetchPage = async (url) => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      try {
        await delay(20);
        return await fetchPage(url);
      } finally {
        inFlight--;
      }
    };
    const events = await crawl(site, '/docs/', { concurrency: 3 }, slowFetch);
    assert.equal(pagePaths(site, events).length, 11);
    assert.equal(mostInFlight, 3);
  });

  test('options out of range are refused with invalid_request', () => {
    const cases: Array<Partial<CrawlOptions>> = [
      { maxPages: 0 },
      { maxPages: 1001 },
      { maxPages: 1.5 },
      { maxDepth: -1 },
      { maxDepth: 11 },
      { concurrency: 0 },
      { concurrency: 17 },
    ];
    for (const options of cases) {
      assert.throws(
        () => crawlSite('http://127.0.0.1/', { maxPages: 5, maxDepth: 1, ...options }, fetchPage),
        { code: 'invalid_request' },
        JSON.stringify(options),
      );
    }
  });
});

describe('crawlSite: redirects', () => {
  test('a redirected start sets the scope; redirects inside the site are followed once, by their final URL', async (context) => {
    const site = await siteFor(context, {
      '/': { status: 301, location: '/docs/' },
      '/docs/': html('Home', 'old.html', 'new.html', 'moved', 'away.html', 'loop-a.html'),
      '/docs/old.html': { status: 301, location: '/docs/new.html' },
      '/docs/new.html': html('New', 'old.html'),
      '/docs/moved': { status: 302, location: '/docs/moved/' },
      '/docs/moved/': html('Moved', '../moved'),
      '/docs/away.html': { status: 302, location: '/blog/' },
      '/blog/': html('Blog'),
      '/docs/loop-a.html': { status: 302, location: '/docs/' },
    });
    const asked: string[] = [];
    const recordingFetch: FetchPage = (url) => {
      asked.push(url.slice(site.url.length));
      return fetchPage(url);
    };
    // One at a time, so old.html lands on new.html before new.html's own turn comes.
    const events = await crawl(site, '/', { concurrency: 1 }, recordingFetch);
    assert.deepEqual(pagePaths(site, events), ['/docs/', '/docs/moved/', '/docs/new.html']);
    assert.deepEqual(asked, ['/robots.txt', '/', '/docs/old.html', '/docs/moved', '/docs/away.html', '/docs/loop-a.html']);
    assert.equal(site.requests.filter((path) => path === '/docs/new.html').length, 1);
    assert.equal(site.requests.filter((path) => path === '/docs/moved/').length, 1);
    assert.deepEqual(skippedPaths(site, events, /outside the crawl scope/), ['/docs/away.html']);
    assert.deepEqual(skippedPaths(site, events, /crawled already/), ['/docs/loop-a.html']);
    assert.equal(events.filter((event) => event.type === 'failed').length, 0);

    // At full concurrency old.html and new.html are fetched at once: one of them is reported as a duplicate.
    asked.length = 0;
    const concurrent = await crawl(site, '/', {}, recordingFetch);
    assert.deepEqual(pagePaths(site, concurrent), ['/docs/', '/docs/moved/', '/docs/new.html']);
    assert.deepEqual(
      asked.filter((path, index) => asked.indexOf(path) !== index),
      [],
    );
  });
});

describe('crawlSite: sitemaps', () => {
  test('a sitemap.xml start yields its pages at depth 1, same origin and scope only', async (context) => {
    const pages: Record<string, SitePage> = {
      '/a.html': html('A', 'linked.html'),
      '/b.html': html('B'),
      '/linked.html': html('Linked'),
    };
    const site = await siteFor(context, pages);
    pages['/sitemap.xml'] = {
      contentType: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?>
<!-- generated -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>${site.url}/a.html</loc><lastmod>2024-01-01</lastmod><image:image><image:loc>${site.url}/picture.html</image:loc></image:image></url>
  <url><loc> ${site.url}/b.html?utm_source=sitemap </loc></url>
  <url><loc><![CDATA[${site.url}/a.html]]></loc></url>
  <url><loc>https://example.invalid/elsewhere.html</loc></url>
</urlset>`,
    };
    const events = await crawl(site, '/sitemap.xml', { maxDepth: 0 });
    assert.deepEqual(pagePaths(site, events), ['/a.html', '/b.html']);
    assert.deepEqual(
      events.flatMap((event) => (event.type === 'page' ? [event.depth] : [])),
      [1, 1],
    );
    assert.equal(site.requests.includes('/picture.html'), false);
    assert.equal(site.requests.includes('/linked.html'), false, 'followed a link with maxDepth 0');
    assert.ok(events.some((event) => event.type === 'skipped' && event.url === 'https://example.invalid/elsewhere.html'));

    const deeper = await crawl(site, '/sitemap.xml', { maxDepth: 2 });
    assert.deepEqual(pagePaths(site, deeper), ['/a.html', '/b.html', '/linked.html']);
  });

  test('a sitemap index leads to its sitemaps and their pages, within maxPages', async (context) => {
    const pages: Record<string, SitePage> = {
      '/docs/one.html': html('One'),
      '/docs/two.html': html('Two'),
      '/docs/three.html': html('Three'),
      '/docs/four.html': html('Four'),
    };
    const site = await siteFor(context, pages);
    const urlset = (...paths: string[]): SitePage => ({
      contentType: 'text/xml',
      body: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((path) => `<url><loc>${site.url}${path}</loc></url>`).join('')}</urlset>`,
    });
    pages['/docs/sitemap-index.xml'] = {
      contentType: 'application/xml',
      body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sitemap><loc>${site.url}/docs/sitemaps/a.xml</loc></sitemap>
        <sitemap><loc>${site.url}/docs/sitemaps/b.xml</loc></sitemap>
        <sitemap><loc>${site.url}/docs/sitemaps/missing.xml</loc></sitemap>
        <sitemap><loc>${site.url}/docs/sitemaps/a.xml</loc></sitemap>
        <sitemap><loc>${site.url}/other/sitemap.xml</loc></sitemap>
      </sitemapindex>`,
    };
    pages['/docs/sitemaps/a.xml'] = urlset('/docs/one.html', '/docs/two.html');
    pages['/docs/sitemaps/b.xml'] = urlset('/docs/two.html', '/docs/three.html', '/docs/four.html');
    const events = await crawl(site, '/docs/sitemap-index.xml', { maxDepth: 1 });
    assert.deepEqual(pagePaths(site, events), ['/docs/four.html', '/docs/one.html', '/docs/three.html', '/docs/two.html']);
    assertEachRequestedOnce(site);
    assert.equal(site.requests.includes('/other/sitemap.xml'), false);
    const failed = events.filter((event) => event.type === 'failed');
    assert.deepEqual(
      failed.map((event) => event.url),
      [`${site.url}/docs/sitemaps/missing.xml`],
    );

    const limited = await crawl(site, '/docs/sitemap-index.xml', { maxPages: 2 });
    assert.equal(pagePaths(site, limited).length, 2);
    assert.equal(skippedPaths(site, limited, /page limit/).length, 2);
  });

  test('an .xml start that is not a sitemap is handled as a page', async (context) => {
    const site = await siteFor(context, {
      '/feed.xml': { contentType: 'application/rss+xml', body: '<?xml version="1.0"?><rss><channel></channel></rss>' },
    });
    const events = await crawl(site, '/feed.xml');
    assert.deepEqual(
      events.map((event) => event.type),
      ['skipped'],
    );
  });
});

describe('crawlSite: abort', () => {
  test('an aborted signal stops the crawl: no more events, no more fetches', async (context) => {
    const links = Array.from({ length: 20 }, (_, index) => `p${index}.html`);
    const pages: Record<string, SitePage> = { '/docs/': html('Home', ...links) };
    for (const link of links) pages[`/docs/${link}`] = html(link);
    const site = await siteFor(context, pages);
    const controller = new AbortController();
    const events: CrawlEvent[] = [];
    for await (const event of crawlSite(
      `${site.url}/docs/`,
      { maxPages: 50, maxDepth: 2, concurrency: 2, signal: controller.signal },
      fetchPage,
    )) {
      events.push(event);
      if (events.length === 2) controller.abort();
    }
    assert.equal(events.length, 2);
    const requestsAtEnd = site.requests.length;
    // robots.txt, the start page, and at most the two fetches running when the signal fired.
    assert.ok(requestsAtEnd <= 5, `made ${requestsAtEnd} requests`);
    await delay(50);
    assert.equal(site.requests.length, requestsAtEnd, 'fetched after the crawl ended');
  });

  test('the signal reaches the fetcher, so fetches under way end with the crawl', async (context) => {
    const site = await siteFor(context, { '/docs/': html('Home', 'slow1.html', 'slow2.html') });
    const controller = new AbortController();
    let cancelled = 0;
    const slowFetch: FetchPage = async (url, signal) => {
      if (!url.includes('slow')) return fetchPage(url);
      try {
        await delay(10_000, undefined, { signal });
      } catch (error) {
        cancelled++;
        throw error;
      }
      return fetchPage(url);
    };
    const started = performance.now();
    const events: CrawlEvent[] = [];
    for await (const event of crawlSite(`${site.url}/docs/`, { maxPages: 10, maxDepth: 1, signal: controller.signal }, slowFetch)) {
      events.push(event);
      setTimeout(() => controller.abort(), 20);
    }
    assert.deepEqual(pagePaths(site, events), ['/docs/']);
    assert.equal(cancelled, 2);
    assert.ok(performance.now() - started < 2_000, 'waited for the slow fetches');
  });

  test('a signal aborted before the start fetches nothing', async (context) => {
    const site = await siteFor(context, { '/': html('Home') });
    const events = await crawl(site, '/', { signal: AbortSignal.abort() });
    assert.deepEqual(events, []);
    assert.deepEqual(site.requests, []);
  });

  test('leaving the loop early ends the crawl too', async (context) => {
    const site = await siteFor(context, chainSite(10));
    for await (const event of crawlSite(`${site.url}/docs/`, { maxPages: 50, maxDepth: 10 }, fetchPage)) {
      assert.equal(event.type, 'page');
      break;
    }
    await delay(50);
    assert.deepEqual(site.requests, ['/robots.txt', '/docs/']);
  });
});

describe('page links', () => {
  const normalizeCases: ReadonlyArray<readonly [href: string, expected: string | undefined]> = [
    ['guide/intro.html#setup', 'https://docs.example.com/docs/guide/intro.html'],
    ['../blog/', 'https://docs.example.com/blog/'],
    ['/a?utm_source=x&b=1&utm_medium=y', 'https://docs.example.com/a?b=1'],
    ['/a?gclid=1', 'https://docs.example.com/a'],
    ['/a?q=a%20b&x', 'https://docs.example.com/a?q=a%20b&x'],
    ['HTTPS://Docs.Example.COM:443/a/./b/../c', 'https://docs.example.com/a/c'],
    ['mailto:someone@example.com', undefined],
    ['javascript:alert(1)', undefined],
    ['tel:+123', undefined],
    ['ftp://docs.example.com/file', undefined],
    ['https://user:secret@docs.example.com/', undefined],
    ['http://[::1', undefined],
  ];
  for (const [href, expected] of normalizeCases) {
    test(`normalizeCrawlUrl(${JSON.stringify(href)})`, () => {
      assert.equal(normalizeCrawlUrl(href, 'https://docs.example.com/docs/index.html')?.href, expected);
    });
  }

  test('readPageLinks honours <base href> and keeps each link once', () => {
    const links = readPageLinks(
      '<html><head><base href="/v2/"></head><body><a href="a.html">a</a><a href="a.html#x">a</a><area href="/map.html"><a>none</a><a href="  b.html ">b</a></body></html>',
      'https://docs.example.com/docs/index.html',
    );
    assert.deepEqual(links, {
      links: ['https://docs.example.com/v2/a.html', 'https://docs.example.com/map.html', 'https://docs.example.com/v2/b.html'],
      follow: true,
      index: true,
    });
  });
});
