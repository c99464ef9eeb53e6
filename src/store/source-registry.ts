// The sources a namespace keeps itself current from (a page, a crawl root, a sitemap, a git repository), what each
// refresh found, and the per-page state that makes the next refresh cost only what changed (validators, remembered
// links, blob ids). Kept with the namespace: a folder beside its documents, or tables in cluster mode.
import type { NamespaceName } from './namespace-name.js';

export type SourceKind = 'page' | 'crawl' | 'sitemap' | 'git';

export interface CrawlBounds {
  readonly maxPages: number;
  readonly maxDepth: number;
  /** Pages of the crawled folder that a complete refresh no longer finds are removed. */
  readonly prune: boolean;
}

export interface GitSettings {
  readonly branch: string;
  /** The folder inside the repository whose files are ingested ('' for the whole repository). */
  readonly folder: string;
  /** Glob patterns of the files ingested, relative to the repository root. */
  readonly patterns: readonly string[];
  /** How a file is cited: `{path}`, `{branch}` and `{commit}` are filled in; GitHub's and GitLab's forms when absent. */
  readonly linkTemplate?: string;
}

/** What a source is, as its owner set it. */
export interface SourceDefinition {
  readonly kind: SourceKind;
  readonly url: string;
  /** With `crawl`. */
  readonly crawl?: CrawlBounds;
  /** With `git`. */
  readonly git?: GitSettings;
  /** Seconds between scheduled refreshes (60 or more), or null: refreshed only when asked or by a webhook. */
  readonly everySeconds: number | null;
  /** The key webhooks are signed with; never returned by the API nor logged. */
  readonly webhookSecret?: string;
}

/** Why a refresh ran. */
export type RefreshTrigger = 'added' | 'schedule' | 'manual' | 'webhook';

export interface RefreshFailure {
  readonly url: string;
  readonly code: string;
  readonly message: string;
}

/** What one refresh did; `failed` lists what could not be checked (those pages are kept as they were). */
export interface RefreshSummary {
  readonly trigger: RefreshTrigger;
  readonly startedAt: string;
  readonly finishedAt: string;
  /** Pages or files looked at (a sitemap's unchanged `lastmod` counts without a request). */
  readonly checked: number;
  readonly unchanged: number;
  readonly updated: number;
  readonly added: number;
  readonly removed: number;
  readonly failed: readonly RefreshFailure[];
}

export interface RegisteredSource extends SourceDefinition {
  /** Derived from the URL: one source per URL in a namespace. */
  readonly id: string;
  readonly namespace: NamespaceName;
  readonly createdAt: string;
  readonly lastRefresh: RefreshSummary | null;
  /** ISO time of the next scheduled refresh; null without a schedule. */
  readonly nextRunAt: string | null;
}

/** Whether a source's scheduled refresh is due at `now` (ms). */
export function isDue(source: RegisteredSource, now: number): boolean {
  return source.nextRunAt !== null && Date.parse(source.nextRunAt) <= now;
}

/** What a refresh remembers of one page for the next. */
export interface PageState {
  /** The URL its document is stored under (the page's after redirects). */
  readonly origin: string;
  readonly etag?: string;
  readonly lastModified?: string;
  /** The sitemap's `lastmod` when the page was last fetched. */
  readonly lastmod?: string;
  /** In-scope links the page had (crawl sources), queued again when it answers 304. */
  readonly links?: readonly string[];
  /** Refreshes in a row that found the page gone (404 or 410); removed at 2. */
  readonly goneCount: number;
  /** When its content was last confirmed current (fetched, a 304, or an unchanged `lastmod`). */
  readonly checkedAt: string;
}

export interface GitFileState {
  readonly blob: string;
  /** The URL its document is stored under (the link template's). */
  readonly origin: string;
}

export interface SourceState {
  /** By the URL the refresh asks for. */
  readonly pages: Readonly<Record<string, PageState>>;
  readonly git?: { readonly commit: string; readonly checkedAt: string; readonly files: Readonly<Record<string, GitFileState>> };
}

export const emptySourceState: SourceState = { pages: {} };

export interface SourceRegistry {
  /** The namespace's sources, oldest first. */
  list(namespace: string): Promise<RegisteredSource[]>;
  /** Adds or replaces a source (by namespace and id). */
  save(source: RegisteredSource): Promise<void>;
  /** Removes a source and its state; false when there was none. */
  remove(namespace: string, id: string): Promise<boolean>;
  readState(namespace: string, id: string): Promise<SourceState>;
  writeState(namespace: string, id: string, state: SourceState): Promise<void>;
  /**
   * Takes the right to refresh the source for `leaseMs` (renewed by taking it again). False while another owner holds
   * it: a refresh never runs twice at once, on one replica or on two.
   */
  acquire(namespace: string, id: string, owner: string, leaseMs: number): Promise<boolean>;
  release(namespace: string, id: string, owner: string): Promise<void>;
  /** Takes, as `acquire` does, up to `limit` sources of any namespace whose next run is due at `now` and free. */
  claimDue(now: Date, owner: string, leaseMs: number, limit: number): Promise<RegisteredSource[]>;
}
