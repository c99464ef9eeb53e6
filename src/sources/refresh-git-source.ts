// Refreshes a git source: a shallow fetch of its branch, then only the files whose blob changed are read and
// ingested; the documents of files the repository no longer holds (in the source's folder and patterns) are removed.
// Each document is cited by its browsable URL (the source's link template, GitHub's and GitLab's built in).
import { KnowledgeError, isKnowledgeError } from '../errors.js';
import type { IngestService } from '../ingest/ingest-service.js';
import type { IngestSource } from '../ingest/ingest-source.js';
import type { GitFileState, RegisteredSource, SourceState } from '../store/source-registry.js';
import { documentUrl, type GitMirror, type RepositoryFile } from './git/index.js';
import type { RefreshTally } from './refresh-tally.js';

/** Changed files read and ingested together: their bytes are held at once. */
const filesPerBatch = 32;

export interface GitRefreshContext {
  readonly ingest: IngestService;
  readonly mirror: GitMirror;
  readonly removeDocuments: (origin: string) => Promise<number>;
  readonly signal: AbortSignal;
  readonly now: () => string;
}

/** The state the refresh leaves: the commit it saw and each file's blob and document (the previous state on failure). */
export async function refreshGitSource(
  source: RegisteredSource,
  state: SourceState,
  tally: RefreshTally,
  context: GitRefreshContext,
): Promise<SourceState['git']> {
  const git = source.git;
  if (git === undefined) throw new Error(`git source ${source.id} has no git settings`);
  const previous = state.git?.files ?? {};
  const { signal } = context;
  let commit: string;
  let files: RepositoryFile[];
  try {
    ({ commit } = await context.mirror.fetch({ url: source.url, branch: git.branch, signal }));
    files = await context.mirror.listFiles(commit, {
      folder: git.folder,
      ...(git.patterns.length === 0 ? {} : { patterns: git.patterns }),
      signal,
    });
  } catch (error) {
    signal.throwIfAborted();
    // Nothing is removed when the repository could not be read: the documents stay as they were.
    tally.fail(
      source.url,
      isKnowledgeError(error) ? error : new KnowledgeError('fetch_failed', `${source.url}: ${(error as Error).message}`),
    );
    return state.git;
  }
  const next: Record<string, GitFileState> = {};
  const changed: RepositoryFile[] = [];
  for (const file of files) {
    const known = previous[file.path];
    if (known?.blob === file.blob) {
      tally.unchangedPage(file.path);
      next[file.path] = known;
    } else changed.push(file);
  }
  for (let start = 0; start < changed.length; start += filesPerBatch) {
    const batch = changed.slice(start, start + filesPerBatch);
    const uploads: IngestSource[] = [];
    for (const file of batch) {
      uploads.push({
        kind: 'upload',
        fileName: file.path,
        publicUrl: documentUrl(git.linkTemplate, { repoUrl: source.url, branch: git.branch, commit, path: file.path }),
        bytes: await context.mirror.readBlob(file.blob, signal),
      });
    }
    const report = await context.ingest.ingest(source.namespace, uploads, { signal });
    for (const [index, file] of batch.entries()) {
      const outcome = report.outcomes[index];
      if (outcome === undefined) continue;
      tally.ingested(file.path, outcome);
      if (outcome.status === 'failed') {
        // Kept as it was: the next refresh tries the file again.
        const known = previous[file.path];
        if (known !== undefined) next[file.path] = known;
        continue;
      }
      next[file.path] = { blob: file.blob, origin: outcome.document.origin };
      // A link template naming the commit cites a changed file by a new URL: the version under the old one goes.
      const known = previous[file.path];
      if (known !== undefined && known.origin !== outcome.document.origin) await context.removeDocuments(known.origin);
    }
  }
  const listed = new Set(files.map((file) => file.path));
  for (const [path, known] of Object.entries(previous)) {
    if (!listed.has(path)) {
      tally.removedDocuments(await context.removeDocuments(known.origin));
    }
  }
  return { commit, checkedAt: context.now(), files: next };
}
