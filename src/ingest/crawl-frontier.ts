// The URLs of one crawl: those waiting, one depth after the other, and every URL met so far, so that none is fetched twice.

export interface CrawlItem {
  readonly url: string;
  readonly depth: number;
  readonly kind: 'page' | 'sitemap';
  /** The sitemap's lastmod for a page it listed (ISO 8601 UTC). */
  readonly lastmod?: string;
}

/** The lastmod of an item or sitemap entry as a property to spread, left out when there is none. */
export function lastmodOf(dated: { readonly lastmod?: string }): { lastmod?: string } {
  return dated.lastmod === undefined ? {} : { lastmod: dated.lastmod };
}

// URLs waiting to be fetched; links found past this are dropped, which bounds memory and 'skipped' events.
const maxQueuedUrls = 10_000;

export class CrawlFrontier {
  /** Every URL queued or fetched: none is queued twice. */
  private readonly met = new Set<string>();
  /** Every URL a fetch was started for or landed on. */
  private readonly landed = new Set<string>();
  /** The depth being crawled, in order. */
  private current: CrawlItem[];
  /** What the current depth's pages link to, crawled once the current depth is done. */
  private deeper: CrawlItem[] = [];

  constructor(start: CrawlItem) {
    this.met.add(start.url);
    this.current = [start];
  }

  /** Records the URL as met; false when it had been met before. */
  meet(url: string): boolean {
    if (this.met.has(url)) return false;
    this.met.add(url);
    return true;
  }

  /** Records a URL a fetch starts for or lands on (met as well). */
  land(url: string): void {
    this.met.add(url);
    this.landed.add(url);
  }

  hasLanded(url: string): boolean {
    return this.landed.has(url);
  }

  get isFull(): boolean {
    return this.current.length + this.deeper.length >= maxQueuedUrls;
  }

  /** Queues an item of the current depth (a nested sitemap: its pages join the start's other pages). */
  queueNow(item: CrawlItem): void {
    this.current.push(item);
  }

  queueDeeper(item: CrawlItem): void {
    this.deeper.push(item);
  }

  /** The next item of the current depth, left in place. */
  peek(): CrawlItem | undefined {
    return this.current[0];
  }

  take(): CrawlItem | undefined {
    return this.current.shift();
  }

  /** Moves on to the next depth; false when nothing waits there. */
  descend(): boolean {
    if (this.deeper.length === 0) return false;
    [this.current, this.deeper] = [this.deeper, []];
    return true;
  }

  /** The queued URLs no fetch started for. */
  unfetched(): CrawlItem[] {
    return [...this.current, ...this.deeper].filter((item) => !this.landed.has(item.url));
  }
}
