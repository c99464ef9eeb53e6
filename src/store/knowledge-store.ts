// The storage root: one folder per namespace, opened on first use and kept in memory afterwards.
import { statSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Namespace, type NamespaceOptions } from './namespace.js';
import { maxNamespaceLength, sanitizeNamespace } from './namespace-name.js';

export interface KnowledgeStoreOptions {
  /** Absolute storage root. */
  readonly root: string;
  readonly embeddingModel: string | null;
  readonly chunkBody: NamespaceOptions['chunkBody'];
  readonly warn: (message: string) => void;
}

export class KnowledgeStore {
  private readonly opened = new Map<string, Promise<Namespace>>();

  constructor(private readonly options: KnowledgeStoreOptions) {}

  /** Creates the root and opens every namespace in it, so each is reconciled with its folder before the first request. */
  async initialize(): Promise<void> {
    await mkdir(this.options.root, { recursive: true });
    for (const name of await this.namespaceNames()) {
      await this.namespace(name).catch((error: unknown) => {
        this.options.warn(`namespace ${name} could not be opened at start-up (${(error as Error).message}); it is retried on first use`);
      });
    }
  }

  /** Opens the namespace (its folder is made by its first commit); the name is sanitized, so it can never leave the root. */
  namespace(requestedName: string): Promise<Namespace> {
    const name = sanitizeNamespace(requestedName);
    let namespace = this.opened.get(name);
    if (namespace === undefined) {
      namespace = Namespace.open({
        name,
        directory: join(this.options.root, name),
        embeddingModel: this.options.embeddingModel,
        chunkBody: this.options.chunkBody,
        warn: this.options.warn,
      });
      // A failed open is not cached, so the next request tries again.
      namespace.catch(() => this.opened.delete(name));
      this.opened.set(name, namespace);
    }
    return namespace;
  }

  /**
   * The namespace if its folder exists, current with its folder: documents placed in or removed from it by hand are
   * reconciled here, on every read, which is what makes them searchable at once (see Namespace.syncWithFolder; one stat
   * when nothing changed). Reads of an unknown namespace create nothing. That holds for a namespace opened earlier
   * whose folder was removed by hand too: reading it would write its folder back (its next ingest does, and the
   * reconciliation with the folder then drops what is gone). The check is synchronous for the same reason.
   */
  async existingNamespace(requestedName: string): Promise<Namespace | undefined> {
    const name = sanitizeNamespace(requestedName);
    if (!isFolder(join(this.options.root, name))) return undefined;
    const namespace = await this.namespace(name);
    await namespace.syncWithFolder();
    return namespace;
  }

  /** Waits for every namespace's queued writes to finish, and folds each journal into its index.json. */
  async close(): Promise<void> {
    const namespaces = await Promise.allSettled(this.opened.values());
    await Promise.all(namespaces.flatMap((result) => (result.status === 'fulfilled' ? [result.value.close()] : [])));
  }

  /** Removes a namespace: its queued writes finish, then its folder goes. False when there is no such namespace. */
  async deleteNamespace(requestedName: string): Promise<boolean> {
    const namespace = await this.existingNamespace(requestedName);
    if (namespace === undefined) return false;
    this.opened.delete(namespace.name);
    await namespace.settle();
    await rm(namespace.directory, { recursive: true, force: true });
    return true;
  }

  /** Names of the namespace folders under the root. */
  async namespaceNames(): Promise<string[]> {
    const entries = await readdir(this.options.root, { withFileTypes: true });
    return entries
      // Folders whose name is not a namespace name (another character, over 64 long) are not namespaces.
      .filter((entry) => entry.isDirectory() && /^[A-Za-z0-9_-]+$/.test(entry.name) && entry.name.length <= maxNamespaceLength)
      .map((entry) => entry.name)
      .sort();
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
