// The path an uploaded file arrives with (`tutorial/middleware.md`), made safe to keep as the document's source.
// It is never used to reach the disk: it names the document and gives its file name a folder prefix.
import { KnowledgeError } from '../errors.js';

/** Longer paths are refused rather than cut: a cut path could name another document. */
const maxUploadPathLength = 1_000;

export interface UploadPath {
  /** Folders and name joined by `/`, without empty or `.` segments: `tutorial/middleware.md`. */
  readonly path: string;
  /** The folders alone (`tutorial`), undefined for a bare file name. */
  readonly folder: string | undefined;
}

/**
 * Normalises the file name of an upload part: backslashes become `/` (Windows clients send them), empty and `.`
 * segments go. An absolute path (`/etc/x`, `C:\x`, `\\server\share`), a `..` segment or a control character is
 * refused with `source_invalid`: such a name cannot be a path relative to what the user chose to ingest.
 */
export function parseUploadPath(fileName: string): UploadPath {
  const refuse = (reason: string) => new KnowledgeError('source_invalid', `${JSON.stringify(fileName)}: ${reason}`);
  if (fileName.length > maxUploadPathLength) throw refuse(`the file name is longer than ${maxUploadPathLength} characters`);
  if (/[\u0000-\u001f\u007f]/.test(fileName)) throw refuse('the file name holds control characters');
  const slashed = fileName.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[^/]*:/.test(slashed))
    throw refuse('an uploaded file name must be a path relative to the folder it came from, not an absolute path');
  const rawSegments = slashed.split('/');
  const segments = rawSegments.filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw refuse('an uploaded file name may not step out of its folder with ".."');
  const last = rawSegments.at(-1);
  const name = last === '' || last === '.' ? undefined : segments.pop();
  if (name === undefined) throw refuse('the file name names a folder, not a file');
  return { path: [...segments, name].join('/'), folder: segments.length === 0 ? undefined : segments.join('/') };
}

/** Extensions a docs site serves without: the page of `guide/x.md` is `guide/x`. */
const pageSourceExtension = /\.(md|markdown|mdx)$/i;
/** Sources a site serves as their folder: `guide/index.md` and `guide/README.md` are `guide/`. */
const folderPageName = /^(index|readme)\.(md|markdown|mdx)$/i;

/**
 * The public page of an uploaded file, for docs kept as files but published on a site (`base_url`, `ingest
 * --base-url`): Markdown files lose their extension and index/README pages become their folder's URL; other files
 * (HTML, PDF, text) are served as they are. `base` is an absolute http(s) URL, taken as a folder.
 */
export function publicPageUrl(base: string, uploadPath: string): string {
  const folder = base.endsWith('/') ? base : `${base}/`;
  const segments = uploadPath.split('/');
  const name = segments.pop() ?? '';
  const page = folderPageName.test(name) ? '' : name.replace(pageSourceExtension, '');
  return new URL([...segments, page].map(encodeURIComponent).join('/'), folder).href;
}

/** `base_url` as given, checked: an absolute http(s) URL without query or fragment (they would not survive the join). */
export function parseBaseUrl(text: string): string {
  const refuse = (reason: string) =>
    new KnowledgeError(
      'invalid_request',
      `base_url: ${reason} (give the URL the folder's pages are published under, e.g. https://docs.example.com/)`,
    );
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse(`${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('only http and https URLs');
  if (url.search !== '' || url.hash !== '') throw refuse('a base URL cannot have a query or a fragment');
  return url.href;
}
