// The question log in the folder layout: `<namespace>/.questions/<YYYY-MM-DD>.jsonl`, one JSON record a line, a file
// per UTC day so that retention removes whole files. The dot keeps the folder out of the namespace's documents.
import { appendFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseQuestionLogRecord, type QuestionLog, type QuestionLogRecord } from '../question-log.js';

/** The folder of a namespace's question log, inside the namespace's folder. */
export const questionLogFolder = '.questions';
const dayFilePattern = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;

/** The UTC day of an ISO time or date, as the log's file names write it. */
function dayOf(time: string | Date): string {
  return (typeof time === 'string' ? time : time.toISOString()).slice(0, 10);
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

export class FolderQuestionLog implements QuestionLog {
  constructor(
    /** Absolute storage root. */
    private readonly root: string,
    /** The namespace folders under the root (the layout's listing). */
    private readonly namespaceNames: () => Promise<string[]>,
  ) {}

  async append(namespace: string, records: readonly QuestionLogRecord[]): Promise<boolean> {
    const folder = join(this.root, namespace, questionLogFolder);
    const byDay = new Map<string, string[]>();
    for (const record of records) {
      const lines = byDay.get(dayOf(record.at)) ?? [];
      lines.push(`${JSON.stringify(record)}\n`);
      byDay.set(dayOf(record.at), lines);
    }
    try {
      // Not recursive: a namespace whose folder is gone is not brought back by its log.
      await mkdir(folder).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      });
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    for (const [day, lines] of byDay) await appendFile(join(folder, `${day}.jsonl`), lines.join(''));
    return true;
  }

  async read(namespace: string, since: Date, signal?: AbortSignal): Promise<QuestionLogRecord[]> {
    const sinceText = since.toISOString();
    const records: QuestionLogRecord[] = [];
    for (const file of await this.dayFiles(namespace, dayOf(since))) {
      signal?.throwIfAborted();
      for (const line of (await readFile(file, 'utf8')).split('\n')) {
        if (line === '') continue;
        const record = parseLine(line);
        if (record !== undefined && record.at >= sinceText) records.push(record);
      }
    }
    return records;
  }

  async namespaceOfRun(runId: string): Promise<string | undefined> {
    // Feedback is rare: a scan of the logs for the run id's JSON string is enough, and needs no index to keep.
    const needle = `"runId":${JSON.stringify(runId)}`;
    let found: { namespace: string; at: string } | undefined;
    for (const namespace of await this.namespaceNames()) {
      for (const file of await this.dayFiles(namespace, '')) {
        for (const line of (await readFile(file, 'utf8')).split('\n')) {
          if (!line.includes(needle)) continue;
          const record = parseLine(line);
          if (record?.kind === 'question' && record.runId === runId && (found === undefined || record.at > found.at))
            found = { namespace, at: record.at };
        }
      }
    }
    return found?.namespace;
  }

  async prune(before: Date): Promise<void> {
    // A day's file goes once all of that day is older than `before`; reads leave out the older records of the rest.
    const firstKept = dayOf(before);
    for (const namespace of await this.namespaceNames()) {
      const folder = join(this.root, namespace, questionLogFolder);
      for (const name of await listFolder(folder)) {
        const day = dayFilePattern.exec(name)?.[1];
        if (day !== undefined && day < firstKept) await rm(join(folder, name), { force: true });
      }
    }
  }

  /** The namespace's day files from `firstDay` on, oldest first. */
  private async dayFiles(namespace: string, firstDay: string): Promise<string[]> {
    const folder = join(this.root, namespace, questionLogFolder);
    return (await listFolder(folder))
      .filter((name) => {
        const day = dayFilePattern.exec(name)?.[1];
        return day !== undefined && day >= firstDay;
      })
      .sort()
      .map((name) => join(folder, name));
  }
}

async function listFolder(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

function parseLine(line: string): QuestionLogRecord | undefined {
  try {
    return parseQuestionLogRecord(JSON.parse(line));
  } catch {
    return undefined;
  }
}
