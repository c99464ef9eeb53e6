// A namespace's index files: index.json (the whole index, rewritten now and then), the journal (every commit since),
// and the snapshot, a binary cache of index.json that opens a large namespace quickly. Commits append to the journal;
// once it has grown long enough, and at a clean shutdown, it is folded into a new index.json and snapshot.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { indexJsonFileName, readIndexJson, readIndexJsonHead, sameStamp, writeIndexJson, type IndexJsonStamp } from './index-json.js';
import { appendRecord, encodeRecord, readJournal, recordSlices, truncateJournal, type JournalContents } from './index-journal.js';
import type { IndexOp } from '../index-ops.js';
import { readSnapshot, type WrittenSnapshot, writeSnapshot } from '../index-snapshot.js';
import { readLegacyIndexJson } from './legacy-index-json.js';
import { type LiveSnapshot, NamespaceIndex } from '../namespace-index.js';
import { describeFileError } from '../storage-full.js';

export { indexJsonFileName };
export const snapshotFileName = 'index.snapshot';
export const journalFileName = 'index.journal';

/**
 * The journal is folded into a new index.json once it is a quarter of index.json's size, so rewriting costs O(1) per
 * byte committed, amortized, and at least this much (small namespaces stay compact). There is no fixed ceiling: one
 * (64 MB) had every further 64 MB of commits rewrite the whole namespace, which made a large ingest quadratic (at
 * 300,000 chunks, gigabytes written per 24,000 chunks). Start-up after a crash replays at most a quarter of the
 * namespace; a clean shutdown folds in any journal.
 */
const minJournalBytes = 256 << 10;

/** Which file the index was restored from, before the journal was replayed over it. */
export type IndexSource = 'snapshot' | 'index.json' | 'legacy index.json' | 'nothing';

export interface StoredIndex {
  readonly index: NamespaceIndex;
  readonly source: IndexSource;
  /** The current index.json, when it is readable; the snapshot mirrors it when `source` is the snapshot. */
  readonly stamp: IndexJsonStamp | undefined;
  /** Index files that could not be read, with the reason; each was left out. */
  readonly damaged: readonly { readonly file: string; readonly error: Error }[];
  readonly journal: JournalContents;
}

/**
 * Reads a namespace's index files without changing them (also how tests inspect what is on disk). The index comes from
 * the first of these that reads: the snapshot when it mirrors the current index.json; index.json itself; when there is
 * no readable current index.json, any snapshot (a namespace of the version that kept no index.json, or a damaged
 * index.json: the journal and the Markdown files fill in what that snapshot lacks); an index.json of format 1. The
 * journal is replayed over it. With `inFile`, a snapshot's vector rows and chunks' texts stay in its file (see
 * readSnapshot), for the namespace to read on demand; otherwise the index holds no file open.
 */
export async function readIndexFiles(directory: string, { inFile = false }: { inFile?: boolean } = {}): Promise<StoredIndex> {
  const damaged: { file: string; error: Error }[] = [];
  const attempt = async <T>(file: string, read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (error) {
      damaged.push({ file, error: error instanceof Error ? error : new Error(String(error)) });
      return undefined;
    }
  };
  const jsonPath = join(directory, indexJsonFileName);
  const snapshotPath = join(directory, snapshotFileName);
  const fromSnapshot = (wanted?: (derivedFrom: IndexJsonStamp | null) => boolean) =>
    attempt(snapshotFileName, async () => {
      const snapshot = await readSnapshot(snapshotPath, { wanted, inFile });
      return snapshot === undefined ? undefined : NamespaceIndex.fromSnapshot(snapshot);
    });

  const head = await attempt(indexJsonFileName, () => readIndexJsonHead(jsonPath));
  let restored: { index: NamespaceIndex; source: IndexSource; stamp?: IndexJsonStamp } | undefined;
  if (head?.format === 'current') {
    const mirror = await fromSnapshot((derivedFrom) => sameStamp(derivedFrom, head.stamp));
    if (mirror !== undefined) restored = { index: mirror, source: 'snapshot', stamp: head.stamp };
    else {
      const json = await attempt(indexJsonFileName, () => readIndexJson(jsonPath));
      if (json !== undefined) restored = { index: NamespaceIndex.fromContents(json.contents), source: 'index.json', stamp: json.stamp };
    }
  }
  if (restored === undefined && !damaged.some(({ file }) => file === snapshotFileName)) {
    const snapshot = await fromSnapshot();
    if (snapshot !== undefined) restored = { index: snapshot, source: 'snapshot' };
  }
  if (restored === undefined && head?.format === 'legacy') {
    const legacy = await attempt(indexJsonFileName, () => readLegacyIndexJson(jsonPath));
    if (legacy !== undefined) restored = { index: NamespaceIndex.fromContents(legacy), source: 'legacy index.json' };
  }
  const index = restored?.index ?? NamespaceIndex.empty();
  const journal = await readJournal(join(directory, journalFileName));
  for (const record of journal.records) for (const op of record) index.apply(op);
  return { index, source: restored?.source ?? 'nothing', stamp: restored?.stamp, damaged, journal };
}

export class IndexFiles {
  private journalBytes = 0;
  private indexJsonBytes = 0;
  /** Whether index.json is current (the journal holds every commit since) and the snapshot mirrors it. */
  private upToDate = true;

  constructor(
    private readonly directory: string,
    private readonly describe: string,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * The index as the files left it, with damage reported: a damaged file is left out (another one, or the Markdown
   * files, fill in what it held) and a journal cut short by a crash is cut back to its intact records. `rewrite` asks
   * for a fresh index.json and snapshot once the caller has reconciled the index with the folder.
   */
  async restore(): Promise<{ index: NamespaceIndex; rewrite: boolean }> {
    const stored = await readIndexFiles(this.directory, { inFile: true });
    this.indexJsonBytes = stored.stamp?.bytes ?? 0;
    this.journalBytes = stored.journal.intactBytes;
    for (const { file, error } of stored.damaged) {
      this.warn(`${this.describe}: ${file} is unreadable (${error.message.split('\n')[0]}); ${recoveryFrom(stored)}`);
    }
    const { intactBytes, totalBytes } = stored.journal;
    if (intactBytes < totalBytes) {
      this.warn(
        `${this.describe}: the last ${totalBytes - intactBytes} bytes of ${journalFileName} were cut short (by a crash, or a failed write that could not be cut back) and are dropped; the Markdown files fill in what they held`,
      );
      await truncateJournal(join(this.directory, journalFileName), intactBytes);
    }
    // Anything but a current index.json mirrored by the snapshot (an older layout, a damaged or stale file, a journal
    // with neither file yet) is rewritten at once, so the next start-up is fast and index.json alone is complete.
    const untouched = stored.source === 'nothing' && stored.damaged.length === 0 && this.journalBytes === 0;
    this.upToDate = untouched || (stored.source === 'snapshot' && stored.stamp !== undefined);
    return { index: stored.index, rewrite: !this.upToDate };
  }

  /** Makes the ops durable: once this resolves, a crash and restart replays them. */
  async append(ops: readonly IndexOp[]): Promise<void> {
    if (ops.length === 0) return;
    const record = encodeRecord(ops);
    this.journalBytes = await appendRecord(join(this.directory, journalFileName), record, this.journalBytes);
  }

  /**
   * Makes ops that need not be replayed together durable, in records of bounded size: what a start-up finds changed in
   * the folder. A folder copied without its files' times restates every document, which at a million chunks is more
   * than one record's JSON can hold.
   */
  async appendInRecords(ops: readonly IndexOp[]): Promise<void> {
    for (const slice of recordSlices(ops)) await this.append(slice);
  }

  /**
   * Removes the journal when it holds nothing: a first append that failed (a full disk) leaves the empty file it
   * created, which would keep the folder of a namespace that was never committed.
   */
  async removeEmptyJournal(): Promise<void> {
    if (this.journalBytes === 0) await rm(join(this.directory, journalFileName), { force: true });
  }

  /** Folds the journal into a new index.json when it has grown long enough; a failure only leaves the journal longer. */
  async compactIfDue(index: NamespaceIndex): Promise<void> {
    if (this.journalBytes >= Math.max(minJournalBytes, this.indexJsonBytes / 4)) await this.compact(index);
  }

  /**
   * Writes index.json when the namespace has none yet: the contract has it exist as soon as a namespace holds a
   * document, for tools that read the folder right after an ingest, so the first commit writes it before it is
   * acknowledged (it is small then).
   */
  async writeFirstIndexJson(index: NamespaceIndex): Promise<void> {
    if (this.indexJsonBytes === 0) await this.compact(index);
  }

  /** At a clean shutdown: folds any journal into index.json and brings the snapshot up to date, so index.json alone is complete. */
  async foldJournal(index: NamespaceIndex): Promise<void> {
    if (this.journalBytes > 0 || !this.upToDate) await this.compact(index);
  }

  /**
   * Writes `index` (which must not change meanwhile: callers hold the namespace's write queue) as a new index.json,
   * empties the journal, then writes the snapshot that mirrors it. A failure (a full disk, say) is only warned about:
   * the journal keeps every change index.json could not take, and a snapshot that could not be written is written
   * at the next compaction (or rebuilt from index.json at the next start-up).
   */
  async compact(index: NamespaceIndex): Promise<void> {
    let stamp: IndexJsonStamp;
    try {
      stamp = await writeIndexJson(join(this.directory, indexJsonFileName), index.toIndexJsonSource());
    } catch (error) {
      this.warn(`${this.describe}: writing ${indexJsonFileName} failed (${describeFileError(error)}); the journal keeps every change`);
      return;
    }
    this.indexJsonBytes = stamp.bytes;
    this.upToDate = false;
    try {
      // Replaying a journal already in index.json is harmless (every op sets state), so a crash before this loses nothing.
      await truncateJournal(join(this.directory, journalFileName), 0);
      this.journalBytes = 0;
      const snapshotPath = join(this.directory, snapshotFileName);
      const snapshot = index.toSnapshot();
      const written = await writeSnapshot(snapshotPath, { ...snapshot, derivedFrom: stamp });
      this.upToDate = true;
      this.readFromSnapshot(index, snapshotPath, written, snapshot);
    } catch (error) {
      this.warn(
        `${this.describe}: after writing ${indexJsonFileName}, emptying the journal or writing ${snapshotFileName} failed (${describeFileError(error)}); ${indexJsonFileName} and the journal hold every change`,
      );
    }
  }

  /**
   * Lets the index read its texts and vector rows from the snapshot just written; when that file cannot be opened they
   * stay in memory.
   */
  private readFromSnapshot(index: NamespaceIndex, path: string, written: WrittenSnapshot, snapshot: LiveSnapshot): void {
    try {
      index.readFromSnapshot(path, written, snapshot);
    } catch (error) {
      this.warn(
        `${this.describe}: opening ${snapshotFileName} to read texts and vectors from failed (${describeFileError(error)}); they stay in memory`,
      );
    }
  }
}

/** How the index was restored in spite of a damaged file. */
function recoveryFrom({ source, stamp }: StoredIndex): string {
  if (source === 'nothing') return 'rebuilding the index from the Markdown files';
  const file =
    source === 'legacy index.json'
      ? `the ${indexJsonFileName} of an earlier version`
      : source === 'snapshot'
        ? snapshotFileName
        : indexJsonFileName;
  // Without a current index.json, the journal may lack what the newest one held.
  return `the index is restored from ${file}${stamp === undefined ? ', the Markdown files filling in what it lacks' : ''}`;
}
