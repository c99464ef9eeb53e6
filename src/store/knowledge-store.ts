// The namespaces, opened on first use and kept in memory afterwards, over a storage layout (a folder per namespace,
// or PostgreSQL shared by replicas).
import { Namespace } from './namespace.js';
import { sanitizeNamespace } from './namespace-name.js';
import type { QuestionLog } from './question-log.js';
import type { SourceRegistry } from './source-registry.js';
import { FolderLayout, type FolderLayoutOptions, type StorageLayout } from './storage-layout.js';

/** A storage root (one folder per namespace), or another layout (cluster mode's database). */
export type KnowledgeStoreOptions = FolderLayoutOptions | { readonly layout: StorageLayout; readonly warn: (message: string) => void };

/** Wait before a namespace that could not be loaded at start-up is tried again (cluster mode). */
const startRetryDelayMs = 1_000;

export class KnowledgeStore {
  private readonly opened = new Map<string, Promise<Namespace>>();
  private caughtUp = false;
  private readonly layout: StorageLayout;

  constructor(private readonly options: KnowledgeStoreOptions) {
    this.layout = 'layout' in options ? options.layout : new FolderLayout(options);
  }

  /** False while the namespaces held are still being loaded (cluster mode: /health says `starting`). */
  get ready(): boolean {
    return this.caughtUp;
  }

  /** Whether this replica runs the work that must happen once (re-embedding after a model change). */
  get ownsBackgroundWork(): boolean {
    return this.layout.ownsBackgroundWork;
  }

  /** Prepares the storage and opens every namespace in it, so each is current before it is searched. */
  async initialize(): Promise<void> {
    const names = await this.layout.start({
      changed: (name) => void this.refresh(name),
      removed: (name) => this.opened.delete(name),
    });
    const openAll = async () => {
      for (const name of names) {
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

  /** Opens the namespace (its storage is made by its first commit); the name is sanitized, so it can never leave the root. */
  namespace(requestedName: string): Promise<Namespace> {
    const name = sanitizeNamespace(requestedName);
    let namespace = this.opened.get(name);
    if (namespace === undefined) {
      namespace = Namespace.over(name, this.layout.storageFor(name), this.options.warn);
      // A failed open is not cached, so the next request tries again.
      namespace.catch(() => this.opened.delete(name));
      this.opened.set(name, namespace);
    }
    return namespace;
  }

  /**
   * The namespace if it exists, current with its storage: documents placed in or removed from a folder by hand are
   * reconciled here, on every read, which is what makes them searchable at once (see Namespace.syncWithFolder; one stat
   * when nothing changed). Reads of an unknown namespace create nothing (see StorageLayout.holds).
   */
  async existingNamespace(requestedName: string): Promise<Namespace | undefined> {
    const name = sanitizeNamespace(requestedName);
    if (!this.layout.holds(name)) return undefined;
    const namespace = await this.namespace(name);
    await namespace.syncWithFolder();
    return namespace;
  }

  /** Waits for every namespace's queued writes to finish, closes each (a folder folds its journal into index.json), then the layout. */
  async close(): Promise<void> {
    const namespaces = await Promise.allSettled(this.opened.values());
    await Promise.all(namespaces.flatMap((result) => (result.status === 'fulfilled' ? [result.value.close()] : [])));
    await this.layout.close();
  }

  /** Removes a namespace: its queued writes finish, then what it stored goes. False when there is no such namespace. */
  async deleteNamespace(requestedName: string): Promise<boolean> {
    const namespace = await this.existingNamespace(requestedName);
    if (namespace === undefined) return false;
    this.opened.delete(namespace.name);
    await namespace.destroy();
    return true;
  }

  async namespaceNames(): Promise<string[]> {
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

  /** A namespace changed elsewhere: an open one applies what was committed, a new one is opened (loaded whole). */
  private async refresh(name: string): Promise<void> {
    try {
      const namespace = this.opened.get(name);
      if (namespace === undefined) await this.namespace(name);
      else await (await namespace).refresh();
    } catch (error) {
      // The poll tries again; searches go on over the index as it is.
      this.options.warn(`namespace ${name} could not be brought up to date (${(error as Error).message}); retrying`);
    }
  }
}
