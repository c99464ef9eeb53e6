// The question log of each namespace: what was asked, how it was answered, and the feedback given on the answer.
// Append-only; kept with the namespace (a folder of daily JSON Lines files, or a table in cluster mode) and removed
// with it. What a record holds beyond counts depends on KNOWLEDGE_AGENT_QUESTION_LOG (see insights/).
export interface RetrievedPage {
  readonly file: string;
  readonly title: string;
  /** Where the document came from (its URL or path), as `knowledge-agent eval` matches pages. */
  readonly origin: string;
  readonly score: number;
}

export interface AskedQuestion {
  readonly kind: 'question';
  readonly runId: string;
  /** ISO 8601, UTC. */
  readonly at: string;
  /** The answer channel: variant1, ag-ui, generate, mastra, openai, mcp. */
  readonly channel: string;
  /** The newest user message, without the mention; absent when only counts are kept. */
  readonly question?: string;
  /** The query searched: the question, or a follow-up rewritten to stand alone; absent when only counts are kept. */
  readonly query?: string;
  /** The pages retrieved, best first; absent when only counts are kept. */
  readonly pages?: readonly RetrievedPage[];
  readonly pageCount: number;
  /** Characters of the answer, its Sources line included. */
  readonly answerLength: number;
  /** False when the answer said the docs do not cover the question. */
  readonly covered: boolean;
  /** The labels the answer cited (titles or file names); absent when only counts are kept. */
  readonly sources?: readonly string[];
  /** Milliseconds from the request to the answer's end. */
  readonly latencyMs: number;
}

export interface AnswerFeedback {
  readonly kind: 'feedback';
  readonly runId: string;
  readonly at: string;
  readonly rating: 'up' | 'down';
  /** Absent when none was given or only counts are kept. */
  readonly comment?: string;
}

export type QuestionLogRecord = AskedQuestion | AnswerFeedback;

export interface QuestionLog {
  /** Appends records to the namespace's log; false when the namespace does not exist (any more): nothing was kept. */
  append(namespace: string, records: readonly QuestionLogRecord[]): Promise<boolean>;
  /** The namespace's records since `since`, oldest first. */
  read(namespace: string, since: Date, signal?: AbortSignal): Promise<QuestionLogRecord[]>;
  /** The namespace a run's question was recorded in (the newest, should two share a run id), or undefined. */
  namespaceOfRun(runId: string): Promise<string | undefined>;
  /** Removes the records older than `before`, in every namespace. */
  prune(before: Date): Promise<void>;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const optional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value);
const arrayOf = (check: (value: unknown) => boolean) => (value: unknown) => Array.isArray(value) && value.every(check);
const isPage = (value: unknown) => {
  const page = value as Record<string, unknown> | null;
  return (
    typeof page === 'object' &&
    page !== null &&
    isString(page.file) &&
    isString(page.title) &&
    isString(page.origin) &&
    isNumber(page.score)
  );
};

/**
 * A stored line or row as a record, or undefined when it is not one (a torn write, an edit by hand): skipped, not
 * fatal. Checked field by field rather than with a zod schema: a report reads 100,000 of them.
 */
export function parseQuestionLogRecord(value: unknown): QuestionLogRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (!isString(record.runId) || !isString(record.at)) return undefined;
  if (record.kind === 'feedback')
    return (record.rating === 'up' || record.rating === 'down') && optional(record.comment, isString)
      ? (value as AnswerFeedback)
      : undefined;
  const valid =
    record.kind === 'question' &&
    isString(record.channel) &&
    typeof record.covered === 'boolean' &&
    isNumber(record.pageCount) &&
    isNumber(record.answerLength) &&
    isNumber(record.latencyMs) &&
    optional(record.question, isString) &&
    optional(record.query, isString) &&
    optional(record.pages, arrayOf(isPage)) &&
    optional(record.sources, arrayOf(isString));
  return valid ? (value as AskedQuestion) : undefined;
}
