// Refreshes a page, crawl or sitemap source: every page is asked for conditionally (its stored ETag and
// Last-Modified), a 304 or a sitemap `lastmod` no newer than the stored one costs no download, conversion or
// embedding, and a page whose body did not change is not re-embedded (the ingest skips a known hash).
import { KnowledgeError, isKnowledgeError } from '../errors.js';
import { crawlSite, isCrawlLimit, type FetchPage } from '../ingest/crawl-site.js';
import { fetchIfChanged, fetchUrl, type FetchedPage, type FetchLimits } from '../ingest/fetch-url.js';
import type { IngestService, SourceOutcome } from '../ingest/ingest-service.js';
import type { PageState, RegisteredSource, SourceState } from '../store/source-registry.js';
import type { NamespaceName } from '../store/namespace-name.js';
import type { RefreshTally } from './refresh-tally.js';

/** Pages one crawl or sitemap refresh looks at, at most (the same bound as a crawl's ingest). */
export const maxPagesPerRefresh = 1_000;

export interface WebRefreshContext {
  readonly ingest: IngestService;
  readonly limits: FetchLimits;
  /** Removes the namespace's documents stored under `origin`; resolves with how many went. */
  readonly removeDocuments: (origin: string) => Promise<number>;
  readonly signal: AbortSignal;
}

function validatorsOf(page: Pick<PageState, 'etag' | 'lastModified'> | undefined): { etag?: string; lastModified?: string } {
  return {
    ...(page?.etag === undefined ? {} : { etag: page.etag }),
    ...(page?.lastModified === undefined ? {} : { lastModified: page.lastModified }),
  };
}

function asKnowledgeError(error: unknown, url: string): KnowledgeError {
  return isKnowledgeError(error) ? error : new KnowledgeError('fetch_failed', `${url} could not be fetched (${(error as Error).message})`);
}

/** Ingests one downloaded page; a failure of the ingest itself (a full disk) is the page's outcome too. */
async function ingestPage(context: WebRefreshContext, namespace: NamespaceName, page: FetchedPage): Promise<SourceOutcome> {
  try {
    const report = await context.ingest.ingest(namespace, [{ kind: 'fetched', page }], { signal: context.signal });
    const outcome = report.outcomes[0];
    if (outcome === undefined) throw new Error('the ingest reported no outcome');
    return outcome;
  } catch (error) {
    context.signal.throwIfAborted();
    return { index: 0, source: page.url, status: 'failed', error: asKnowledgeError(error, page.url) };
  }
}

async function failed(context: WebRefreshContext, tally: RefreshTally, url: string, error: KnowledgeError): Promise<void> {
  const goneOrigin = tally.failedPage(url, error);
  if (goneOrigin !== undefined) tally.removedDocuments(await context.removeDocuments(goneOrigin));
}

/** The source's sitemap, or a sitemap its index names (they end in .xml, as crawlSite tells them apart too). */
function isSitemapUrl(url: string, sourceUrl: string): boolean {
  return url === sourceUrl || /\.xml$/i.test(new URL(url).pathname);
}

export async function refreshWebSource(
  source: RegisteredSource,
  state: SourceState,
  tally: RefreshTally,
  context: WebRefreshContext,
): Promise<void> {
  if (source.kind === 'page') await refreshPage(source, state, tally, context);
  else await refreshCrawl(source, state, tally, context);
}

async function refreshPage(source: RegisteredSource, state: SourceState, tally: RefreshTally, context: WebRefreshContext) {
  const previous = state.pages[source.url];
  try {
    const result = await fetchIfChanged(source.url, context.limits, validatorsOf(previous), context.signal);
    if ('notModified' in result) tally.unchangedPage(source.url);
    else {
      const outcome = await ingestPage(context, source.namespace, result);
      tally.ingested(source.url, outcome, validatorsOf(result));
    }
  } catch (error) {
    context.signal.throwIfAborted();
    await failed(context, tally, source.url, asKnowledgeError(error, source.url));
  }
}

/**
 * A crawl from the source's URL (a sitemap's pages at depth 1 for a sitemap source). Pages the previous refresh knew
 * and this complete one did not meet are removed when the source prunes (a sitemap source always does: the sitemap
 * no longer lists them); kept otherwise.
 */
async function refreshCrawl(source: RegisteredSource, state: SourceState, tally: RefreshTally, context: WebRefreshContext) {
  const sitemap = source.kind === 'sitemap';
  const bounds = sitemap
    ? { maxPages: maxPagesPerRefresh, maxDepth: 0, prune: true }
    : (source.crawl ?? { maxPages: 100, maxDepth: 3, prune: false });
  // The URL each downloaded page was asked for (they differ after a redirect): its state is kept under it.
  const askedFor = new Map<string, string>();
  const fetchPage: FetchPage = async (url, signal, request) => {
    const previous = state.pages[url];
    // Robots.txt and sitemaps (no PageRequest) are read whole, never answered from memory.
    if (request === undefined) return fetchUrl(url, context.limits, signal);
    const { lastmod } = request;
    if (lastmod !== undefined && previous?.lastmod !== undefined && lastmod <= previous.lastmod) {
      return { url, notModified: true, links: previous.links ?? [] };
    }
    const result = await fetchIfChanged(url, context.limits, validatorsOf(previous), signal);
    if ('notModified' in result) return { url, notModified: true, links: previous?.links ?? [] };
    askedFor.set(result.url, url);
    return result;
  };
  let complete = true;
  try {
    for await (const event of crawlSite(
      source.url,
      { maxPages: Math.min(bounds.maxPages, maxPagesPerRefresh), maxDepth: bounds.maxDepth, signal: context.signal },
      fetchPage,
    )) {
      if (event.type === 'page') {
        const url = askedFor.get(event.page.url) ?? event.page.url;
        const outcome = await ingestPage(context, source.namespace, event.page);
        tally.ingested(url, outcome, {
          ...validatorsOf(event.page),
          ...(event.lastmod === undefined ? {} : { lastmod: event.lastmod }),
          ...(sitemap ? {} : { links: event.links }),
        });
      } else if (event.type === 'unchanged') {
        tally.unchangedPage(event.url);
      } else if (event.type === 'failed') {
        // A crawl's pages reachable only through a page that failed (maybe for a moment) were not really looked for; a
        // sitemap's listing is whole unless the sitemap itself (or one its index names) failed.
        if (!sitemap || isSitemapUrl(event.url, source.url)) complete = false;
        await failed(context, tally, event.url, event.error);
      } else if (isCrawlLimit(event.reason) || event.reason === 'not_a_sitemap' || event.reason === 'sitemap_limit') {
        complete = false;
      }
    }
  } catch (error) {
    context.signal.throwIfAborted();
    complete = false;
    tally.fail(source.url, asKnowledgeError(error, source.url));
  }
  context.signal.throwIfAborted();
  if (!bounds.prune || !complete || tally.checked === 0) {
    tally.keepUnseen();
    return;
  }
  for (const [, page] of tally.unseen()) tally.removedDocuments(await context.removeDocuments(page.origin));
}
