// The browsable URL a document from a git source is cited by: the source's link template, or GitHub's and GitLab's
// own file pages when the repository is hosted there.
import { KnowledgeError } from '../../errors.js';

export interface DocumentLocation {
  /** The repository URL the source fetches. */
  readonly repoUrl: string;
  readonly branch: string;
  readonly commit: string;
  /** The file's path within the repository. */
  readonly path: string;
}

/** Each segment percent-encoded, the slashes between them kept. */
function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/**
 * Checks a link template: an http(s) URL with `{path}` in it, and `{branch}` or `{commit}` if wanted, such as
 * `https://docs.example.com/source/{branch}/{path}`. Answers it, or throws source_invalid.
 */
export function checkLinkTemplate(template: string): string {
  if (!template.includes('{path}')) {
    throw new KnowledgeError('source_invalid', `the link template ${JSON.stringify(template)} has no {path} placeholder`);
  }
  const example = template.replaceAll(/\{(?:path|branch|commit)\}/g, 'x');
  if (!URL.canParse(example) || !['http:', 'https:'].includes(new URL(example).protocol)) {
    throw new KnowledgeError('source_invalid', `the link template ${JSON.stringify(template)} is not an http(s) URL`);
  }
  return template;
}

/** `https://github.com/owner/repo.git` → `https://github.com/owner/repo`, or undefined for other hosts and forms. */
function hostedRepository(repoUrl: string): { host: 'github' | 'gitlab'; base: string } | undefined {
  if (!URL.canParse(repoUrl)) return undefined;
  const url = new URL(repoUrl);
  const segments = url.pathname
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .split('/')
    .filter((segment) => segment !== '');
  const base = `https://${url.host}/${segments.join('/')}`;
  if (url.host === 'github.com' && segments.length === 2) return { host: 'github', base };
  // GitLab groups nest: gitlab.com/group/subgroup/project.
  if (url.host === 'gitlab.com' && segments.length >= 2) return { host: 'gitlab', base };
  return undefined;
}

/**
 * Where a document of a git source can be read. With a template, its placeholders are filled in (`{path}` and
 * `{branch}` percent-encoded segment by segment). Without one, GitHub and GitLab repositories link to the file's page
 * on the branch; any other repository gives its URL (without `.git`) followed by the file's path, which identifies the
 * file but is browsable only where the host serves files there: give such sources a template.
 */
export function documentUrl(template: string | undefined, location: DocumentLocation): string {
  const path = encodePath(location.path);
  const branch = encodePath(location.branch);
  if (template !== undefined) {
    return checkLinkTemplate(template).replaceAll(/\{(path|branch|commit)\}/g, (_placeholder, name: string) =>
      name === 'path' ? path : name === 'branch' ? branch : location.commit,
    );
  }
  const hosted = hostedRepository(location.repoUrl);
  if (hosted?.host === 'github') return `${hosted.base}/blob/${branch}/${path}`;
  if (hosted?.host === 'gitlab') return `${hosted.base}/-/blob/${branch}/${path}`;
  return `${location.repoUrl.replace(/\/+$/, '').replace(/\.git$/, '')}/${path}`;
}
