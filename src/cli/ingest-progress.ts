// What `ingest` prints, as pure functions: the progress bar's line (files, chunks, rate, ETA), one plain line per
// source, and the closing summary. The terminal drawing itself is in ingest-reporter.ts.

/** `removed`: a page a crawl with `--prune` no longer found, whose document the service removed. */
export type SourceStatus = 'saved' | 'updated' | 'skipped' | 'failed' | 'removed';

export interface SourceOutcome {
  /** The path or URL as the user gave it (relative to the working directory). */
  readonly label: string;
  readonly status: SourceStatus;
  /** Chunks of the stored document; unknown when the service did not say. */
  readonly chunks?: number;
  /** Why it was skipped or failed. */
  readonly reason?: string;
  /** With `updated`: the stored document it replaced (its file name in the namespace), and when that was stored. */
  readonly replaced?: { readonly file: string; readonly ingestedAt: string };
  /** Stored, but without embeddings while the provider is down: always shown. */
  readonly warning?: string;
}

export interface ProgressState {
  readonly filesDone: number;
  /** Files decided before the clock started (refused locally): done, but not part of the pace. */
  readonly filesDoneAtStart: number;
  readonly filesTotal: number;
  /** Chunks written (saved and updated documents). */
  readonly chunks: number;
  readonly elapsedMs: number;
}

export type StatusCounts = Record<SourceStatus, number>;

/** Items per second so far; undefined before anything is done or any time has passed. */
export function ratePerSecond(count: number, elapsedMs: number): number | undefined {
  if (count <= 0 || elapsedMs <= 0) return undefined;
  return count / (elapsedMs / 1000);
}

/** Time left at the average pace so far (`doneAtStart` items took no time); undefined until one item is done, 0 once all are. */
export function estimateRemainingMs(done: number, total: number, elapsedMs: number, doneAtStart = 0): number | undefined {
  if (done >= total) return 0;
  const paced = done - doneAtStart;
  if (paced <= 0 || elapsedMs <= 0) return undefined;
  return ((total - done) * elapsedMs) / paced;
}

/** `0s`, `45s`, `2m05s`, `1h02m`: rounded up, so a last fraction of a second still shows as 1s. */
export function formatDuration(milliseconds: number): string {
  const seconds = Math.max(0, Math.ceil(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** `3.2 files/s`, `14 files/s`, `-- files/s` while unknown. */
export function formatRate(perSecond: number | undefined, unit: string): string {
  if (perSecond === undefined) return `-- ${unit}/s`;
  return `${perSecond >= 10 ? Math.round(perSecond) : perSecond.toFixed(1)} ${unit}/s`;
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** `[#####---------] ` scaled to `width` cells; empty when there is no room. */
export function formatBar(done: number, total: number, width: number): string {
  if (width < 5) return '';
  const filled = total <= 0 ? width : Math.min(width, Math.floor((done / total) * width));
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] `;
}

/** The bar's whole line, fitted to `columns`: the bar shrinks (or goes) before any number does. */
export function progressLine(state: ProgressState, columns: number): string {
  const rate = formatRate(ratePerSecond(state.filesDone - state.filesDoneAtStart, state.elapsedMs), 'files');
  const remaining = estimateRemainingMs(state.filesDone, state.filesTotal, state.elapsedMs, state.filesDoneAtStart);
  const text = `${state.filesDone}/${state.filesTotal} files | ${plural(state.chunks, 'chunk')} | ${rate} | ETA ${remaining === undefined ? '--' : formatDuration(remaining)}`;
  const barWidth = Math.min(30, columns - text.length - 3);
  return `${formatBar(state.filesDone, state.filesTotal, barWidth)}${text}`;
}

/** `2026-11-23 18:04 UTC` from an ISO 8601 time; the text as it is when it is not one. */
function formatStoredAt(isoTime: string): string {
  const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)/.exec(isoTime);
  return match === null ? isoTime : `${match[1]} ${match[2]} UTC`;
}

/**
 * `saved  docs/a.md  12 chunks`, `skipped  docs/b.md  unchanged`, `failed  docs/c.pdf  <reason>`, and for an update
 * `updated  docs/a.md  12 chunks, replaced a.md of 2026-11-23 18:04 UTC`: a replacement is always named.
 */
export function outcomeLine(outcome: SourceOutcome): string {
  const replaced =
    outcome.replaced === undefined ? undefined : `replaced ${outcome.replaced.file} of ${formatStoredAt(outcome.replaced.ingestedAt)}`;
  const detail =
    outcome.reason !== undefined
      ? outcome.reason
      : outcome.status === 'skipped'
        ? 'unchanged'
        : [outcome.chunks === undefined ? undefined : plural(outcome.chunks, 'chunk'), replaced, outcome.warning]
            .filter((part) => part !== undefined)
            .join(', ');
  return detail === '' ? `${outcome.status}  ${outcome.label}` : `${outcome.status}  ${outcome.label}  ${detail}`;
}

/** File names listed in full in the summary's replacement line; more are counted. */
const maxReplacedNamed = 10;

/** `replaced 2 stored documents: a.md, b.md`, or undefined when nothing was replaced. */
export function replacedLine(files: readonly string[]): string | undefined {
  if (files.length === 0) return undefined;
  const named = files.slice(0, maxReplacedNamed).join(', ');
  const more = files.length > maxReplacedNamed ? ` and ${files.length - maxReplacedNamed} more` : '';
  return `replaced ${plural(files.length, 'stored document')}: ${named}${more}`;
}

/** `saved N, updated N, skipped N, failed N`, then `, removed N` when a pruning crawl removed documents. */
export function summaryLine(counts: StatusCounts): string {
  const removed = counts.removed > 0 ? `, removed ${counts.removed}` : '';
  return `saved ${counts.saved}, updated ${counts.updated}, skipped ${counts.skipped}, failed ${counts.failed}${removed}`;
}
