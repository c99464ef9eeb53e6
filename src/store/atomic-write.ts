// Crash-safe file replacement: write a temporary file beside the target, fsync it, rename it over the target, fsync the folder.
import { link, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { withPath } from './storage-full.js';

export const temporaryFilePrefix = '.tmp-';
/**
 * Hard links to documents that a commit in progress replaces or removes, put back if it fails. Only start-up removes
 * leftovers: temporary files are removed whenever the folder is read, and that may happen within the same commit.
 */
export const backupFilePrefix = '.previous-';

/** Replaces `path` (or creates it) with `data`, all or nothing. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await publish(path, (file) => file.writeFile(data), rename);
}

/** Replaces `path` (or creates it) with what `write` writes into the open file, all or nothing. */
export async function writeFileAtomicWith(path: string, write: (file: FileHandle) => Promise<void>): Promise<void> {
  await publish(path, write, rename);
}

/** Creates `path` with `data`, all or nothing; fails with EEXIST instead of replacing a file already there. */
export async function createFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await publish(
    path,
    (file) => file.writeFile(data),
    async (temporaryPath, target) => {
      await link(temporaryPath, target);
      await rm(temporaryPath, { force: true });
    },
  );
}

async function publish(
  path: string,
  write: (file: FileHandle) => Promise<void>,
  move: (temporaryPath: string, target: string) => Promise<void>,
): Promise<void> {
  const temporaryPath = join(dirname(path), `${temporaryFilePrefix}${basename(path)}-${randomBytes(6).toString('hex')}`);
  try {
    const file = await open(temporaryPath, 'w', 0o644);
    try {
      await write(file);
      await file.sync();
    } finally {
      await file.close();
    }
    await move(temporaryPath, path);
  } catch (error) {
    // Whatever failed (a full disk fails the write, or the fsync, or even the open after creating the file), the
    // temporary file goes: on a full volume it is what holds the space the next write needs.
    await rm(temporaryPath, { force: true }).catch(() => undefined);
    throw withPath(error, path);
  }
  await syncDirectory(dirname(path));
}

/** Makes a rename or unlink in the folder durable; some file systems refuse to fsync folders, which is harmless. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r').catch(() => undefined);
  if (handle === undefined) return;
  try {
    await handle.sync();
  } catch {
    // EINVAL/EISDIR on file systems without directory fsync.
  } finally {
    await handle.close();
  }
}
