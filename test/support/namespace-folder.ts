// Reads a namespace folder straight from disk, so durability tests can compare the stored index with the Markdown files.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { backupFilePrefix, temporaryFilePrefix } from '../../src/store/atomic-write.js';
import { parseDocument } from '../../src/store/front-matter.js';
import { indexJsonFileName, journalFileName, readIndexFiles, snapshotFileName } from '../../src/store/folder/index-files.js';
import type { NamespaceIndex } from '../../src/store/namespace-index.js';

export interface NamespaceFolder {
  /** Whether index.json, its snapshot or its journal exists. */
  readonly hasIndexFiles: boolean;
  /** Document files (`*.md`), sorted. */
  readonly markdownFiles: string[];
  /** Leftovers of interrupted atomic writes and commits. */
  readonly temporaryFiles: string[];
}

export async function readNamespaceFolder(directory: string): Promise<NamespaceFolder> {
  const names = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  return {
    hasIndexFiles: [indexJsonFileName, snapshotFileName, journalFileName].some((file) => names.includes(file)),
    markdownFiles: names.filter((name) => name.endsWith('.md') && !name.startsWith('.')).sort(),
    temporaryFiles: names.filter((name) => name.startsWith(temporaryFilePrefix) || name.startsWith(backupFilePrefix)).sort(),
  };
}

/**
 * The index as the service would load it from its files; throws (with the reason) when one of them would not load.
 * Reading changes nothing on disk.
 */
export async function readStoredIndex(directory: string): Promise<NamespaceIndex> {
  const files = await readIndexFiles(directory);
  const [damaged] = files.damaged;
  if (damaged !== undefined) throw new Error(`${damaged.file}: ${damaged.error.message}`, { cause: damaged.error });
  return files.index;
}

/** The content hash recorded in a stored document's front matter. */
export async function recordedHash(directory: string, file: string): Promise<string | undefined> {
  return parseDocument(await readFile(join(directory, file), 'utf8')).frontMatter.hash;
}

/** Document files in the index, sorted. */
export function indexedFiles(index: NamespaceIndex): string[] {
  return index.documents.map((document) => document.file).sort();
}

/** Content hashes that occur more than once in the index (the same content stored twice). */
export function duplicateHashes(index: NamespaceIndex): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const document of index.documents) {
    if (seen.has(document.hash)) duplicates.add(document.hash);
    seen.add(document.hash);
  }
  return [...duplicates];
}
