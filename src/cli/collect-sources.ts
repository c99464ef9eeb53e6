// Turns the paths and URLs given to `ingest` into sources to send: folders walked for documents, files checked
// against the service's type and size limits first (so nothing is uploaded that would be refused), then batched.
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** The extensions the service converts (src/ingest/convert-document.ts); others are not documents. */
export const documentExtensions = ['.md', '.markdown', '.mdx', '.txt', '.text', '.pdf', '.html', '.htm'] as const;

/** Bytes per uploaded file the service accepts (its `limits.maxSourceBytes`, 6 MB). */
export const maxUploadBytes = 6_000_000;

export type PlannedSource =
  /**
   * `uploadName` is the file's identity at the service: its path relative to the folder given on the command line
   * (`tutorial/middleware.md` for `docs/tutorial/middleware.md` under `ingest docs`), or its name for a file given itself.
   */
  | { readonly kind: 'file'; readonly label: string; readonly path: string; readonly uploadName: string; readonly bytes: number }
  | { readonly kind: 'url'; readonly label: string; readonly url: string };

/** A source decided here, without the service. */
export interface LocalOutcome {
  readonly label: string;
  readonly status: 'skipped' | 'failed';
  readonly reason: string;
}

export interface CollectedSources {
  readonly sources: readonly PlannedSource[];
  readonly local: readonly LocalOutcome[];
  /** Files in walked folders that are not documents (left out silently, only counted). */
  readonly ignored: number;
}

export function isDocumentName(name: string): boolean {
  return (documentExtensions as readonly string[]).includes(extname(name).toLowerCase());
}

export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A path as it is shown: relative to the working directory when inside it. */
function labelOf(path: string, cwd: string): string {
  const fromCwd = relative(cwd, path);
  return fromCwd !== '' && !fromCwd.startsWith('..') && !isAbsolute(fromCwd) ? fromCwd : path;
}

/** Hidden folders (.git, .cache) and node_modules are never documentation. */
function isSkippedFolder(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

interface WalkVisitor {
  document(path: string): Promise<void>;
  /** A file that is not a document. */
  other(path: string): void;
  unreadable(path: string, error: unknown): void;
}

async function walk(directory: string, visitor: WalkVisitor): Promise<void> {
  let entries;
  try {
    entries = (await readdir(directory, { withFileTypes: true })).sort((left, right) => left.name.localeCompare(right.name));
  } catch (error) {
    visitor.unreadable(directory, error);
    return;
  }
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!isSkippedFolder(entry.name)) await walk(path, visitor);
    } else if (entry.name.startsWith('.')) {
      continue;
    } else if ((entry.isFile() || entry.isSymbolicLink()) && isDocumentName(entry.name)) {
      // A symbolic link is followed to a file; links to folders are not walked (they could loop).
      await visitor.document(path);
    } else if (entry.isFile()) {
      visitor.other(path);
    }
  }
}

function describeFileError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}

export async function collectSources(inputs: readonly string[], cwd: string): Promise<CollectedSources> {
  const sources: PlannedSource[] = [];
  const local: LocalOutcome[] = [];
  const seen = new Set<string>();
  let ignored = 0;

  /**
   * `folder`: the folder given on the command line that the file was found in, with its real path (symbolic links
   * resolved); undefined for a file given itself.
   */
  const addFile = async (path: string, folder: { path: string; real: string } | undefined) => {
    const named = folder === undefined;
    if (seen.has(path)) return;
    seen.add(path);
    const label = labelOf(path, cwd);
    // A link found in a folder is followed only to a file inside that folder: a link to ~/.ssh/id_rsa placed in a docs
    // folder would otherwise make the key searchable. A file named on the command line is taken as named.
    if (folder !== undefined) {
      const real = await realpath(path).catch(() => undefined);
      if (real !== undefined && relative(folder.real, real).split(sep)[0] === '..') {
        local.push({ label, status: 'skipped', reason: `a symbolic link to ${real}, outside the folder ${labelOf(folder.path, cwd)}` });
        return;
      }
    }
    if (named && !isDocumentName(path)) {
      local.push({ label, status: 'skipped', reason: `unsupported file type (accepted: ${documentExtensions.join(', ')})` });
      return;
    }
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      local.push({ label, status: 'failed', reason: describeFileError(error) });
      return;
    }
    if (!info.isFile()) return;
    if (info.size > maxUploadBytes) {
      local.push({
        label,
        status: 'failed',
        reason: `${formatBytes(info.size)}, over the ${formatBytes(maxUploadBytes)} limit for a file`,
      });
      return;
    }
    const uploadName = (folder === undefined ? basename(path) : relative(folder.path, path)).split(sep).join('/');
    sources.push({ kind: 'file', label, path, uploadName, bytes: info.size });
  };

  for (const input of inputs) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) {
      let url: URL | undefined;
      try {
        url = new URL(input);
      } catch {
        url = undefined;
      }
      if (url === undefined) local.push({ label: input, status: 'failed', reason: 'not a valid URL' });
      else if (url.protocol !== 'http:' && url.protocol !== 'https:')
        local.push({ label: input, status: 'failed', reason: 'only http and https URLs can be ingested' });
      else if (!seen.has(url.href)) {
        seen.add(url.href);
        sources.push({ kind: 'url', label: input, url: url.href });
      }
      continue;
    }
    const path = resolve(cwd, input);
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      local.push({ label: input, status: 'failed', reason: describeFileError(error) });
      continue;
    }
    if (info.isDirectory()) {
      const folder = { path, real: await realpath(path) };
      await walk(path, {
        document: (file) => addFile(file, folder),
        other: () => void ignored++,
        unreadable: (folder, error) =>
          local.push({ label: labelOf(folder, cwd), status: 'failed', reason: `cannot read the folder: ${describeFileError(error)}` }),
      });
    } else {
      await addFile(path, undefined);
    }
  }
  return { ...withUniqueUploadNames(sources, local), ignored };
}

/**
 * The service keys an upload by its path relative to the folder it came from, so files of two folders given on one
 * command line (`a/README.md`, `b/README.md`) could share one and replace each other on every run: the first is
 * sent, the others fail here with the reason. Within one folder every path is different.
 */
function withUniqueUploadNames(
  sources: readonly PlannedSource[],
  local: readonly LocalOutcome[],
): { sources: PlannedSource[]; local: LocalOutcome[] } {
  const firstOfName = new Map<string, string>();
  const unique: PlannedSource[] = [];
  const rejected: LocalOutcome[] = [];
  for (const source of sources) {
    if (source.kind !== 'file') {
      unique.push(source);
      continue;
    }
    const first = firstOfName.get(source.uploadName);
    if (first === undefined) {
      firstOfName.set(source.uploadName, source.label);
      unique.push(source);
    } else {
      rejected.push({
        label: source.label,
        status: 'failed',
        reason: `same path (${source.uploadName}) as ${first} relative to the folders given, so one would replace the other: ingest their common parent folder instead, or into another namespace`,
      });
    }
  }
  return { sources: unique, local: [...local, ...rejected] };
}

/** How the service crawls a URL source (`ingest --crawl`): the bounds left out take the service's defaults. */
export interface CrawlPlan {
  readonly maxPages?: number;
  readonly maxDepth?: number;
  readonly prune: boolean;
}

/** What the command line asks of every batch: a crawl of each URL, the site the files are published on. */
export interface BatchPlan {
  readonly crawl?: CrawlPlan;
  /** `--base-url`: the files' pages are cited by their URL under it (the service maps each path). */
  readonly baseUrl?: string;
}

export type Batch =
  | { readonly kind: 'files'; readonly sources: readonly Extract<PlannedSource, { kind: 'file' }>[]; readonly baseUrl?: string }
  | { readonly kind: 'urls'; readonly sources: readonly Extract<PlannedSource, { kind: 'url' }>[]; readonly crawl?: CrawlPlan };

export interface BatchLimits {
  /** Files per upload request (the service takes at most 50). */
  readonly maxFiles: number;
  /** Bytes of files per upload request (the service takes 8 MB bodies); a larger single file goes alone. */
  readonly maxBytes: number;
  /** URLs per JSON request (each is downloaded by the service). */
  readonly maxUrls: number;
}

export const defaultBatchLimits: BatchLimits = { maxFiles: 20, maxBytes: 4_000_000, maxUrls: 10 };

/**
 * Files grouped in order by count and size (each batch with the plan's `baseUrl`), then URLs by count; with `crawl`, each URL is crawled in a request of its
 * own (the pages of one request's crawls share one page budget at the service).
 */
export function planBatches(sources: readonly PlannedSource[], limits: BatchLimits = defaultBatchLimits, plan: BatchPlan = {}): Batch[] {
  const { crawl, baseUrl } = plan;
  const filesBatch = (files: Extract<PlannedSource, { kind: 'file' }>[]): Batch => ({
    kind: 'files',
    sources: files,
    ...(baseUrl === undefined ? {} : { baseUrl }),
  });
  const batches: Batch[] = [];
  let files: Extract<PlannedSource, { kind: 'file' }>[] = [];
  let bytes = 0;
  for (const source of sources) {
    if (source.kind !== 'file') continue;
    if (files.length > 0 && (files.length >= limits.maxFiles || bytes + source.bytes > limits.maxBytes)) {
      batches.push(filesBatch(files));
      files = [];
      bytes = 0;
    }
    files.push(source);
    bytes += source.bytes;
  }
  if (files.length > 0) batches.push(filesBatch(files));
  const urls = sources.filter((source): source is Extract<PlannedSource, { kind: 'url' }> => source.kind === 'url');
  if (crawl !== undefined) for (const url of urls) batches.push({ kind: 'urls', sources: [url], crawl });
  else
    for (let start = 0; start < urls.length; start += limits.maxUrls)
      batches.push({ kind: 'urls', sources: urls.slice(start, start + limits.maxUrls) });
  return batches;
}
