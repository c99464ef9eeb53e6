// What one refresh found, item by item (a page, a file), and the state it leaves for the next: the counts of its
// summary, the failures with their reasons, and the careful removals (gone twice in a row, or no longer listed).
import { KnowledgeError } from '../errors.js';
import type { SourceOutcome } from '../ingest/ingest-service.js';
import type { PageState, RefreshFailure, RefreshSummary, RefreshTrigger } from '../store/source-registry.js';

/** Refreshes in a row that must find a page gone (404 or 410) before its document is removed. */
export const goneRefreshesBeforeRemoval = 2;

/** An HTTP answer that says the page is gone for good, as opposed to a failure that may pass. */
export function isGone(error: unknown): boolean {
  return error instanceof KnowledgeError && (error.upstreamStatus === 404 || error.upstreamStatus === 410);
}

export class RefreshTally {
  checked = 0;
  unchanged = 0;
  updated = 0;
  added = 0;
  removed = 0;
  readonly failed: RefreshFailure[] = [];
  /** The pages' state for the next refresh, by the URL asked for. */
  readonly pages = new Map<string, PageState>();
  /** Every URL this refresh handled, whatever came of it. */
  private readonly met = new Set<string>();

  constructor(
    /** The state the previous refresh left. */
    readonly previous: Readonly<Record<string, PageState>>,
    private readonly now: () => string,
  ) {}

  /** A page (or file) fetched and ingested, or refused by the ingest; a page's validators and links are remembered. */
  ingested(url: string, outcome: SourceOutcome, remembered?: Omit<PageState, 'origin' | 'goneCount' | 'checkedAt'>): void {
    this.meet(url);
    if (outcome.status === 'failed') {
      this.fail(url, outcome.error);
      return;
    }
    if (outcome.status === 'saved') this.added++;
    else if (outcome.status === 'updated') this.updated++;
    else this.unchanged++;
    if (remembered !== undefined)
      this.pages.set(url, { ...remembered, origin: outcome.document.origin, goneCount: 0, checkedAt: this.now() });
  }

  /** A page that answered 304, or whose sitemap `lastmod` is not newer than when it was fetched. */
  unchangedPage(url: string): void {
    this.meet(url);
    this.unchanged++;
    const previous = this.previous[url];
    if (previous !== undefined) this.pages.set(url, { ...previous, goneCount: 0, checkedAt: this.now() });
  }

  /**
   * A page that could not be fetched. Gone (404, 410): its origin is returned once it has been gone for
   * `goneRefreshesBeforeRemoval` refreshes in a row, for the caller to remove; any other failure keeps it as it was.
   */
  failedPage(url: string, error: KnowledgeError): string | undefined {
    this.meet(url);
    const previous = this.previous[url];
    if (!isGone(error) || previous === undefined) {
      this.fail(url, error);
      if (previous !== undefined) this.pages.set(url, { ...previous, goneCount: 0 });
      return undefined;
    }
    const goneCount = previous.goneCount + 1;
    if (goneCount >= goneRefreshesBeforeRemoval) return previous.origin;
    this.pages.set(url, { ...previous, goneCount });
    this.fail(
      url,
      new KnowledgeError(
        'fetch_failed',
        `${error.message}; its document is kept, and removed if the next refresh finds the page gone again`,
      ),
    );
    return undefined;
  }

  /** Documents removed (gone, no longer listed, or their files deleted). */
  removedDocuments(count: number): void {
    this.removed += count;
  }

  private meet(url: string): void {
    this.checked++;
    this.met.add(url);
  }

  fail(url: string, error: KnowledgeError): void {
    this.failed.push({ url, code: error.code, message: error.message });
  }

  /** Pages the previous refresh knew that this one did not meet. */
  unseen(): [string, PageState][] {
    return Object.entries(this.previous).filter(([url]) => !this.met.has(url));
  }

  /** Pages the previous refresh knew that this one neither met nor removed: kept as they were. */
  keepUnseen(): void {
    for (const [url, page] of this.unseen()) this.pages.set(url, page);
  }

  summary(trigger: RefreshTrigger, startedAt: string): RefreshSummary {
    const { checked, unchanged, updated, added, removed, failed } = this;
    return { trigger, startedAt, finishedAt: this.now(), checked, unchanged, updated, added, removed, failed };
  }
}
