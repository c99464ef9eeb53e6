// Loads an IR test set in the BEIR layout: corpus.jsonl, queries.jsonl and qrels.tsv in one folder.
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { RelevanceJudgments } from '../src/search/metrics.js';

export interface BeirDocument {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

export interface BeirQuery {
  readonly id: string;
  readonly text: string;
}

export interface BeirSet {
  readonly name: string;
  readonly directory: string;
  readonly documents: readonly BeirDocument[];
  /** Only the queries that have judgments. */
  readonly queries: readonly BeirQuery[];
  readonly judgments: ReadonlyMap<string, RelevanceJudgments>;
  /** What a chunk is judged as, when not its document (a section of a manual judged per section). */
  readonly unitOf?: (documentId: string, headingPath: readonly string[]) => string;
}

function nonEmptyLines(directory: string, file: string): string[] {
  return readFileSync(join(directory, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

export function loadBeirSet(directory: string): BeirSet {
  const root = resolve(directory);
  const documents = nonEmptyLines(root, 'corpus.jsonl').map((line) => {
    const record = JSON.parse(line) as { _id: string | number; title?: string; text?: string };
    return { id: String(record._id), title: record.title ?? '', text: record.text ?? '' };
  });
  const judgments = new Map<string, Map<string, number>>();
  for (const line of nonEmptyLines(root, 'qrels.tsv')) {
    const [queryId, documentId, grade] = line.split('\t').map((field) => field.trim());
    // The header line ("query-id corpus-id score") has no numeric grade.
    if (queryId === undefined || documentId === undefined || !/^-?\d+$/.test(grade ?? '')) continue;
    const judged = judgments.get(queryId) ?? new Map<string, number>();
    judged.set(documentId, Number(grade));
    judgments.set(queryId, judged);
  }
  const queries = nonEmptyLines(root, 'queries.jsonl')
    .map((line) => {
      const record = JSON.parse(line) as { _id: string | number; text: string };
      return { id: String(record._id), text: record.text };
    })
    .filter((query) => judgments.has(query.id));
  return { name: basename(root), directory: root, documents, queries, judgments };
}
