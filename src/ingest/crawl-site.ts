// Crawls a documentation site breadth-first: same origin and path prefix, robots.txt honoured, bounded concurrency.
import { KnowledgeError } from '../errors.js';
import { detectFormat } from './convert-document.js';
import type { FetchedResource } from './fetch-url.js';
import { nonDocumentExtension, normalizeCrawlUrl, readPageLinks, readSitemap } from './page-links.js';
import { allowEverything, loadRobotsPolicy, type RobotsPolicy } from './robots-txt.js';

export interface CrawlOptions {
  /** Pages yielded at most, the start page included: 1..1000. */
  readonly maxPages: number;
  /** Link hops from the start page, 0..10 (0 = the start page only). */
  readonly maxDepth: number;
  /** Fetches at once, 1..16; 4 when left out. */
  readonly concurrency?: number;
  /** The name matched against robots.txt User-agent lines; 'knowledge-agent' when left out. */
  readonly userAgent?: string;
  /** Stops the crawl: no fetch starts and no event is yielded after it fires. */
  readonly signal?: AbortSignal;
}

export interface CrawledPage {
  /** The URL after redirects, normalized. */
  readonly url: string;
  readonly bytes: Buffer;
  readonly contentType: string | undefined;
  readonly depth: number;
}

export type CrawlEvent =
  | { readonly type: 'page'; readonly page: CrawledPage }
  | { readonly type: 'skipped'; readonly url: string; readonly reason: string }
  | { readonly type: 'failed'; readonly url: string; readonly error: KnowledgeError };

/** Downloads one URL (following redirects, as fetchUrl does); the signal is the crawl's own, for fetchers that can cancel. */
export type FetchPage = (url: string, signal?: AbortSignal) => Promise<FetchedResource>;

interface QueueItem {
  readonly url: string;
  readonly depth: number;
  readonly kind: 'page' | 'sitemap';
}

type Outcome = { readonly item: QueueItem; readonly fetched: FetchedResource } | { readonly item: QueueItem; readonly error: KnowledgeError };

const maxSitemapFetches = 50;
// URLs waiting to be fetched; links found past this are dropped, which bounds memory and 'skipped' events.
const maxQueuedUrls = 10_000;
const maxCrawlDelaySeconds = 10;

function checkedInteger(name: string, value: number, minimum: number, maximum: number): number {
  if (!Number.isInteger(value) || value < minimum || value > maximum) {
    throw new KnowledgeError('invalid_request', `crawl ${name} must be an integer from ${minimum} to ${maximum}`);
  }
  return value;
}

/** The directory of the start URL after redirects: `/docs/guide/intro.html` → `/docs/guide/`. */
function pathPrefixOf(url: URL): string {
  return url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1);
}

function skipped(url: string, reason: string): CrawlEvent {
  return { type: 'skipped', url, reason };
}

function isSitemapPath(url: string): boolean {
  return /\.xml$/i.test(new URL(url).pathname);
}

/** The promise's value, or undefined as soon as the signal aborts. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return promise;
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Crawls from `startUrl`, fetching through `fetchPage` (robots.txt and sitemaps included), and yields
 * an event per page, skip and failure as they happen, one depth after the other.
 * - Scope: the origin and directory of the start URL after its redirects (`/docs/intro.html` → `/docs/`);
 *   links out of scope or past maxDepth are dropped without an event.
 * - `skipped`: robots.txt disallows, a non-document extension or content type, a robots meta tag
 *   saying noindex, a redirect out of scope or onto a page already crawled, a sitemap entry out of
 *   scope, and every queued URL left when maxPages or the fetch limit (maxPages + max(maxPages, 20)
 *   page fetches) is reached.
 * - A sitemap start (`.xml` holding `<urlset>` or `<sitemapindex>`) yields its pages at depth 1 even
 *   when maxDepth is 0; their links are followed while depth < maxDepth.
 * Throws `invalid_request` for options out of range.
 */
export function crawlSite(startUrl: string, options: CrawlOptions, fetchPage: FetchPage): AsyncIterable<CrawlEvent> {
  const settings: CrawlSettings = {
    maxPages: checkedInteger('maxPages', options.maxPages, 1, 1000),
    maxDepth: checkedInteger('maxDepth', options.maxDepth, 0, 10),
    concurrency: checkedInteger('concurrency', options.concurrency ?? 4, 1, 16),
    userAgent: options.userAgent ?? 'knowledge-agent',
    signal: options.signal,
  };
  return runCrawl(startUrl, settings, fetchPage);
}

interface CrawlSettings extends Required<Omit<CrawlOptions, 'signal'>> {
  readonly signal: AbortSignal | undefined;
}

async function* runCrawl(startUrl: string, settings: CrawlSettings, fetchPage: FetchPage): AsyncGenerator<CrawlEvent> {
  const { maxPages, maxDepth, concurrency, userAgent, signal } = settings;
  if (signal?.aborted) return;
  const start = normalizeCrawlUrl(startUrl);
  if (start === undefined) {
    yield { type: 'failed', url: startUrl, error: new KnowledgeError('url_not_allowed', `${JSON.stringify(startUrl)} is not an http(s) URL to crawl`) };
    return;
  }

  // Every URL queued or fetched (never queued twice), and every URL a fetch was started for or landed on.
  const known = new Set<string>([start.href]);
  const landed = new Set<string>();
  let level: QueueItem[] = [{ url: start.href, depth: 0, kind: 'page' }];
  let nextLevel: QueueItem[] = [];
  // Fetches under way, and the outcomes of those that ended, in the order they ended.
  const running = new Set<Promise<void>>();
  const finished: Outcome[] = [];
  let wake: (() => void) | undefined;
  let scope = { origin: start.origin, pathPrefix: pathPrefixOf(start) };
  let scopeSettled = false;
  let robots: RobotsPolicy = allowEverything;
  let crawlDelayMs = 0;
  let lastStartAt = 0;
  let nextStartAt = 0;
  let pagesYielded = 0;
  let pageFetches = 0;
  let runningPages = 0;
  let sitemapsQueued = 0;
  const fetchBudget = maxPages + Math.max(maxPages, 20);
  const robotsByOrigin = new Map<string, Promise<RobotsPolicy>>();
  const robotsFor = (origin: string): Promise<RobotsPolicy> => {
    let policy = robotsByOrigin.get(origin);
    if (policy === undefined) {
      policy = loadRobotsPolicy(origin, userAgent, (url) => fetchPage(url, signal));
      robotsByOrigin.set(origin, policy);
    }
    return policy;
  };
  const inScope = (url: URL): boolean => url.origin === scope.origin && url.pathname.startsWith(scope.pathPrefix);

  const startFetch = (item: QueueItem): void => {
    landed.add(item.url);
    if (item.kind === 'page') {
      pageFetches++;
      runningPages++;
    }
    lastStartAt = Date.now();
    nextStartAt = lastStartAt + crawlDelayMs;
    const fetched: Promise<Outcome> = fetchPage(item.url, signal).then(
      (page) => ({ item, fetched: page }),
      (error: unknown) => ({
        item,
        error: error instanceof KnowledgeError ? error : new KnowledgeError('fetch_failed', `${item.url} could not be fetched`, { cause: error }),
      }),
    );
    const entry = fetched.then((outcome) => {
      running.delete(entry);
      if (item.kind === 'page') runningPages--;
      finished.push(outcome);
      wake?.();
    });
    running.add(entry);
  };

  /** Waits for a fetch to end, the crawl delay to pass (when `waitMs` > 0), or the signal to abort. */
  const waitForChange = (waitMs: number): Promise<void> =>
    new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        wake = undefined;
        resolve();
      };
      if (waitMs > 0) timer = setTimeout(done, waitMs);
      signal?.addEventListener('abort', done, { once: true });
      wake = done;
    });

  /** Queues a page URL for `depth`, or says why not; links out of scope are ignored without a word. */
  const enqueuePage = (url: URL, depth: number, fromSitemap: boolean): CrawlEvent[] => {
    if (known.has(url.href)) return [];
    known.add(url.href);
    if (!inScope(url)) return fromSitemap ? [skipped(url.href, `outside the crawl scope ${scope.origin}${scope.pathPrefix}`)] : [];
    const extension = nonDocumentExtension(url);
    if (extension !== undefined) return [skipped(url.href, `not a document type (.${extension})`)];
    if (!robots.isAllowed(url)) return [skipped(url.href, 'disallowed by robots.txt')];
    if (level.length + nextLevel.length >= maxQueuedUrls) return [];
    nextLevel.push({ url: url.href, depth, kind: 'page' });
    return [];
  };

  const enqueueSitemap = (url: URL): CrawlEvent[] => {
    if (known.has(url.href)) return [];
    known.add(url.href);
    if (!inScope(url)) return [skipped(url.href, `outside the crawl scope ${scope.origin}${scope.pathPrefix}`)];
    if (!robots.isAllowed(url)) return [skipped(url.href, 'disallowed by robots.txt')];
    if (sitemapsQueued >= maxSitemapFetches) return [skipped(url.href, `more than ${maxSitemapFetches} sitemaps`)];
    sitemapsQueued++;
    // Nested sitemaps stay on the current level, so their pages join the start's other pages at depth 1.
    level.push({ url: url.href, depth: 0, kind: 'sitemap' });
    return [];
  };

  const handleSitemap = (item: QueueItem, finalUrl: URL, text: string): CrawlEvent[] | undefined => {
    const sitemap = readSitemap(text);
    if (sitemap === undefined) return undefined;
    const events: CrawlEvent[] = [];
    for (const location of sitemap.locations) {
      const url = normalizeCrawlUrl(location, finalUrl);
      if (url === undefined) continue;
      events.push(...(sitemap.kind === 'urlset' ? enqueuePage(url, item.depth + 1, true) : enqueueSitemap(url)));
    }
    return events;
  };

  const handlePage = (item: QueueItem, finalUrl: URL, fetched: FetchedResource): CrawlEvent[] => {
    const fileName = finalUrl.pathname.slice(finalUrl.pathname.lastIndexOf('/') + 1);
    const format = detectFormat(fetched.bytes, { fileName, contentType: fetched.contentType });
    if (format === undefined) return [skipped(item.url, `not a document type (${fetched.contentType ?? 'no content type'})`)];
    const events: CrawlEvent[] = [];
    let index = true;
    if (format === 'html') {
      const links = readPageLinks(fetched.bytes.toString('utf8'), finalUrl.href);
      index = links.index;
      if (item.depth < maxDepth) {
        for (const link of links.links) events.push(...enqueuePage(new URL(link), item.depth + 1, false));
      }
    }
    if (!index) return [skipped(item.url, 'the page asks not to be indexed (robots meta tag)'), ...events];
    pagesYielded++;
    const page: CrawledPage = { url: finalUrl.href, bytes: fetched.bytes, contentType: fetched.contentType, depth: item.depth };
    return [{ type: 'page', page }, ...events];
  };

  const handleOutcome = (outcome: Outcome): CrawlEvent[] => {
    const { item } = outcome;
    if ('error' in outcome) return [{ type: 'failed', url: item.url, error: outcome.error }];
    const finalUrl = normalizeCrawlUrl(outcome.fetched.url) ?? new URL(item.url);
    if (finalUrl.href !== item.url) {
      if (!inScope(finalUrl)) return [skipped(item.url, `redirects outside the crawl scope, to ${finalUrl.href}`)];
      if (landed.has(finalUrl.href)) return [skipped(item.url, `redirects to ${finalUrl.href}, crawled already`)];
      landed.add(finalUrl.href);
      known.add(finalUrl.href);
      if (!robots.isAllowed(finalUrl)) return [skipped(item.url, `redirects to ${finalUrl.href}, disallowed by robots.txt`)];
    }
    if (item.kind === 'sitemap') return handleSitemap(item, finalUrl, outcome.fetched.bytes.toString('utf8')) ?? [skipped(item.url, 'not a sitemap')];
    const isStart = item.depth === 0;
    if (isStart && (isSitemapPath(item.url) || isSitemapPath(finalUrl.href))) {
      const events = handleSitemap(item, finalUrl, outcome.fetched.bytes.toString('utf8'));
      if (events !== undefined) return events;
    }
    return handlePage(item, finalUrl, outcome.fetched);
  };

  /** Once the start page has landed: the crawl's origin, path prefix and robots.txt follow its final URL. */
  const settleScope = async (outcome: Outcome): Promise<'stopped' | undefined> => {
    scopeSettled = true;
    if ('error' in outcome) return undefined;
    const finalUrl = normalizeCrawlUrl(outcome.fetched.url) ?? start;
    scope = { origin: finalUrl.origin, pathPrefix: pathPrefixOf(finalUrl) };
    const policy = await unlessAborted(robotsFor(finalUrl.origin), signal);
    if (policy === undefined) return 'stopped';
    robots = policy;
    crawlDelayMs = Math.min(policy.crawlDelaySeconds ?? 0, maxCrawlDelaySeconds) * 1000;
    nextStartAt = lastStartAt + crawlDelayMs;
    return undefined;
  };

  try {
    const startPolicy = await unlessAborted(robotsFor(start.origin), signal);
    if (startPolicy === undefined) return;
    if (!startPolicy.isAllowed(start)) {
      yield skipped(start.href, 'disallowed by robots.txt');
      return;
    }
    robots = startPolicy;
    for (;;) {
      if (signal?.aborted) return;
      let waitMs = 0;
      // Start what may start: the level in order, pages only while a page could still be wanted.
      while (level.length > 0 && running.size < concurrency && pagesYielded < maxPages) {
        const item = level[0] as QueueItem;
        if (item.kind === 'page' && (pagesYielded + runningPages >= maxPages || pageFetches >= fetchBudget)) break;
        if (landed.has(item.url)) {
          level.shift();
          continue;
        }
        waitMs = nextStartAt - Date.now();
        if (crawlDelayMs > 0 && waitMs > 0) break;
        waitMs = 0;
        level.shift();
        startFetch(item);
      }
      if (running.size === 0 && finished.length === 0) {
        if (level.length > 0 && waitMs <= 0) break;
        if (level.length === 0) {
          if (nextLevel.length === 0) break;
          [level, nextLevel] = [nextLevel, []];
          continue;
        }
      }
      if (finished.length === 0) await waitForChange(waitMs);
      const outcome = finished.shift();
      if (outcome === undefined || signal?.aborted) continue;
      if (!scopeSettled && (await settleScope(outcome)) === 'stopped') return;
      for (const event of handleOutcome(outcome)) {
        if (signal?.aborted) return;
        yield event;
      }
    }
    const reason = pagesYielded >= maxPages ? `page limit (${maxPages}) reached` : `fetch limit (${fetchBudget}) reached`;
    for (const item of [...level, ...nextLevel]) {
      if (signal?.aborted) return;
      if (!landed.has(item.url)) yield skipped(item.url, reason);
    }
  } finally {
    // Fetches already started are let finish (a fetcher that takes the signal ends them at once), their results dropped.
    await Promise.allSettled([...running]);
  }
}
