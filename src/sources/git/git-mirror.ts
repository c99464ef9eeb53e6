// A git source's local mirror: a bare repository in the cache that each refresh fetches the branch's latest commit
// into (depth 1, so only that commit's files are downloaded, and only the changed ones after the first time), and
// that lists and reads the files of a commit by blob id, so that a refresh re-ingests only what changed.
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { KnowledgeError } from '../../errors.js';
import { runGit, type GitResult } from './git-command.js';
import { createPathMatcher, defaultDocumentPatterns } from './path-pattern.js';
import { checkRemote, type RemotePolicy } from './remote-address.js';
import { checkBranchSyntax, checkFolder, checkObjectId, checkSourceId } from './source-names.js';

export interface GitMirrorOptions extends RemotePolicy {
  /** The folder that holds the mirrors, one bare repository per source (`<cacheRoot>/<sourceId>.git`). */
  readonly cacheRoot: string;
  readonly sourceId: string;
  /** How long one git command may run (milliseconds); past it git is killed. */
  readonly timeoutMs: number;
  /** How many bytes one fetch may add to the mirror: the whole repository's commit the first time. */
  readonly maxBytes: number;
}

export interface FetchRequest {
  readonly url: string;
  readonly branch: string;
  readonly signal?: AbortSignal;
}

export interface FileSelection {
  /** The folder inside the repository whose files are listed; the root when left out. */
  readonly folder?: string;
  /** Glob patterns over paths relative to the folder; Markdown, text, HTML and PDF when left out. */
  readonly patterns?: readonly string[];
  readonly signal?: AbortSignal;
}

export interface RepositoryFile {
  /** The path within the repository (not relative to the folder). */
  readonly path: string;
  /** The blob id: the same content has the same id in every commit. */
  readonly blob: string;
  /** Bytes. */
  readonly size: number;
}

/** The settings every command gets: no automatic gc or maintenance left running in the background after git exits. */
const quietRepository = ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false'];

async function directoryBytes(directory: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (!entry.isFile()) continue;
    // A temporary pack may be renamed between the listing and its stat.
    total += (await stat(join(entry.parentPath ?? entry.path, entry.name)).catch(() => undefined))?.size ?? 0;
  }
  return total;
}

/** The line of git's error output that says what failed ("fatal: ..."), or its last line. */
function gitComplaint(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return (lines.findLast((line) => line.startsWith('fatal:')) ?? lines.at(-1) ?? 'no message').replace(/^fatal:\s*/, '');
}

export class GitMirror {
  /** The bare repository. */
  readonly directory: string;
  private readonly home: string;

  constructor(private readonly options: GitMirrorOptions) {
    this.directory = join(options.cacheRoot, `${checkSourceId(options.sourceId)}.git`);
    // Mirrors' folders end in .git and this one does not: no source's mirror can be it.
    this.home = join(options.cacheRoot, 'git-home');
  }

  /**
   * Fetches the branch's latest commit from `url` (depth 1, no tags) and answers its id. Throws url_not_allowed for a
   * URL the address policy refuses, source_invalid for a malformed or unknown branch, source_too_large past
   * `maxBytes` (the mirror is then removed), fetch_failed when git is missing, the server refuses or fails, or
   * past the time-out; the signal's reason when it aborts.
   */
  async fetch(request: FetchRequest): Promise<{ commit: string }> {
    const branch = await this.checkBranch(request.branch, request.signal);
    const remote = await checkRemote(request.url, this.options);
    await this.create(request.signal);
    const objects = join(this.directory, 'objects');
    const bytesBefore = await directoryBytes(objects);
    const overLimit = async () =>
      (await directoryBytes(objects)) - bytesBefore > this.options.maxBytes
        ? new KnowledgeError('source_too_large', `${remote.url} is over the ${this.options.maxBytes}-byte limit of a git source`)
        : undefined;
    const task = `fetching ${remote.url}`;
    const fetched = await runGit({
      args: [
        ...remote.gitOptions,
        ...quietRepository,
        // Every fetch kept as one pack, never unpacked into loose objects: the size watch stats a few files, not thousands.
        '-c',
        'transfer.unpackLimit=1',
        `--git-dir=${this.directory}`,
        'fetch',
        '--quiet',
        '--depth=1',
        '--no-tags',
        '--no-write-fetch-head',
        '--no-recurse-submodules',
        '--',
        remote.url,
        `+refs/heads/${branch}:refs/remotes/source/${branch}`,
      ],
      home: this.home,
      task,
      timeoutMs: this.options.timeoutMs,
      signal: request.signal,
      watch: overLimit,
    }).catch(async (error: unknown) => {
      // What a stopped fetch left (a partial pack) would count against the next one.
      if (error instanceof KnowledgeError && error.code === 'source_too_large') await this.remove();
      throw error;
    });
    // A fetch quicker than the watch's first look is measured here.
    const tooLarge = await overLimit();
    if (tooLarge !== undefined) {
      await this.remove();
      throw tooLarge;
    }
    if (fetched.exitCode !== 0) throw this.fetchFailure(remote.url, branch, fetched);
    const resolved = await this.git(
      ['rev-parse', '--verify', '--end-of-options', `refs/remotes/source/${branch}^{commit}`],
      task,
      request.signal,
    );
    return { commit: resolved.toString().trim() };
  }

  /** The files of `commit` under the folder whose paths (relative to it) match the patterns; symbolic links and submodules left out. */
  async listFiles(commit: string, selection: FileSelection = {}): Promise<RepositoryFile[]> {
    checkObjectId(commit, 'commit');
    const folder = checkFolder(selection.folder ?? '');
    const matches = createPathMatcher(selection.patterns ?? defaultDocumentPatterns);
    // Literal pathspecs: a folder named like `:(glob)…` is a folder, not pathspec magic.
    const args = ['--literal-pathspecs', 'ls-tree', '-r', '-l', '-z', commit, ...(folder === '' ? [] : ['--', folder])];
    const listing = await this.git(args, `listing the files of ${commit}`, selection.signal);
    const prefix = folder === '' ? '' : `${folder}/`;
    const files: RepositoryFile[] = [];
    for (const entry of listing.toString('utf8').split('\0')) {
      // "<mode> <type> <blob> <size>\t<path>"; the size is padded with spaces.
      const tab = entry.indexOf('\t');
      const [mode, type, blob, size] = entry.slice(0, tab).split(/ +/);
      const path = entry.slice(tab + 1);
      if (tab === -1 || type !== 'blob' || mode === '120000' || blob === undefined || !path.startsWith(prefix)) continue;
      if (matches(path.slice(prefix.length))) files.push({ path, blob, size: Number(size) });
    }
    return files;
  }

  /** The content of a blob that `listFiles` named. */
  async readBlob(blob: string, signal?: AbortSignal): Promise<Buffer> {
    return this.git(['cat-file', 'blob', checkObjectId(blob, 'blob')], `reading blob ${blob}`, signal);
  }

  /** Deletes the mirror; the next fetch starts afresh. */
  async remove(): Promise<void> {
    await rm(this.directory, { recursive: true, force: true });
  }

  private async checkBranch(branch: string, signal: AbortSignal | undefined): Promise<string> {
    checkBranchSyntax(branch);
    await mkdir(this.home, { recursive: true });
    const checked = await runGit({
      args: ['check-ref-format', `refs/heads/${branch}`],
      home: this.home,
      task: 'checking the branch name',
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    if (checked.exitCode !== 0) throw new KnowledgeError('source_invalid', `${JSON.stringify(branch)} is not a valid branch name`);
    return branch;
  }

  private async create(signal: AbortSignal | undefined): Promise<void> {
    if (existsSync(join(this.directory, 'HEAD'))) return;
    await mkdir(this.options.cacheRoot, { recursive: true });
    // No template: no sample hooks or other files copied in.
    const created = await runGit({
      args: ['init', '--bare', '--quiet', '--template=', this.directory],
      home: this.home,
      task: `creating the mirror ${this.directory}`,
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    if (created.exitCode !== 0)
      throw new KnowledgeError('fetch_failed', `the mirror ${this.directory} could not be created: ${gitComplaint(created.stderr)}`);
  }

  /** Runs a local command in the mirror and answers its output; a failure is the mirror's, not the remote's. */
  private async git(args: readonly string[], task: string, signal: AbortSignal | undefined): Promise<Buffer> {
    const result = await runGit({
      args: [...quietRepository, `--git-dir=${this.directory}`, ...args],
      home: this.home,
      task,
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    if (result.exitCode !== 0) {
      throw new KnowledgeError(
        'fetch_failed',
        `${task} in the mirror of source ${this.options.sourceId} failed (${gitComplaint(result.stderr)}): fetch the source again`,
      );
    }
    return result.stdout;
  }

  private fetchFailure(url: string, branch: string, result: GitResult): KnowledgeError {
    const complaint = gitComplaint(result.stderr);
    if (/couldn't find remote ref/i.test(complaint)) {
      return new KnowledgeError('source_invalid', `the branch ${JSON.stringify(branch)} does not exist in ${url}: check the branch's name`);
    }
    if (/terminal prompts disabled|could not read (username|password)|authentication failed/i.test(complaint)) {
      return new KnowledgeError('fetch_failed', `${url} asks for credentials: only public repositories can be fetched`);
    }
    if (/returned error: 30\d/.test(complaint)) {
      return new KnowledgeError(
        'fetch_failed',
        `${url} answers with a redirect, which is not followed: register the repository's final URL`,
      );
    }
    // Network failures and server errors may pass; a missing repository or a refused redirect will not.
    const temporary = /failed to connect|could not resolve|timed out|connection (reset|refused)|returned error: 5\d\d/i.test(complaint);
    return new KnowledgeError('fetch_failed', `fetching ${url} failed: ${complaint}`, { temporary });
  }
}
