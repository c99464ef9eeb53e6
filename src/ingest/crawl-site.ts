// Crawls a documentation site breadth-first: same origin and path prefix, robots.txt honoured, bounded concurrency.
import { KnowledgeError } from '../errors.js';
import { detectFormat } from './convert-document.js';
import { CrawlBudget } from './crawl-budget.js';
import { CrawlFetches, type FetchOutcome } from './crawl-fetches.js';
import { CrawlFrontier, lastmodOf, type CrawlItem } from './crawl-frontier.js';
import type { FetchedPage, NotModified } from './fetch-url.js';
import { nonDocumentExtension, normalizeCrawlUrl, readPageLinks } from './page-links.js';
import { readSitemap, type SitemapEntry } from './read-sitemap.js';
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
  /** Stops the crawl: no fetch starts and no event is yielded after it fires; it reaches the fetches under way. */
  readonly signal?: AbortSignal;
  /** Pages shared with other crawls (those of one request), taken from as well as maxPages. */
  readonly sharedBudget?: CrawlBudget;
}

/** Why a crawl passed a URL by; the event's message says it in words, with the URL or limit in question. */
export type CrawlSkipReason =
  /** robots.txt disallows the URL, or the page a redirect lands on. */
  | 'robots_txt'
  /** A sitemap entry, or a redirect's target, outside the crawl's origin and folder. */
  | 'outside_scope'
  /** An extension or content type that is not a document. */
  | 'not_a_document'
  /** The page's robots meta tag says noindex. */
  | 'noindex'
  /** A redirect onto a page crawled already. */
  | 'crawled_already'
  /** A sitemap URL that holds no sitemap. */
  | 'not_a_sitemap'
  /** A sitemap past the most a crawl fetches (50). */
  | 'sitemap_limit'
  /** Queued when the crawl (or the crawls sharing its budget) had yielded maxPages pages. */
  | 'page_limit'
  /** Queued when the crawl (or the crawls sharing its budget) had used up its page fetches. */
  | 'fetch_limit';

export type CrawlEvent =
  | {
      readonly type: 'page';
      readonly page: FetchedPage;
      readonly depth: number;
      /** The page's links inside the crawl scope, normalized, at any depth: what to remember for a refresh. */
      readonly links: readonly string[];
      /** The sitemap's lastmod for the page (ISO 8601 UTC), when a sitemap listed it with one. */
      readonly lastmod?: string;
    }
  /** The fetcher answered UnchangedPage: the page counts as crawled, and its remembered links are followed. */
  | { readonly type: 'unchanged'; readonly url: string; readonly depth: number; readonly lastmod?: string }
  | { readonly type: 'skipped'; readonly url: string; readonly reason: CrawlSkipReason; readonly message: string }
  | { readonly type: 'failed'; readonly url: string; readonly error: KnowledgeError };

/** Whether a skip means the crawl stopped before it had looked at everything in its scope. */
export function isCrawlLimit(reason: CrawlSkipReason): boolean {
  return reason === 'page_limit' || reason === 'fetch_limit';
}

/** A page unchanged since a crawl that read it, as the fetcher knows from a 304 or a sitemap lastmod no newer than its own. */
export interface UnchangedPage extends NotModified {
  /** The links of the page's last `page` event, followed as if read from the page again. */
  readonly links: readonly string[];
}

/**
 * Given when a URL is fetched as a page (the start URL included: only its body tells a sitemap); robots.txt and the
 * sitemaps an index lists are fetched without it, as the crawl reads their bodies.
 */
export interface PageRequest {
  /** The sitemap's lastmod for the URL (ISO 8601 UTC), when a sitemap listed it with one. */
  readonly lastmod?: string;
}

/**
 * Downloads one URL (following redirects, as fetchUrl does); the signal is the crawl's own, for fetchers that can cancel.
 * Only a fetch given a PageRequest may answer UnchangedPage.
 */
export type FetchPage = (url: string, signal?: AbortSignal, page?: PageRequest) => Promise<FetchedPage | UnchangedPage>;

const maxSitemapFetches = 50;
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

/** A fetcher answered UnchangedPage where the crawl reads the body (robots.txt, a sitemap). */
function bodyNeeded(url: string): KnowledgeError {
  return new KnowledgeError(
    'fetch_failed',
    `${url} was answered as an unchanged page, but the crawl reads its body: answer UnchangedPage only to fetches given a PageRequest`,
  );
}

function skipped(url: string, reason: CrawlSkipReason, message: string): CrawlEvent {
  return { type: 'skipped', url, reason, message };
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
 *   page fetches) is reached, the crawl's own or the shared budget's.
 * - At most maxPages pages are yielded, exactly: a page is counted when its fetch starts (CrawlBudget).
 * - A sitemap start (`.xml` holding `<urlset>` or `<sitemapindex>`) yields its pages at depth 1 even
 *   when maxDepth is 0; their links are followed while depth < maxDepth. Each page's sitemap lastmod reaches the
 *   fetcher (PageRequest) and the page's event.
 * - `page` events carry the page's in-scope links (to remember for a refresh); `unchanged`: the fetcher answered
 *   UnchangedPage, which counts as a page, and its remembered links are queued as links read from it would be (scope,
 *   depth and robots.txt as for any link).
 * Throws `invalid_request` for options out of range.
 */
export function crawlSite(startUrl: string, options: CrawlOptions, fetchPage: FetchPage): AsyncIterable<CrawlEvent> {
  const settings: CrawlSettings = {
    maxPages: checkedInteger('maxPages', options.maxPages, 1, 1000),
    maxDepth: checkedInteger('maxDepth', options.maxDepth, 0, 10),
    concurrency: checkedInteger('concurrency', options.concurrency ?? 4, 1, 16),
    userAgent: options.userAgent ?? 'knowledge-agent',
    signal: options.signal,
    sharedBudget: options.sharedBudget,
  };
  return crawlFrom(startUrl, settings, fetchPage);
}

interface CrawlSettings extends Required<Omit<CrawlOptions, 'signal' | 'sharedBudget'>> {
  readonly signal: AbortSignal | undefined;
  readonly sharedBudget: CrawlBudget | undefined;
}

async function* crawlFrom(startUrl: string, settings: CrawlSettings, fetchPage: FetchPage): AsyncGenerator<CrawlEvent> {
  if (settings.signal?.aborted) return;
  const start = normalizeCrawlUrl(startUrl);
  if (start === undefined) {
    yield {
      type: 'failed',
      url: startUrl,
      error: new KnowledgeError('url_not_allowed', `${JSON.stringify(startUrl)} is not an http(s) URL to crawl`),
    };
    return;
  }
  yield* new SiteCrawl(start, settings, fetchPage).run();
}

/** The origin and folder a crawl stays in. */
interface CrawlScope {
  readonly origin: string;
  readonly pathPrefix: string;
}

/** One crawl from a start URL: what it has queued and fetched, the scope and robots.txt it follows, and its counts. */
class SiteCrawl {
  private readonly frontier: CrawlFrontier;
  private readonly fetches: CrawlFetches;
  private readonly robotsByOrigin = new Map<string, Promise<RobotsPolicy>>();
  private readonly signal: AbortSignal | undefined;
  /** The crawl's own budget first, then the one it shares. */
  private readonly budgets: readonly CrawlBudget[];
  /** The start URL's origin and folder, moved to those of its final URL once the start page has landed. */
  private scope: CrawlScope;
  private scopeSettled = false;
  private robots: RobotsPolicy = allowEverything;
  private sitemapsQueued = 0;

  constructor(
    private readonly start: URL,
    private readonly settings: CrawlSettings,
    private readonly fetchPage: FetchPage,
  ) {
    this.signal = settings.signal;
    this.frontier = new CrawlFrontier({ url: start.href, depth: 0, kind: 'page' });
    this.fetches = new CrawlFetches(fetchPage, settings.signal);
    this.budgets = [new CrawlBudget(settings.maxPages), ...(settings.sharedBudget === undefined ? [] : [settings.sharedBudget])];
    this.scope = { origin: start.origin, pathPrefix: pathPrefixOf(start) };
  }

  async *run(): AsyncGenerator<CrawlEvent> {
    try {
      const startPolicy = await unlessAborted(this.robotsFor(this.start.origin), this.signal);
      if (startPolicy === undefined) return;
      if (!startPolicy.isAllowed(this.start)) {
        yield skipped(this.start.href, 'robots_txt', 'disallowed by robots.txt');
        return;
      }
      this.robots = startPolicy;
      for (;;) {
        if (this.signal?.aborted) return;
        const waitMs = this.startFetches();
        if (this.fetches.idle) {
          const waiting = this.frontier.peek() !== undefined;
          // Items wait, nothing runs and no delay holds them back: a limit stopped the crawl.
          if (waiting && waitMs <= 0) break;
          if (!waiting) {
            if (!this.frontier.descend()) break;
            continue;
          }
        }
        if (!this.fetches.hasFinished) await this.fetches.waitForChange(waitMs);
        const outcome = this.fetches.takeFinished();
        if (outcome === undefined || this.signal?.aborted) continue;
        if (!this.scopeSettled && (await this.settleScope(outcome)) === 'stopped') return;
        const events = this.handleOutcome(outcome);
        if (outcome.item.kind === 'page' && !events.some((event) => event.type === 'page' || event.type === 'unchanged')) {
          for (const budget of this.budgets) budget.returnPage();
        }
        for (const event of events) {
          if (this.signal?.aborted) return;
          yield event;
        }
      }
      yield* this.skipUnfetched();
    } finally {
      // Fetches already started are let finish (a fetcher that takes the signal ends them at once), their results dropped.
      await this.fetches.settle();
    }
  }

  /** Whether every budget has a page left (pages taken by fetches under way or waiting to be handled count as used). */
  private get canTakePage(): boolean {
    return this.budgets.every((budget) => budget.canTakePage);
  }

  /**
   * Starts what may start: the current depth in order, while a page could still be taken. Returns how long the crawl
   * delay holds the next start back (0 when it does not).
   */
  private startFetches(): number {
    for (let item = this.frontier.peek(); item !== undefined; item = this.frontier.peek()) {
      if (this.fetches.runningCount >= this.settings.concurrency || !this.canTakePage) return 0;
      if (this.frontier.hasLanded(item.url)) {
        this.frontier.take();
        continue;
      }
      const delayMs = this.fetches.delayBeforeNextStart();
      if (delayMs > 0) return delayMs;
      this.frontier.take();
      this.frontier.land(item.url);
      if (item.kind === 'page') for (const budget of this.budgets) budget.takePage();
      this.fetches.start(item);
    }
    return 0;
  }

  /** Every queued URL never fetched, skipped for the limit that stopped the crawl. */
  private *skipUnfetched(): Generator<CrawlEvent> {
    const spent = this.budgets.find((budget) => !budget.canTakePage) ?? (this.budgets[0] as CrawlBudget);
    const { reason, message } = spent.limit;
    for (const item of this.frontier.unfetched()) {
      if (this.signal?.aborted) return;
      yield skipped(item.url, reason, message);
    }
  }

  private robotsFor(origin: string): Promise<RobotsPolicy> {
    let policy = this.robotsByOrigin.get(origin);
    if (policy === undefined) {
      policy = loadRobotsPolicy(origin, this.settings.userAgent, async (url) => {
        const fetched = await this.fetchPage(url, this.signal);
        if ('notModified' in fetched) throw bodyNeeded(url);
        return fetched;
      });
      this.robotsByOrigin.set(origin, policy);
    }
    return policy;
  }

  private inScope(url: URL): boolean {
    return url.origin === this.scope.origin && url.pathname.startsWith(this.scope.pathPrefix);
  }

  private outsideScope(url: string): CrawlEvent {
    return skipped(url, 'outside_scope', `outside the crawl scope ${this.scope.origin}${this.scope.pathPrefix}`);
  }

  /** Once the start page has landed: the crawl's origin, path prefix and robots.txt follow its final URL. */
  private async settleScope(outcome: FetchOutcome): Promise<'stopped' | undefined> {
    this.scopeSettled = true;
    if ('error' in outcome) return undefined;
    const finalUrl = normalizeCrawlUrl(outcome.page.url) ?? this.start;
    this.scope = { origin: finalUrl.origin, pathPrefix: pathPrefixOf(finalUrl) };
    const policy = await unlessAborted(this.robotsFor(finalUrl.origin), this.signal);
    if (policy === undefined) return 'stopped';
    this.robots = policy;
    this.fetches.setCrawlDelay(Math.min(policy.crawlDelaySeconds ?? 0, maxCrawlDelaySeconds) * 1000);
    return undefined;
  }

  /**
   * Queues a page URL for `depth`, or says why not; links out of scope are ignored without a word, sitemap entries
   * (`listing`) out of scope are skipped.
   */
  private enqueuePage(url: URL, depth: number, listing?: SitemapEntry): CrawlEvent[] {
    if (!this.frontier.meet(url.href)) return [];
    if (!this.inScope(url)) return listing === undefined ? [] : [this.outsideScope(url.href)];
    const extension = nonDocumentExtension(url);
    if (extension !== undefined) return [skipped(url.href, 'not_a_document', `not a document type (.${extension})`)];
    if (!this.robots.isAllowed(url)) return [skipped(url.href, 'robots_txt', 'disallowed by robots.txt')];
    if (this.frontier.isFull) return [];
    this.frontier.queueDeeper({ url: url.href, depth, kind: 'page', ...lastmodOf(listing ?? {}) });
    return [];
  }

  private enqueueSitemap(url: URL): CrawlEvent[] {
    if (!this.frontier.meet(url.href)) return [];
    if (!this.inScope(url)) return [this.outsideScope(url.href)];
    if (!this.robots.isAllowed(url)) return [skipped(url.href, 'robots_txt', 'disallowed by robots.txt')];
    if (this.sitemapsQueued >= maxSitemapFetches) return [skipped(url.href, 'sitemap_limit', `more than ${maxSitemapFetches} sitemaps`)];
    this.sitemapsQueued++;
    // Nested sitemaps stay on the current depth, so their pages join the start's other pages at depth 1.
    this.frontier.queueNow({ url: url.href, depth: 0, kind: 'sitemap' });
    return [];
  }

  private handleOutcome(outcome: FetchOutcome): CrawlEvent[] {
    const { item } = outcome;
    if ('error' in outcome) return [{ type: 'failed', url: item.url, error: outcome.error }];
    const finalUrl = normalizeCrawlUrl(outcome.page.url) ?? new URL(item.url);
    if (finalUrl.href !== item.url) {
      if (!this.inScope(finalUrl)) return [skipped(item.url, 'outside_scope', `redirects outside the crawl scope, to ${finalUrl.href}`)];
      if (this.frontier.hasLanded(finalUrl.href))
        return [skipped(item.url, 'crawled_already', `redirects to ${finalUrl.href}, crawled already`)];
      this.frontier.land(finalUrl.href);
      if (!this.robots.isAllowed(finalUrl))
        return [skipped(item.url, 'robots_txt', `redirects to ${finalUrl.href}, disallowed by robots.txt`)];
    }
    if ('notModified' in outcome.page) {
      if (item.kind === 'sitemap') return [{ type: 'failed', url: item.url, error: bodyNeeded(item.url) }];
      return [
        { type: 'unchanged', url: finalUrl.href, depth: item.depth, ...lastmodOf(item) },
        ...this.enqueueLinks(item, outcome.page.links),
      ];
    }
    if (item.kind === 'sitemap') {
      return (
        this.handleSitemap(item, finalUrl, outcome.page.bytes.toString('utf8')) ?? [skipped(item.url, 'not_a_sitemap', 'not a sitemap')]
      );
    }
    if (item.depth === 0 && (isSitemapPath(item.url) || isSitemapPath(finalUrl.href))) {
      const events = this.handleSitemap(item, finalUrl, outcome.page.bytes.toString('utf8'));
      if (events !== undefined) return events;
    }
    return this.handlePage(item, finalUrl, outcome.page);
  }

  private handleSitemap(item: CrawlItem, finalUrl: URL, text: string): CrawlEvent[] | undefined {
    const sitemap = readSitemap(text);
    if (sitemap === undefined) return undefined;
    const events: CrawlEvent[] = [];
    for (const entry of sitemap.entries) {
      const url = normalizeCrawlUrl(entry.loc, finalUrl);
      if (url === undefined) continue;
      events.push(...(sitemap.kind === 'urlset' ? this.enqueuePage(url, item.depth + 1, entry) : this.enqueueSitemap(url)));
    }
    return events;
  }

  private handlePage(item: CrawlItem, finalUrl: URL, fetched: FetchedPage): CrawlEvent[] {
    const fileName = finalUrl.pathname.slice(finalUrl.pathname.lastIndexOf('/') + 1);
    const format = detectFormat(fetched.bytes, { fileName, contentType: fetched.contentType });
    if (format === undefined)
      return [skipped(item.url, 'not_a_document', `not a document type (${fetched.contentType ?? 'no content type'})`)];
    let index = true;
    let links: string[] = [];
    if (format === 'html') {
      const read = readPageLinks(fetched.bytes.toString('utf8'), finalUrl.href);
      index = read.index;
      links = read.links.filter((link) => this.inScope(new URL(link)));
    }
    const events = this.enqueueLinks(item, links);
    if (!index) return [skipped(item.url, 'noindex', 'the page asks not to be indexed (robots meta tag)'), ...events];
    const page: FetchedPage = { ...fetched, url: finalUrl.href };
    return [{ type: 'page', page, depth: item.depth, links, ...lastmodOf(item) }, ...events];
  }

  /** Queues the links of a page, read now or remembered, one hop deeper while the depth limit allows. */
  private enqueueLinks(item: CrawlItem, links: readonly string[]): CrawlEvent[] {
    if (item.depth >= this.settings.maxDepth) return [];
    return links.flatMap((link) => {
      const url = normalizeCrawlUrl(link);
      return url === undefined ? [] : this.enqueuePage(url, item.depth + 1);
    });
  }
}
