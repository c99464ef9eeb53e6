// Registered sources in the folder layout: `<namespace>/.sources/sources.json` (the definitions, last refreshes and next
// runs) and `<namespace>/.sources/<id>.state.json` (what the next refresh needs), written atomically; the dot keeps
// them out of the namespace's documents, and they go with the namespace's folder. One process owns a storage root,
// so the leases are kept in memory.
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic-write.js';
import { emptySourceState, isDue, type RegisteredSource, type SourceRegistry, type SourceState } from '../source-registry.js';

export const sourcesFolder = '.sources';

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

async function readJson<T>(path: string, fallback: T): Promise<T> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    if (isMissing(error)) return fallback;
    throw new Error(`${path} could not be read (${(error as Error).message}); fix or remove it`, { cause: error });
  }
}

export class FolderSourceRegistry implements SourceRegistry {
  /** `<namespace>/<id>` → owner and expiry. */
  private readonly leases = new Map<string, { owner: string; until: number }>();
  /** Writes of one namespace's list, in order (a read-modify-write each). */
  private readonly writes = new Map<string, Promise<unknown>>();

  constructor(
    /** Absolute storage root. */
    private readonly root: string,
    /** The namespace folders under the root (the layout's listing). */
    private readonly namespaceNames: () => Promise<string[]>,
  ) {}

  private folder(namespace: string): string {
    return join(this.root, namespace, sourcesFolder);
  }

  list(namespace: string): Promise<RegisteredSource[]> {
    return readJson<RegisteredSource[]>(join(this.folder(namespace), 'sources.json'), []);
  }

  save(source: RegisteredSource): Promise<void> {
    return this.changeList(source.namespace, (sources) => {
      const at = sources.findIndex((candidate) => candidate.id === source.id);
      if (at === -1) sources.push(source);
      else sources[at] = source;
      return sources;
    }).then(() => undefined);
  }

  async remove(namespace: string, id: string): Promise<boolean> {
    let removed = false;
    await this.changeList(namespace, (sources) => {
      const kept = sources.filter((source) => source.id !== id);
      removed = kept.length < sources.length;
      return kept;
    });
    if (removed) await rm(join(this.folder(namespace), `${id}.state.json`), { force: true });
    return removed;
  }

  readState(namespace: string, id: string): Promise<SourceState> {
    return readJson(join(this.folder(namespace), `${id}.state.json`), emptySourceState);
  }

  async writeState(namespace: string, id: string, state: SourceState): Promise<void> {
    // A source removed meanwhile (or its namespace deleted) gets no state, and its folder is not made again.
    if (!(await this.list(namespace)).some((source) => source.id === id)) return;
    await writeFileAtomic(join(this.folder(namespace), `${id}.state.json`), JSON.stringify(state));
  }

  async acquire(namespace: string, id: string, owner: string, leaseMs: number): Promise<boolean> {
    return this.take(`${namespace}/${id}`, owner, leaseMs, Date.now());
  }

  async release(namespace: string, id: string, owner: string): Promise<void> {
    const key = `${namespace}/${id}`;
    if (this.leases.get(key)?.owner === owner) this.leases.delete(key);
  }

  async claimDue(now: Date, owner: string, leaseMs: number, limit: number): Promise<RegisteredSource[]> {
    const claimed: RegisteredSource[] = [];
    for (const namespace of await this.namespaceNames()) {
      for (const source of await this.list(namespace).catch(() => [])) {
        if (claimed.length >= limit) return claimed;
        if (!isDue(source, now.getTime())) continue;
        if (this.take(`${namespace}/${source.id}`, owner, leaseMs, now.getTime())) claimed.push(source);
      }
    }
    return claimed;
  }

  private take(key: string, owner: string, leaseMs: number, now: number): boolean {
    const lease = this.leases.get(key);
    if (lease !== undefined && lease.owner !== owner && lease.until > now) return false;
    this.leases.set(key, { owner, until: now + leaseMs });
    return true;
  }

  private changeList(namespace: string, change: (sources: RegisteredSource[]) => RegisteredSource[]): Promise<void> {
    const previous = this.writes.get(namespace) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const sources = change(await this.list(namespace));
        await mkdir(this.folder(namespace), { recursive: true });
        const path = join(this.folder(namespace), 'sources.json');
        await writeFileAtomic(path, `${JSON.stringify(sources, null, 2)}\n`);
        // It holds the webhook secrets.
        await chmod(path, 0o600);
      });
    this.writes.set(namespace, next);
    return next;
  }
}
