// The one owner of embedding chunks: the text a chunk is embedded as, the chunks of a new document, and the chunks
// that have no vector yet (placed by hand, stored while the provider was down, or left without a vector by a change of
// model). Searches ask it to catch a namespace up; they never write themselves.
import { isKnowledgeError } from '../errors.js';
import type { EmbeddingModel } from '../providers/embedding-model.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { Namespace } from '../store/namespace.js';
import { embeddingText } from './embedding-text.js';

/** After a failed job, the next is tried after `firstMs`, doubling up to `maxMs` while the provider stays down. */
export interface RetryDelays {
  readonly firstMs: number;
  readonly maxMs: number;
}

const defaultRetryDelays: RetryDelays = { firstMs: 15_000, maxMs: 300_000 };

export interface EmbeddableChunk {
  readonly headingPath: readonly string[];
  readonly text: string;
}

interface Backlog {
  /** The job running now; callers that need the namespace embedded wait on it. */
  job?: Promise<void>;
  /** Why the last job failed (the provider is down, say), until one succeeds. */
  failure?: string;
  retryDelayMs: number;
  retry?: NodeJS.Timeout;
}

export class ChunkEmbedder {
  private readonly backlogs = new Map<string, Backlog>();
  private readonly closing = new AbortController();

  constructor(
    private readonly store: KnowledgeStore,
    readonly model: EmbeddingModel,
    private readonly logError: (message: string, error: unknown) => void,
    private readonly retryDelays: RetryDelays = defaultRetryDelays,
  ) {}

  /** The vectors of a new document's chunks, in order. */
  embedChunks(title: string, chunks: readonly EmbeddableChunk[], signal?: AbortSignal): Promise<Float32Array[]> {
    return this.model.embed(
      chunks.map((chunk) => embeddingText(title, chunk.headingPath, chunk.text)),
      signal,
    );
  }

  /**
   * Embeds the namespace's pending chunks and stores their vectors: starts a job, or joins the one running. A failed job
   * is retried in the background with a growing delay, so vectors are filled in once the provider answers again
   * even if nothing asks; the returned promise rejects with the failure for a caller that waited.
   */
  embedPending(namespace: Namespace): Promise<void> {
    const backlog = this.backlogOf(namespace.name);
    if (backlog.job !== undefined) return backlog.job;
    clearTimeout(backlog.retry);
    backlog.retry = undefined;
    // Held open for the job's length: it outlives the search that started it, and it writes.
    const job = this.store
      .withExistingNamespace(namespace.name, (current) => this.embedOnce(current))
      .finally(() => {
        backlog.job = undefined;
      });
    backlog.job = job;
    job.then(
      () => {
        backlog.failure = undefined;
        backlog.retryDelayMs = this.retryDelays.firstMs;
      },
      (error: unknown) => {
        if (this.closing.signal.aborted) return;
        if (isKnowledgeError(error)) backlog.failure = error.message;
        this.logError(`embedding the pending chunks of ${namespace.name} failed`, error);
        this.scheduleRetry(namespace, backlog);
      },
    );
    return job;
  }

  /**
   * Embeds a large backlog without anyone waiting. Work that must happen once (re-embedding a whole namespace after a
   * model change) runs on the replica that owns background work; another replica checks again later, and stops once
   * the owner's vectors reach it.
   */
  embedPendingInBackground(namespace: Namespace): void {
    if (this.store.ownsBackgroundWork) this.embedPending(namespace).catch(() => undefined);
    else this.embedPendingLater(namespace);
  }

  /** Embeds the namespace's pending chunks after a delay, as after a failed job: for chunks just stored because the provider failed. */
  embedPendingLater(namespace: Namespace): void {
    const backlog = this.backlogOf(namespace.name);
    if (backlog.job === undefined && backlog.retry === undefined && !this.closing.signal.aborted) this.scheduleRetry(namespace, backlog);
  }

  /** Why the namespace's last job failed, while no later one has succeeded. */
  pendingFailure(namespaceName: string): string | undefined {
    return this.backlogs.get(namespaceName)?.failure;
  }

  /** Stops retries and waits for running jobs to end (what they had not stored is embedded after a restart). */
  async close(): Promise<void> {
    this.closing.abort();
    for (const backlog of this.backlogs.values()) clearTimeout(backlog.retry);
    await Promise.allSettled([...this.backlogs.values()].flatMap((backlog) => backlog.job ?? []));
  }

  private backlogOf(name: string): Backlog {
    let backlog = this.backlogs.get(name);
    if (backlog === undefined) {
      backlog = { retryDelayMs: this.retryDelays.firstMs };
      this.backlogs.set(name, backlog);
    }
    return backlog;
  }

  private scheduleRetry(namespace: Namespace, backlog: Backlog): void {
    backlog.retry = setTimeout(() => {
      backlog.retry = undefined;
      // Looked up again: the namespace may have been deleted meanwhile, and storing vectors would bring its folder back.
      void this.store
        .existingNamespace(namespace.name)
        .then((current) => {
          if (current === undefined || current.pendingChunkCount === 0) return;
          if (this.store.ownsBackgroundWork) return this.embedPending(current);
          this.scheduleRetry(current, backlog);
        })
        .catch(() => undefined);
    }, backlog.retryDelayMs);
    // A pending retry must not keep the process alive on its own.
    backlog.retry.unref();
    backlog.retryDelayMs = Math.min(backlog.retryDelayMs * 2, this.retryDelays.maxMs);
  }

  private async embedOnce(namespace: Namespace | undefined): Promise<void> {
    // Deleted meanwhile: storing vectors would bring its folder back.
    if (namespace === undefined) return;
    const pending = namespace.pendingChunks();
    if (pending.length === 0) return;
    const vectors = await this.model.embed(
      pending.map((chunk) => embeddingText(namespace.document(chunk.file)?.title ?? '', chunk.headingPath, chunk.text)),
      this.closing.signal,
    );
    await namespace.storeEmbeddings(
      this.model.id,
      pending.map((chunk, index) => ({ chunk, vector: vectors[index] as Float32Array })),
    );
  }
}
