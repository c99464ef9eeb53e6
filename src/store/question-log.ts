// The question log of each namespace: what was asked, how it was answered, and the feedback given on the answer.
// Append-only; kept with the namespace (a folder of daily JSON Lines files, or a table in cluster mode) and removed
// with it. What a record holds beyond counts depends on KNOWLEDGE_AGENT_QUESTION_LOG (see insights/).
import { z } from 'zod';

const retrievedPageSchema = z.object({
  file: z.string(),
  title: z.string(),
  /** Where the document came from (its URL or path), as `knowledge-agent eval` matches pages. */
  origin: z.string(),
  score: z.number(),
});

export const askedQuestionSchema = z.object({
  kind: z.literal('question'),
  runId: z.string(),
  /** ISO 8601, UTC. */
  at: z.string(),
  /** The answer channel: variant1, ag-ui, generate, mastra, openai. */
  channel: z.string(),
  /** The newest user message, without the mention; absent when only counts are kept. */
  question: z.string().optional(),
  /** The query searched: the question, or a follow-up rewritten to stand alone; absent when only counts are kept. */
  query: z.string().optional(),
  /** The pages retrieved, best first; absent when only counts are kept. */
  pages: z.array(retrievedPageSchema).optional(),
  pageCount: z.number(),
  /** Characters of the answer, its Sources line included. */
  answerLength: z.number(),
  /** False when the answer said the docs do not cover the question. */
  covered: z.boolean(),
  /** The labels the answer cited (titles or file names); absent when only counts are kept. */
  sources: z.array(z.string()).optional(),
  /** Milliseconds from the request to the answer's end. */
  latencyMs: z.number(),
});

export const answerFeedbackSchema = z.object({
  kind: z.literal('feedback'),
  runId: z.string(),
  at: z.string(),
  rating: z.enum(['up', 'down']),
  /** Absent when none was given or only counts are kept. */
  comment: z.string().optional(),
});

export const questionLogRecordSchema = z.discriminatedUnion('kind', [askedQuestionSchema, answerFeedbackSchema]);

export type AskedQuestion = z.infer<typeof askedQuestionSchema>;
export type AnswerFeedback = z.infer<typeof answerFeedbackSchema>;
export type QuestionLogRecord = z.infer<typeof questionLogRecordSchema>;

export interface QuestionLog {
  /** Appends records to the namespace's log; a namespace that does not exist (any more) keeps nothing. */
  append(namespace: string, records: readonly QuestionLogRecord[]): Promise<void>;
  /** The namespace's records since `since`, oldest first. */
  read(namespace: string, since: Date, signal?: AbortSignal): Promise<QuestionLogRecord[]>;
  /** The namespace a run's question was recorded in (the newest, should two share a run id), or undefined. */
  namespaceOfRun(runId: string): Promise<string | undefined>;
  /** Removes the records older than `before`, in every namespace. */
  prune(before: Date): Promise<void>;
}

/** A stored line or row that is not a record (a torn write, an edit by hand) is skipped, not fatal. */
export function parseQuestionLogRecord(value: unknown): QuestionLogRecord | undefined {
  const parsed = questionLogRecordSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
