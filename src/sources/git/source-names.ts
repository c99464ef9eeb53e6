// What a git source may name: its id (a folder name in the cache), a folder inside the repository, object ids. Each
// reaches git's command line or the file system, so each is checked before it does.
import { KnowledgeError } from '../../errors.js';

/** A name for the source's mirror folder: letters, digits, - and _, as namespaces. */
export function checkSourceId(sourceId: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(sourceId)) {
    throw new KnowledgeError('source_invalid', `the source id ${JSON.stringify(sourceId)} must be 1 to 64 letters, digits, - or _`);
  }
  return sourceId;
}

/** `docs/` or `/docs` → `docs`; the repository's root is ''. Refuses `..`, empty segments and leading dashes. */
export function checkFolder(folder: string): string {
  const trimmed = folder.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  const segments = trimmed.split('/');
  if (
    segments.some((segment) => segment === '' || segment === '.' || segment === '..' || segment.startsWith('-')) ||
    /[\0\\]/.test(trimmed)
  ) {
    throw new KnowledgeError(
      'source_invalid',
      `the folder ${JSON.stringify(folder)} is not a plain path inside the repository (such as docs/guide): no .., //, backslashes or leading -`,
    );
  }
  return trimmed;
}

/** A commit or blob id as git prints it: 40 hexadecimal digits (SHA-1) or 64 (SHA-256). */
export function checkObjectId(id: string, kind: 'commit' | 'blob'): string {
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(id)) throw new KnowledgeError('source_invalid', `${JSON.stringify(id)} is not a ${kind} id`);
  return id;
}

/**
 * The part of a branch name's check done before git sees it: not empty and no leading dash (an option such as
 * `--upload-pack=…`). The mirror then asks `git check-ref-format` (which refuses `..`, `*`, `:`, spaces, `@{` and more).
 */
export function checkBranchSyntax(branch: string): string {
  if (branch === '' || branch.startsWith('-') || branch.length > 255) {
    throw new KnowledgeError('source_invalid', `the branch ${JSON.stringify(branch)} is not a valid branch name`);
  }
  return branch;
}
