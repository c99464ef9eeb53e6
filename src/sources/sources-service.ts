// Registered sources: a namespace's list of the places its docs come from, each refreshed on its schedule, on demand
// or by a webhook, at the cost of what changed. Refreshes run in the background with bounded concurrency, one at a
// time per source across replicas (a lease in the registry), and never hold up searches.
import { createHash, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { readdir, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { linkSignals } from '../concurrency.js';
import { KnowledgeError, isKnowledgeError } from '../errors.js';
import type { IngestService } from '../ingest/ingest-service.js';
import { fetchLimits, type SourceLimits } from '../ingest/load-source.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { NamespaceName } from '../store/namespace-name.js';
import {
  isDue,
  type RefreshSummary,
  type RefreshTrigger,
  type RegisteredSource,
  type SourceDefinition,
  type SourceRegistry,
  type SourceState,
} from '../store/source-registry.js';
import { GitMirror, checkLinkTemplate } from './git/index.js';
import { refreshGitSource } from './refresh-git-source.js';
import { RefreshTally } from './refresh-tally.js';
import { refreshWebSource } from './refresh-web-source.js';

export interface SourcesServiceOptions {
  readonly store: KnowledgeStore;
  readonly ingest: IngestService;
  readonly limits: SourceLimits;
  /** Where git sources' repositories are mirrored (a cache: lost, they are fetched again). */
  readonly gitCacheRoot: string;
  readonly warn: (message: string) => void;
  readonly logError: (message: string, error: unknown) => void;
  /** How often the scheduler looks for due sources; 15 s when left out. */
  readonly scheduleCheckMs?: number;
  /** Scheduled refreshes running at once in this process; 2 when left out. */
  readonly concurrency?: number;
  /** Told of every refresh that ran to its end (metrics). */
  readonly onRefreshed?: (summary: RefreshSummary) => void;
}

/** What may be changed on a registered source. */
export interface SourceChanges {
  readonly everySeconds?: number | null;
  readonly crawl?: SourceDefinition['crawl'];
  readonly git?: SourceDefinition['git'];
  /** A new webhook secret, or null to remove it. */
  readonly webhookSecret?: string | null;
}

/** A refresh holds its source this long, renewed while it runs: a replica that died frees it within the lease. */
const leaseMs = 120_000;
const leaseRenewMs = 30_000;
/** How often a refresh asked for while another replica runs one checks whether it has ended. */
const leaseWaitMs = 500;

/**
 * How often mirrors of sources no longer registered are deleted (first at the first schedule check after start-up); a
 * mirror changed more recently than this is kept, so that one a refresh is making right now is never taken from under
 * it.
 */
const mirrorPruneMs = 3_600_000;

/** A git command (a fetch, most of all) may take this long. */
const gitTimeoutMs = 120_000;
/** What one fetch of a repository may add to its mirror. */
const maxRepositoryBytes = 500 * 1024 * 1024;

/** How long the confirmed times of a namespace's pages are used before they are read again (other replicas refresh too). */
const confirmedTimesTtlMs = 30_000;

/** The source's id: derived from its URL, so one URL is one source in a namespace. */
export function sourceId(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 12);
}

function nextRunAfter(everySeconds: number | null, from: Date): string | null {
  return everySeconds === null ? null : new Date(from.getTime() + everySeconds * 1000).toISOString();
}

function notFound(namespace: NamespaceName, id: string): KnowledgeError {
  return new KnowledgeError(
    'not_found',
    `namespace "${namespace}" has no source ${JSON.stringify(id)}; list them with GET /tools/sources?namespace=${namespace}`,
  );
}

function rememberConfirmed(byOrigin: Map<string, string>, state: SourceState): void {
  for (const page of Object.values(state.pages)) byOrigin.set(page.origin, page.checkedAt);
  for (const file of Object.values(state.git?.files ?? {})) byOrigin.set(file.origin, state.git?.checkedAt ?? '');
}

export class SourcesService {
  private readonly registry: SourceRegistry;
  /** This process in the registry's leases. */
  private readonly owner = randomUUID();
  /** Refreshes under way in this process, by `<namespace>/<id>`. */
  private readonly running = new Map<string, Promise<RefreshSummary>>();
  /** Sources a webhook asked for while they were refreshing: refreshed once more when that ends. */
  private readonly askedAgain = new Set<string>();
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private lastMirrorPrune = Number.NEGATIVE_INFINITY;
  /** By namespace: when each document origin was last confirmed current by a refresh, and when that was read. */
  private readonly confirmedTimes = new Map<string, { readAt: number; byOrigin: Map<string, string>; reading?: boolean }>();

  constructor(private readonly options: SourcesServiceOptions) {
    this.registry = options.store.sourceRegistry;
    setMaxListeners(0, this.stopping.signal);
  }

  /** Starts the schedule: due sources are refreshed in the background. */
  start(): void {
    const check = () => {
      this.timer = setTimeout(() => {
        void this.runDue().finally(() => {
          if (!this.stopping.signal.aborted) check();
        });
      }, this.options.scheduleCheckMs ?? 15_000);
      this.timer.unref();
    };
    check();
  }

  /** Stops the schedule and the refreshes under way (what they stored stays stored). */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.stopping.abort(new KnowledgeError('shutting_down', 'the service is shutting down'));
    await Promise.allSettled(this.running.values());
  }

  /**
   * When a refresh last found the document of `origin` current (a 304, an unchanged `lastmod` or body, a git blob),
   * or undefined; synchronous, for every search hit. Read from the registry in the background, at most every 30 s.
   */
  confirmedAt(namespace: NamespaceName, origin: string): string | undefined {
    const known = this.confirmedTimes.get(namespace);
    if (known === undefined || (Date.now() - known.readAt > confirmedTimesTtlMs && known.reading !== true)) {
      void this.readConfirmedTimes(namespace);
    }
    return known?.byOrigin.get(origin);
  }

  private async readConfirmedTimes(namespace: NamespaceName): Promise<void> {
    const entry = this.confirmedTimes.get(namespace) ?? { readAt: 0, byOrigin: new Map<string, string>() };
    entry.reading = true;
    this.confirmedTimes.set(namespace, entry);
    try {
      const byOrigin = new Map<string, string>();
      for (const source of await this.registry.list(namespace)) {
        rememberConfirmed(byOrigin, await this.registry.readState(namespace, source.id));
      }
      this.confirmedTimes.set(namespace, { readAt: Date.now(), byOrigin });
    } catch {
      // Searches go on with the documents' own times; the next search tries again.
      this.confirmedTimes.set(namespace, { ...entry, reading: false });
    }
  }

  async list(namespace: NamespaceName): Promise<RegisteredSource[]> {
    return this.registry.list(namespace);
  }

  async get(name: NamespaceName, id: string): Promise<RegisteredSource> {
    const source = (await this.registry.list(name)).find((candidate) => candidate.id === id);
    if (source === undefined) throw notFound(name, id);
    return source;
  }

  /**
   * Registers a source and ingests it (its first refresh); resolves once that refresh has ended. A URL registered
   * already keeps its id, history and refresh state: its settings are replaced, then it is refreshed.
   */
  async add(
    name: NamespaceName,
    definition: SourceDefinition,
    signal?: AbortSignal,
  ): Promise<{ source: RegisteredSource; created: boolean }> {
    const id = sourceId(definition.url);
    if (definition.git?.linkTemplate !== undefined) checkLinkTemplate(definition.git.linkTemplate);
    const existing = (await this.registry.list(name)).find((source) => source.id === id);
    await this.registry.save({
      ...definition,
      id,
      namespace: name,
      createdAt: existing?.createdAt ?? new Date().toISOString(),
      lastRefresh: existing?.lastRefresh ?? null,
      // Due at once until its first refresh ends: one stopped with the request (a client that left) goes on on schedule.
      nextRunAt: existing?.nextRunAt ?? (definition.everySeconds === null ? null : new Date().toISOString()),
    });
    await this.refresh(name, id, existing === undefined ? 'added' : 'manual', signal);
    return { source: await this.get(name, id), created: existing === undefined };
  }

  async update(namespace: NamespaceName, id: string, changes: SourceChanges): Promise<RegisteredSource> {
    const source = await this.get(namespace, id);
    const misplaced =
      changes.crawl !== undefined && source.kind !== 'crawl'
        ? 'crawl'
        : changes.git !== undefined && source.kind !== 'git'
          ? 'git'
          : undefined;
    if (misplaced !== undefined) {
      throw new KnowledgeError(
        'source_invalid',
        `${misplaced} settings apply to ${misplaced} sources; this one is a ${source.kind} source (register the URL again with another kind instead)`,
      );
    }
    if (changes.git?.linkTemplate !== undefined) checkLinkTemplate(changes.git.linkTemplate);
    const { webhookSecret: newSecret, ...rest } = changes;
    const { webhookSecret: oldSecret, ...kept } = source;
    // null removes the secret; left out, it stays.
    const webhookSecret = newSecret === undefined ? oldSecret : (newSecret ?? undefined);
    const everySeconds = changes.everySeconds === undefined ? source.everySeconds : changes.everySeconds;
    const updated: RegisteredSource = {
      ...kept,
      ...rest,
      everySeconds,
      ...(webhookSecret === undefined ? {} : { webhookSecret }),
      nextRunAt:
        changes.everySeconds === undefined
          ? source.nextRunAt
          : nextRunAfter(everySeconds, new Date(source.lastRefresh?.finishedAt ?? Date.now())),
    };
    await this.registry.save(updated);
    return updated;
  }

  /** Forgets a source; with `removeDocuments`, its documents go too. Resolves with how many documents were removed. */
  async remove(namespace: NamespaceName, id: string, removeDocuments: boolean): Promise<{ source: RegisteredSource; removed: number }> {
    const source = await this.get(namespace, id);
    const state = await this.registry.readState(source.namespace, id);
    if (!(await this.registry.remove(source.namespace, id))) throw notFound(source.namespace, id);
    if (source.kind === 'git') await this.mirrorOf(source).remove();
    let removed = 0;
    if (removeDocuments) {
      const origins = [
        ...Object.values(state.pages).map((page) => page.origin),
        ...Object.values(state.git?.files ?? {}).map((file) => file.origin),
      ];
      for (const origin of new Set(origins)) removed += await this.removeDocuments(source.namespace, origin);
    }
    return { source, removed };
  }

  /**
   * Refreshes a source and resolves with its summary. A refresh of it already under way in this process is joined; one
   * under way on another replica is waited for, then this one runs (it costs little: it finds what that one stored).
   */
  refresh(namespace: NamespaceName, id: string, trigger: RefreshTrigger, signal?: AbortSignal): Promise<RefreshSummary> {
    const key = `${namespace}/${id}`;
    const under = this.running.get(key);
    if (under !== undefined) return under;
    const run = this.runRefresh(namespace, id, trigger, signal).finally(() => {
      this.running.delete(key);
      if (this.askedAgain.delete(key) && !this.stopping.signal.aborted) this.refreshInBackground(namespace, id, 'webhook');
    });
    this.running.set(key, run);
    return run;
  }

  /**
   * Starts a refresh without waiting for it (webhooks). One asked for while the source refreshes runs again after it,
   * so a change pushed during a refresh is not missed.
   */
  refreshInBackground(namespace: NamespaceName, id: string, trigger: RefreshTrigger): void {
    const key = `${namespace}/${id}`;
    if (this.running.has(key)) {
      this.askedAgain.add(key);
      return;
    }
    this.refresh(namespace, id, trigger).catch((error: unknown) => this.reportFailure(key, error));
  }

  /**
   * Refreshes the namespace's sources one after the other (only the one of `url` when given) and resolves with each as
   * it stands after its refresh.
   */
  async refreshNow(name: NamespaceName, { url, signal }: { url?: string | undefined; signal?: AbortSignal }): Promise<RegisteredSource[]> {
    const chosen = (await this.registry.list(name)).filter((source) => url === undefined || source.url === url);
    if (url !== undefined && chosen.length === 0) {
      throw new KnowledgeError('not_found', `namespace "${name}" has no source for ${url}; add it first (POST /tools/sources)`);
    }
    const refreshed = [];
    for (const source of chosen) {
      await this.refresh(name, source.id, 'manual', signal);
      refreshed.push(await this.get(name, source.id));
    }
    return refreshed;
  }

  private async runDue(): Promise<void> {
    if (Date.now() - this.lastMirrorPrune >= mirrorPruneMs) {
      this.lastMirrorPrune = Date.now();
      await this.pruneMirrors().catch((error: unknown) =>
        this.options.warn(`unused git mirrors could not be removed (${(error as Error).message}); trying again in an hour`),
      );
    }
    const free = (this.options.concurrency ?? 2) - this.running.size;
    if (free <= 0) return;
    try {
      const due = await this.registry.claimDue(new Date(), this.owner, leaseMs, free);
      for (const source of due) {
        this.refresh(source.namespace, source.id, 'schedule').catch((error: unknown) =>
          this.reportFailure(`${source.namespace}/${source.id}`, error),
        );
      }
    } catch (error) {
      this.options.warn(`scheduled refreshes could not be looked up (${(error as Error).message}); trying again shortly`);
    }
  }

  private reportFailure(key: string, error: unknown): void {
    if (this.stopping.signal.aborted) return;
    if (isKnowledgeError(error)) this.options.warn(`refresh of source ${key} failed: ${error.message}`);
    else this.options.logError(`refresh of source ${key} failed unexpectedly`, error);
  }

  private async runRefresh(
    namespace: NamespaceName,
    id: string,
    trigger: RefreshTrigger,
    caller: AbortSignal | undefined,
  ): Promise<RefreshSummary> {
    const { signal, unlink } = linkSignals([caller, this.stopping.signal]);
    try {
      return await this.refreshUnderLease(namespace, id, trigger, signal);
    } finally {
      unlink();
    }
  }

  private async refreshUnderLease(
    namespace: NamespaceName,
    id: string,
    trigger: RefreshTrigger,
    signal: AbortSignal,
  ): Promise<RefreshSummary> {
    while (!(await this.registry.acquire(namespace, id, this.owner, leaseMs))) {
      signal.throwIfAborted();
      // A source removed meanwhile has no lease to wait for (the database's acquire answers false for it): not_found.
      await this.get(namespace, id);
      await new Promise((resolve) => setTimeout(resolve, leaseWaitMs));
    }
    const renew = setInterval(() => void this.registry.acquire(namespace, id, this.owner, leaseMs).catch(() => undefined), leaseRenewMs);
    try {
      // Read under the lease: what the last refresh stored, wherever it ran.
      const source = await this.get(namespace, id);
      // Claimed from a read made before the run that was due finished (it rescheduled the source meanwhile): done.
      if (trigger === 'schedule' && source.lastRefresh !== null && !isDue(source, Date.now())) return source.lastRefresh;
      const state = await this.registry.readState(namespace, id);
      const startedAt = new Date().toISOString();
      const tally = new RefreshTally(state.pages, () => new Date().toISOString());
      let next: SourceState;
      try {
        next = await this.refreshSource(source, state, tally, signal);
      } catch (error) {
        if (signal.aborted) throw error;
        // Reported in the summary and its next run scheduled as usual, so a failing source is not retried at every check.
        if (!isKnowledgeError(error)) this.options.logError(`refresh of source ${namespace}/${id} failed unexpectedly`, error);
        tally.fail(
          source.url,
          isKnowledgeError(error) ? error : new KnowledgeError('internal_error', 'the refresh failed unexpectedly; see the service log'),
        );
        next = state;
      }
      const summary = tally.summary(trigger, startedAt);
      this.options.onRefreshed?.(summary);
      await this.registry.writeState(namespace, id, next);
      const known = this.confirmedTimes.get(namespace);
      if (known !== undefined) rememberConfirmed(known.byOrigin, next);
      // The source may have been changed or removed meanwhile: its latest definition gets the summary.
      const current = (await this.registry.list(namespace)).find((candidate) => candidate.id === id);
      if (current !== undefined) {
        await this.registry.save({
          ...current,
          lastRefresh: summary,
          nextRunAt: nextRunAfter(current.everySeconds, new Date(summary.finishedAt)),
        });
      }
      return summary;
    } finally {
      clearInterval(renew);
      await this.registry.release(namespace, id, this.owner).catch(() => undefined);
    }
  }

  private async refreshSource(
    source: RegisteredSource,
    state: SourceState,
    tally: RefreshTally,
    signal: AbortSignal,
  ): Promise<SourceState> {
    const removeDocuments = (origin: string) => this.removeDocuments(source.namespace, origin);
    if (source.kind === 'git') {
      const git = await refreshGitSource(source, state, tally, {
        ingest: this.options.ingest,
        mirror: this.mirrorOf(source),
        removeDocuments,
        signal,
        now: () => new Date().toISOString(),
      });
      return { pages: {}, ...(git === undefined ? {} : { git }) };
    }
    await refreshWebSource(source, state, tally, {
      ingest: this.options.ingest,
      limits: fetchLimits(this.options.limits),
      removeDocuments,
      signal,
    });
    return { pages: Object.fromEntries(tally.pages) };
  }

  /**
   * Deletes the mirrors no registered git source uses and nothing changed for an hour: those of a namespace that was
   * deleted, or of a source removed on another replica (each replica keeps its own mirrors).
   */
  private async pruneMirrors(): Promise<void> {
    const root = this.options.gitCacheRoot;
    const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
    if (entries.length === 0) return;
    const used = new Set<string>();
    for (const name of await this.options.store.namespaceNames()) {
      for (const source of await this.registry.list(name)) if (source.kind === 'git') used.add(basename(this.mirrorOf(source).directory));
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || !entry.name.endsWith('.git') || used.has(entry.name)) continue;
      const directory = join(root, entry.name);
      if (Date.now() - (await stat(directory)).mtimeMs < mirrorPruneMs) continue;
      await rm(directory, { recursive: true, force: true });
    }
  }

  /** The source's local mirror of its repository: by namespace and id, as two namespaces may follow one repository. */
  private mirrorOf(source: RegisteredSource): GitMirror {
    return new GitMirror({
      cacheRoot: this.options.gitCacheRoot,
      sourceId: createHash('sha256').update(`${source.namespace}/${source.id}`).digest('hex').slice(0, 24),
      timeoutMs: gitTimeoutMs,
      maxBytes: maxRepositoryBytes,
      allowPrivateAddresses: this.options.limits.allowPrivateUrls,
    });
  }

  private async removeDocuments(namespace: NamespaceName, origin: string): Promise<number> {
    return this.options.store.withExistingNamespace(namespace, async (held) =>
      held === undefined ? 0 : (await held.deleteDocuments({ origin })).length,
    );
  }
}
