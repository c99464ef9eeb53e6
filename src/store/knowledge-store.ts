// The namespaces, opened on first use and kept in memory within a memory budget (the least recently used idle ones
// are closed when it is exceeded, and opened again on next use), over a storage layout (a folder per namespace, or
// PostgreSQL shared by replicas).
import { Namespace } from './namespace.js';
import type { NamespaceName } from './namespace-name.js';
import type { QuestionLog } from './question-log.js';
import type { SourceRegistry } from './source-registry.js';
import { FolderLayout, type FolderLayoutOptions } from './folder/folder-layout.js';
import type { NamespaceCounts, StorageLayout } from './storage-layout.js';

/** A storage root (one folder per namespace), or another layout (cluster mode's database). */
export type KnowledgeStoreOptions = (FolderLayoutOptions | { readonly layout: StorageLayout; readonly warn: (message: string) => void }) & {
  /** Bytes the loaded namespaces may hold together (see estimateIndexBytes); no limit when left out. */
  readonly memoryBudget?: number;
};

/** The loaded namespaces against the memory budget, for /metrics. */
export interface NamespaceMemory {
  readonly loaded: number;
  /** Namespaces closed to keep within the budget since start-up. */
  readonly evictions: number;
  readonly estimatedBytes: number;
  /** Infinity when there is no budget. */
  readonly budgetBytes: number;
}

/** Wait before a namespace that could not be loaded at start-up is tried again (cluster mode). */
const startRetryDelayMs = 1_000;

export class KnowledgeStore {
  /** Opening or open, least recently used first (a use moves a namespace to the end). */
  private readonly opened = new Map<string, Promise<Namespace>>();
  /** The namespaces of `opened` that are open, in the order they opened. */
  private readonly loaded = new Map<string, Namespace>();
  /** Requests under way per namespace: a namespace in use is never closed to free memory. */
  private readonly users = new Map<string, number>();
  /** Namespaces left closed to keep within the budget, with their counts when they were last loaded. */
  private readonly unloaded = new Map<string, NamespaceCounts | undefined>();
  private evictions = 0;
  private caughtUp = false;
  private readonly layout: StorageLayout;
  private readonly memoryBudget: number;

  constructor(private readonly options: KnowledgeStoreOptions) {
    this.layout = 'layout' in options ? options.layout : new FolderLayout(options);
    this.memoryBudget = options.memoryBudget ?? Number.POSITIVE_INFINITY;
  }

  /** False while the namespaces held are still being loaded (cluster mode: /health says `starting`). */
  get ready(): boolean {
    return this.caughtUp;
  }

  /** Whether this replica runs the work that must happen once (re-embedding after a model change). */
  get ownsBackgroundWork(): boolean {
    return this.layout.ownsBackgroundWork;
  }

  /** Prepares the storage and opens the namespaces in it as far as the memory budget allows, so each is current before it is searched. */
  async initialize(): Promise<void> {
    const names = await this.layout.start({
      changed: (name) => void this.refresh(name),
      removed: (name) => this.forget(name),
    });
    const openAll = async () => {
      for (const name of names) {
        // The rest open on first use.
        if (this.estimatedBytes() >= this.memoryBudget) {
          this.unloaded.set(name, undefined);
          continue;
        }
        for (;;) {
          try {
            await this.namespace(name);
            break;
          } catch (error) {
            this.options.warn(
              `namespace ${name} could not be opened at start-up (${(error as Error).message}); ${this.layout.opensInBackground ? 'retrying' : 'it is retried on first use'}`,
            );
            // A replica reports healthy only once it holds everything: it keeps trying while the database is away.
            if (!this.layout.opensInBackground) break;
            await new Promise((resolve) => setTimeout(resolve, startRetryDelayMs));
          }
        }
      }
      this.caughtUp = true;
    };
    if (this.layout.opensInBackground) void openAll();
    else await openAll();
  }

  /**
   * Opens the namespace (its storage is made by its first commit); the name was sanitized where it was read, so it can
   * never leave the root. The namespace may be closed to free memory once no request uses it: hold it through withNamespace.
   */
  namespace(name: NamespaceName): Promise<Namespace> {
    let namespace = this.opened.get(name);
    if (namespace === undefined) namespace = this.open(name);
    else this.opened.delete(name);
    this.opened.set(name, namespace);
    return namespace;
  }

  /** Runs `use` over the namespace (see namespace()), which stays open until it settles. */
  withNamespace<T>(name: NamespaceName, use: (namespace: Namespace) => Promise<T>): Promise<T> {
    return this.holding(name, (held) => this.namespace(held), use);
  }

  /** Runs `use` over the namespace if it exists (see existingNamespace), which stays open until it settles. */
  withExistingNamespace<T>(name: NamespaceName, use: (namespace: Namespace | undefined) => Promise<T>): Promise<T> {
    return this.holding(name, (held) => this.existingNamespace(held), use);
  }

  /** Holds `name` (it is not closed) while `open` and `use` run. */
  private async holding<N, T>(
    name: NamespaceName,
    open: (name: NamespaceName) => Promise<N>,
    use: (namespace: N) => Promise<T>,
  ): Promise<T> {
    this.hold(name);
    try {
      return await use(await open(name));
    } finally {
      this.release(name);
    }
  }

  /**
   * What each namespace holds, without loading a closed one when its storage can tell (a folder's index.json, the
   * database): a namespace loaded since start-up reports its counts from when it was closed.
   */
  async namespaceCounts(): Promise<(NamespaceCounts & { readonly name: string })[]> {
    const counts: (NamespaceCounts & { readonly name: string })[] = [];
    for (const name of await this.namespaceNames()) {
      // A namespace that cannot be read (or was deleted meanwhile) is left out; its requests report why.
      const found = await this.countsOf(name).catch(() => undefined);
      if (found !== undefined) counts.push({ name, ...found });
    }
    return counts;
  }

  get memory(): NamespaceMemory {
    return { loaded: this.loaded.size, evictions: this.evictions, estimatedBytes: this.estimatedBytes(), budgetBytes: this.memoryBudget };
  }

  /**
   * The namespace if it exists, current with its storage: documents placed in or removed from a folder by hand are
   * reconciled here, on every read, which is what makes them searchable at once (see Namespace.syncWithFolder; one stat
   * when nothing changed). Reads of an unknown namespace create nothing (see StorageLayout.holds).
   */
  async existingNamespace(name: NamespaceName): Promise<Namespace | undefined> {
    if (!this.layout.holds(name)) return undefined;
    const namespace = await this.namespace(name);
    await namespace.syncWithFolder();
    return namespace;
  }

  /**
   * Waits for every namespace's queued writes to finish, closes each (a folder folds its journal into index.json) and
   * the files its index reads from, then the layout.
   */
  async close(): Promise<void> {
    const namespaces = await Promise.allSettled(this.opened.values());
    const closing = async (namespace: Namespace) => {
      await namespace.close();
      namespace.release();
    };
    await Promise.all(namespaces.flatMap((result) => (result.status === 'fulfilled' ? [closing(result.value)] : [])));
    await this.layout.close();
  }

  /** Removes a namespace: its queued writes finish, then what it stored goes. False when there is no such namespace. */
  async deleteNamespace(name: NamespaceName): Promise<boolean> {
    return this.withExistingNamespace(name, async (namespace) => {
      if (namespace === undefined) return false;
      this.forget(namespace.name);
      await namespace.destroy();
      return true;
    });
  }

  async namespaceNames(): Promise<NamespaceName[]> {
    return this.layout.namespaceNames();
  }

  /** The namespaces' question log (kept with them, in the same layout). */
  get questionLog(): QuestionLog {
    return this.layout.questionLog;
  }

  /** The namespaces' registered sources (kept with them, in the same layout). */
  get sourceRegistry(): SourceRegistry {
    return this.layout.sources;
  }

  /**
   * A namespace changed elsewhere: an open one applies what was committed, a new one is opened (loaded whole) while
   * the budget has room. One left closed stays closed: it is loaded, current, on its next use.
   */
  private async refresh(name: NamespaceName): Promise<void> {
    try {
      const namespace = this.opened.get(name);
      if (namespace !== undefined) await this.withNamespace(name, (current) => current.refresh());
      else if (!this.unloaded.has(name) && this.estimatedBytes() < this.memoryBudget) await this.namespace(name);
    } catch (error) {
      // The poll tries again; searches go on over the index as it is.
      this.options.warn(`namespace ${name} could not be brought up to date (${(error as Error).message}); retrying`);
    }
  }
  private open(name: NamespaceName): Promise<Namespace> {
    const opening = Namespace.over(name, this.layout.storageFor(name), this.options.warn);
    opening.then(
      (namespace) => {
        // Deleted or closed meanwhile: not this store's to keep.
        if (this.opened.get(name) !== opening) return;
        this.loaded.set(name, namespace);
        this.unloaded.delete(name);
        this.fitBudget(name);
      },
      // A failed open is not cached, so the next request tries again.
      () => {
        if (this.opened.get(name) === opening) this.opened.delete(name);
      },
    );
    return opening;
  }

  /**
   * Closes the least recently used namespaces until the loaded ones fit the budget; never `used` (just opened or used
   * by a request), nor one that a request uses or that has changes queued. Those may hold the total over the budget
   * until they are done.
   */
  private fitBudget(used: string): void {
    let total = this.estimatedBytes();
    for (const name of this.opened.keys()) {
      if (total <= this.memoryBudget) return;
      const namespace = this.loaded.get(name);
      if (namespace === undefined || name === used || this.users.has(name) || !namespace.idle) continue;
      total -= namespace.estimatedBytes;
      this.evict(name, namespace);
    }
  }

  /**
   * Drops an idle namespace from memory; it is opened again, current with its storage, on its next use. Nothing is
   * written: its index files are already what a restart would load (folding the journal, as a shutdown does, would
   * rewrite the whole index.json for nothing), and no request holds it, so no change can reach it any more.
   */
  private evict(name: string, namespace: Namespace): void {
    this.opened.delete(name);
    this.loaded.delete(name);
    this.unloaded.set(name, countsOf(namespace));
    this.evictions++;
    namespace.release();
  }

  private forget(name: string): void {
    this.opened.delete(name);
    this.loaded.delete(name);
    this.unloaded.delete(name);
  }

  private estimatedBytes(): number {
    let total = 0;
    for (const namespace of this.loaded.values()) total += namespace.estimatedBytes;
    return total;
  }

  /** An open namespace's own counts (current with its folder), else what is known of it without loading it, else it is loaded. */
  private async countsOf(name: NamespaceName): Promise<NamespaceCounts | undefined> {
    const known = this.opened.has(name) ? undefined : (this.unloaded.get(name) ?? (await this.layout.storedCounts(name)));
    if (known !== undefined) return known;
    return this.withExistingNamespace(name, async (namespace) => (namespace === undefined ? undefined : countsOf(namespace)));
  }

  private hold(name: string): void {
    this.users.set(name, (this.users.get(name) ?? 0) + 1);
  }

  /** A request is done with the namespace: what it added (an ingest grows a namespace) may call for closing others. */
  private release(name: string): void {
    const users = (this.users.get(name) ?? 1) - 1;
    if (users === 0) this.users.delete(name);
    else this.users.set(name, users);
    this.fitBudget(name);
  }
}

function countsOf(namespace: Namespace): NamespaceCounts {
  return {
    documents: namespace.documentCount,
    chunks: namespace.chunkCount,
    vectors: namespace.vectorCount,
    embeddingModel: namespace.embeddingModel,
  };
}
