// A namespace's index files: the snapshot (the whole index, written now and then) and the journal (every commit since).
// Commits append to the journal; once it has grown long enough it is folded into a new snapshot.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { appendRecord, encodeRecord, readJournal, truncateJournal, type JournalContents } from './index-journal.js';
import type { IndexOp } from './index-ops.js';
import { readSnapshot, writeSnapshot } from './index-snapshot.js';
import { NamespaceIndex } from './namespace-index.js';
import { describeFileError } from './storage-full.js';

export const snapshotFileName = 'index.snapshot';
export const journalFileName = 'index.journal';

/**
 * The journal is folded into a new snapshot once it is a quarter of the snapshot's size (so rewriting the snapshot
 * costs O(1) per byte committed, amortized), at least this much (small namespaces stay compact) and at most 64 MB
 * (what start-up replays after a crash; a clean shutdown folds in any journal of more than the minimum).
 */
const minJournalBytes = 256 << 10;
const maxJournalBytes = 64 << 20;

export interface StoredIndex {
  /** The snapshot with the journal replayed over it (the snapshot left out when it is damaged). */
  readonly index: NamespaceIndex;
  readonly snapshotBytes: number;
  readonly snapshotError?: Error;
  readonly journal: JournalContents;
}

/** Reads a namespace's index files without changing them (also how tests inspect what is on disk). */
export async function readIndexFiles(directory: string): Promise<StoredIndex> {
  const snapshotPath = join(directory, snapshotFileName);
  let index = NamespaceIndex.empty();
  let snapshotBytes = 0;
  let snapshotError: Error | undefined;
  try {
    const snapshot = await readSnapshot(snapshotPath);
    if (snapshot !== undefined) {
      index = NamespaceIndex.fromSnapshot(snapshot);
      snapshotBytes = (await stat(snapshotPath)).size;
    }
  } catch (error) {
    snapshotError = error instanceof Error ? error : new Error(String(error));
  }
  const journal = await readJournal(join(directory, journalFileName));
  for (const record of journal.records) for (const op of record) index.apply(op);
  return { index, snapshotBytes, journal, ...(snapshotError === undefined ? {} : { snapshotError }) };
}

export class IndexFiles {
  private journalBytes = 0;
  private snapshotBytes = 0;

  constructor(
    private readonly directory: string,
    private readonly describe: string,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * The index as the files left it, with damage reported: a damaged snapshot is left out and a journal cut short by
   * a crash is cut back to its intact records (the Markdown files fill in what they held). `rewrite` asks for a
   * fresh snapshot once the caller has reconciled the index with the folder.
   */
  async restore(): Promise<{ index: NamespaceIndex; rewrite: boolean }> {
    const stored = await readIndexFiles(this.directory);
    this.snapshotBytes = stored.snapshotBytes;
    this.journalBytes = stored.journal.intactBytes;
    if (stored.snapshotError !== undefined) {
      this.warn(`${this.describe}: ${snapshotFileName} is unreadable (${stored.snapshotError.message.split('\n')[0]}); rebuilding the index from the Markdown files`);
    }
    const { intactBytes, totalBytes } = stored.journal;
    if (intactBytes < totalBytes) {
      this.warn(`${this.describe}: the last ${totalBytes - intactBytes} bytes of ${journalFileName} were cut short (by a crash, or a failed write that could not be cut back) and are dropped; the Markdown files fill in what they held`);
      await truncateJournal(join(this.directory, journalFileName), intactBytes);
    }
    // A journal with no snapshot yet is folded in too, so start-up replays little and each file can be checked alone.
    return { index: stored.index, rewrite: stored.snapshotError !== undefined || (this.snapshotBytes === 0 && this.journalBytes > 0) };
  }

  /** Makes the ops durable: once this resolves, a crash and restart replays them. */
  async append(ops: readonly IndexOp[]): Promise<void> {
    if (ops.length === 0) return;
    const record = encodeRecord(ops);
    this.journalBytes = await appendRecord(join(this.directory, journalFileName), record, this.journalBytes);
  }

  /** Folds the journal into a new snapshot when it has grown long enough; a failure only leaves the journal longer. */
  async compactIfDue(index: NamespaceIndex): Promise<void> {
    if (this.journalBytes >= Math.max(minJournalBytes, Math.min(maxJournalBytes, this.snapshotBytes / 4))) await this.compact(index);
  }

  /**
   * At shutdown: folds a journal worth replaying into the snapshot, so the next start-up does not replay it. A short
   * one is left (replaying it costs less than rewriting the snapshot, whose compaction briefly doubles the lexical
   * arrays in memory).
   */
  async foldJournal(index: NamespaceIndex): Promise<void> {
    if (this.journalBytes >= minJournalBytes) await this.compact(index);
  }

  /** Writes a new snapshot, or warns when it cannot (a full disk, say): the journal still holds every change. */
  async compact(index: NamespaceIndex): Promise<void> {
    try {
      await this.writeSnapshot(index);
    } catch (error) {
      this.warn(`${this.describe}: writing the index snapshot failed (${describeFileError(error)}); the journal keeps every change`);
    }
  }

  /** Writes `index` (which must not change meanwhile: callers hold the namespace's write queue) as the snapshot. */
  async writeSnapshot(index: NamespaceIndex): Promise<void> {
    const path = join(this.directory, snapshotFileName);
    await writeSnapshot(path, index.toSnapshot());
    // Replaying a journal already in the snapshot is harmless (every op sets state), so a crash here loses nothing.
    await truncateJournal(join(this.directory, journalFileName), 0);
    this.snapshotBytes = (await stat(path)).size;
    this.journalBytes = 0;
  }
}
