// A full volume (ENOSPC, or EDQUOT when a quota is reached) is a condition the client can act on, not a bug: the store
// reports it as the catalogue's storage_full, and its log line names the errno and the file that could not be written.
import { KnowledgeError } from '../errors.js';

export function isStorageFull(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** Names the file on a file-system error that lacks it (Node's errors of writes through a file handle carry no path). */
export function withPath(error: unknown, path: string): unknown {
  const failure = error as NodeJS.ErrnoException;
  if (error instanceof Error && typeof failure.code === 'string' && failure.path === undefined) failure.path = path;
  return error;
}

/** `ENOSPC writing /root/docs/index.journal`, for log lines. */
export function describeFileError(error: unknown): string {
  const failure = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof failure.code !== 'string') return String((error as Error | undefined)?.message ?? error);
  return failure.path === undefined ? `${failure.code} (${failure.message})` : `${failure.code} writing ${failure.path}`;
}

/** What the client is told: no internal path, and what to do about it. */
export function storageFullError(cause: unknown): KnowledgeError {
  return new KnowledgeError(
    'storage_full',
    'the storage volume is full (no space left on device), so this was not stored: free space and send it again',
    { cause },
  );
}
