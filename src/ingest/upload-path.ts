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
