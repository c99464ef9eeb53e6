// Keeps every answered question in its namespace's log, off the answer's path: a record is queued and written in the
// background, batched per namespace; a failed write is logged once (until a write succeeds again) and never reaches
// the answer. Also takes feedback on a run, and reads a namespace's records back within the retention.
import { KnowledgeError } from '../errors.js';
import type { AnswerFeedback, AskedQuestion, QuestionLog, QuestionLogRecord } from '../store/question-log.js';

/** `off`: nothing is kept; `counts`: when, how and how well, but no text (no question, pages, sources, comments); `full`: all. */
export type QuestionLogMode = 'off' | 'counts' | 'full';

export interface QuestionRecorderOptions {
  readonly log: QuestionLog;
  readonly mode: QuestionLogMode;
  /** Milliseconds a record is kept. */
  readonly retentionMs: number;
  readonly warn: (message: string) => void;
  readonly now?: () => Date;
}

/** Run ids answered lately, with their namespace: feedback right after an answer needs no scan of the logs. */
const recentRunsKept = 10_000;
/** How often records past the retention are removed, in milliseconds. */
const pruneIntervalMs = 3_600_000;

export class QuestionRecorder {
  private readonly pending = new Map<string, QuestionLogRecord[]>();
  private readonly recentRuns = new Map<string, string>();
  private writing: Promise<void> | undefined;
  private failing = false;
  private readonly pruneTimer: NodeJS.Timeout | undefined;
  private pruning: Promise<void> | undefined;

  constructor(private readonly options: QuestionRecorderOptions) {
    if (options.mode === 'off') return;
    this.pruneTimer = setInterval(() => void this.prune(), pruneIntervalMs);
    this.pruneTimer.unref();
    void this.prune();
  }

  get mode(): QuestionLogMode {
    return this.options.mode;
  }

  /** The oldest time a record is kept from. */
  get retentionStart(): Date {
    return new Date(this.now().getTime() - this.options.retentionMs);
  }

  /** Queues a question's record; returns at once and never throws. */
  record(namespace: string, question: AskedQuestion): void {
    if (this.options.mode === 'off') return;
    const kept: AskedQuestion =
      this.options.mode === 'full'
        ? question
        : {
            kind: 'question',
            runId: question.runId,
            at: question.at,
            channel: question.channel,
            pageCount: question.pageCount,
            answerLength: question.answerLength,
            covered: question.covered,
            latencyMs: question.latencyMs,
          };
    this.recentRuns.delete(question.runId);
    this.recentRuns.set(question.runId, namespace);
    if (this.recentRuns.size > recentRunsKept) this.recentRuns.delete(this.recentRuns.keys().next().value as string);
    this.queue(namespace, kept);
  }

  /**
   * Records feedback on a run's answer and returns the run's namespace. `authorize` is called with that namespace
   * before anything is written (it throws when the caller may not read it). 404 when no question of that run is kept.
   */
  async feedback(
    input: { readonly runId: string; readonly rating: AnswerFeedback['rating']; readonly comment?: string | undefined },
    authorize: (namespace: string) => void,
  ): Promise<string> {
    const namespace =
      this.options.mode === 'off' ? undefined : (this.recentRuns.get(input.runId) ?? (await this.options.log.namespaceOfRun(input.runId)));
    if (namespace === undefined)
      throw new KnowledgeError(
        'not_found',
        this.options.mode === 'off'
          ? 'no answer is known: the question log is off (KNOWLEDGE_AGENT_QUESTION_LOG=off), so feedback is not kept'
          : `no answer with the run id ${JSON.stringify(input.runId)}: give the run id an answer returned, within the question log's retention`,
      );
    authorize(namespace);
    const comment =
      this.options.mode === 'full' && input.comment !== undefined && input.comment.trim() !== '' ? input.comment.trim() : undefined;
    const record: AnswerFeedback = {
      kind: 'feedback',
      runId: input.runId,
      at: this.now().toISOString(),
      rating: input.rating,
      ...(comment === undefined ? {} : { comment }),
    };
    // The caller is told the feedback was kept, so this write is awaited (after the run's own pending record).
    await this.flush();
    if (!(await this.options.log.append(namespace, [record])))
      throw new KnowledgeError(
        'not_found',
        `the namespace ${JSON.stringify(namespace)} of the run ${JSON.stringify(input.runId)} no longer exists`,
      );
    return namespace;
  }

  /** The namespace's records since `since` (not before the retention's start), the ones still queued included. */
  async records(namespace: string, since: Date, signal?: AbortSignal): Promise<QuestionLogRecord[]> {
    await this.flush();
    const start = since > this.retentionStart ? since : this.retentionStart;
    return this.options.log.read(namespace, start, signal);
  }

  /** Waits until every queued record is written (or its write failed). */
  async flush(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  async close(): Promise<void> {
    clearInterval(this.pruneTimer);
    await this.pruning;
    await this.flush();
  }

  private queue(namespace: string, record: QuestionLogRecord): void {
    const batch = this.pending.get(namespace);
    if (batch === undefined) this.pending.set(namespace, [record]);
    else batch.push(record);
    // One write at a time; what arrives meanwhile goes in the next batch. setImmediate: after the answer is sent.
    this.writing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.writeBatches());
  }

  private async writeBatches(): Promise<void> {
    while (this.pending.size > 0) {
      const batches = [...this.pending];
      this.pending.clear();
      for (const [namespace, records] of batches) {
        try {
          await this.options.log.append(namespace, records);
          this.failing = false;
        } catch (error) {
          if (!this.failing)
            this.options.warn(`the question log could not be written (${(error as Error).message}); questions are not kept until it can`);
          this.failing = true;
        }
      }
    }
    this.writing = undefined;
  }

  private prune(): Promise<void> {
    this.pruning ??= this.options.log
      .prune(this.retentionStart)
      .catch((error: unknown) =>
        this.options.warn(`old questions could not be removed from the question log (${(error as Error).message}); retrying in an hour`),
      )
      .finally(() => {
        this.pruning = undefined;
      });
    return this.pruning;
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}
