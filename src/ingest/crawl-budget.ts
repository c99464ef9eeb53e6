// How many pages a crawl may store and how many page fetches it may start. A page is taken when its fetch starts, not
// when it arrives, so fetches running at once can never overshoot, and given back when the fetch yields no page (it
// failed, redirected onto a page crawled already, was no document). One budget per crawl (its maxPages), and one the
// crawls of a request share, so a request's cost is bounded however many crawls it lists.

/** Pages the crawls of one request store at most together: the most one crawl may ask for. */
export const maxCrawlPagesPerRequest = 1_000;

export interface CrawlLimit {
  readonly reason: 'page_limit' | 'fetch_limit';
  readonly message: string;
}

export class CrawlBudget {
  /** Page fetches allowed in all: a few pages may redirect, fail or be skipped. */
  readonly maxFetches: number;
  private pagesTaken = 0;
  private fetchesStarted = 0;

  /** `owner` names whose limit it is in the messages of the URLs it leaves unfetched ("", "the request's "). */
  constructor(
    readonly maxPages: number,
    private readonly owner = '',
  ) {
    this.maxFetches = maxPages + Math.max(maxPages, 20);
  }

  get canTakePage(): boolean {
    return this.pagesTaken < this.maxPages && this.fetchesStarted < this.maxFetches;
  }

  /** For a page fetch about to start: one page and one fetch. */
  takePage(): void {
    this.pagesTaken++;
    this.fetchesStarted++;
  }

  /** The fetch yielded no page: its page may be taken again (its fetch stays spent). */
  returnPage(): void {
    this.pagesTaken--;
  }

  /** The limit that keeps pages from being taken, as the URLs left unfetched are skipped for it. */
  get limit(): CrawlLimit {
    return this.pagesTaken >= this.maxPages
      ? { reason: 'page_limit', message: `${this.owner}page limit (${this.maxPages}) reached` }
      : { reason: 'fetch_limit', message: `${this.owner}fetch limit (${this.maxFetches}) reached` };
  }
}
