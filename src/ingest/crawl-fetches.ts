// The fetches of one crawl: those under way, the outcomes of those that ended (in the order they ended), and the
// pause robots.txt asks for between two starts.
import { KnowledgeError } from '../errors.js';
import { lastmodOf, type CrawlItem } from './crawl-frontier.js';
import type { FetchPage, UnchangedPage } from './crawl-site.js';
import type { FetchedPage } from './fetch-url.js';

export type FetchOutcome =
  | { readonly item: CrawlItem; readonly page: FetchedPage | UnchangedPage }
  | { readonly item: CrawlItem; readonly error: KnowledgeError };

export class CrawlFetches {
  private readonly running = new Set<Promise<void>>();
  private readonly finished: FetchOutcome[] = [];
  /** Ends the current waitForChange, if one waits. */
  private wake: (() => void) | undefined;
  private crawlDelayMs = 0;
  private lastStartAt = 0;
  private nextStartAt = 0;

  constructor(
    private readonly fetchPage: FetchPage,
    private readonly signal: AbortSignal | undefined,
  ) {}

  get runningCount(): number {
    return this.running.size;
  }

  /** Nothing under way and no outcome waiting to be taken. */
  get idle(): boolean {
    return this.running.size === 0 && this.finished.length === 0;
  }

  get hasFinished(): boolean {
    return this.finished.length > 0;
  }

  /** Sets the pause between two starts, counted from the last start. */
  setCrawlDelay(delayMs: number): void {
    this.crawlDelayMs = delayMs;
    this.nextStartAt = this.lastStartAt + delayMs;
  }

  /** Milliseconds the crawl delay still holds the next start back; 0 when a fetch may start now. */
  delayBeforeNextStart(): number {
    const waitMs = this.nextStartAt - Date.now();
    return this.crawlDelayMs > 0 && waitMs > 0 ? waitMs : 0;
  }

  start(item: CrawlItem): void {
    this.lastStartAt = Date.now();
    this.nextStartAt = this.lastStartAt + this.crawlDelayMs;
    const pageRequest = item.kind === 'page' ? lastmodOf(item) : undefined;
    const outcome: Promise<FetchOutcome> = this.fetchPage(item.url, this.signal, pageRequest).then(
      (page) => ({ item, page }),
      (error: unknown) => ({
        item,
        error:
          error instanceof KnowledgeError
            ? error
            : new KnowledgeError('fetch_failed', `${item.url} could not be fetched`, { cause: error }),
      }),
    );
    const entry = outcome.then((ended) => {
      this.running.delete(entry);
      this.finished.push(ended);
      this.wake?.();
    });
    this.running.add(entry);
  }

  /** Waits for a fetch to end, the crawl delay to pass (when `waitMs` > 0), or the signal to abort. */
  waitForChange(waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(timer);
        this.signal?.removeEventListener('abort', done);
        this.wake = undefined;
        resolve();
      };
      if (waitMs > 0) timer = setTimeout(done, waitMs);
      this.signal?.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }

  /** The outcome of the earliest fetch that ended and was not taken yet. */
  takeFinished(): FetchOutcome | undefined {
    return this.finished.shift();
  }

  /** Lets the fetches under way end (a fetcher that takes the signal ends them at once); their outcomes are dropped. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
