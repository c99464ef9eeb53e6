// Reads a namespace folder straight from disk, so durability tests can compare index.json with the Markdown files.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { temporaryFilePrefix } from '../../src/store/atomic-write.js';
import { decodeIndex, indexFileName, type IndexContents } from '../../src/store/index-file.js';
import { parseDocument } from '../../src/store/front-matter.js';

export interface NamespaceFolder {
  /** The raw index.json, or undefined when there is none. */
  readonly indexText: string | undefined;
  /** Document files (`*.md`), sorted. */
  readonly markdownFiles: string[];
  /** Leftovers of interrupted atomic writes. */
  readonly temporaryFiles: string[];
}

export async function readNamespaceFolder(directory: string): Promise<NamespaceFolder> {
  const names = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const indexText = names.includes(indexFileName) ? await readFile(join(directory, indexFileName), 'utf8') : undefined;
  return {
    indexText,
    markdownFiles: names.filter((name) => name.endsWith('.md') && !name.startsWith('.')).sort(),
    temporaryFiles: names.filter((name) => name.startsWith(temporaryFilePrefix)).sort(),
  };
}

/**
 * Parses index.json the way the service does; throws (with the reason) when it would not load.
 * JSON.parse runs first on its own so a syntax error is reported as such.
 */
export function loadIndexText(text: string): IndexContents {
  JSON.parse(text);
  return decodeIndex(text);
}

/** The content hash recorded in a stored document's front matter. */
export async function recordedHash(directory: string, file: string): Promise<string | undefined> {
  return parseDocument(await readFile(join(directory, file), 'utf8')).frontMatter.hash;
}

/** Document files listed in index.json, sorted. */
export function indexedFiles(index: IndexContents): string[] {
  return index.documents.map((document) => document.file).sort();
}

/** Content hashes that occur more than once in the index (the same content stored twice). */
export function duplicateHashes(index: IndexContents): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const document of index.documents) {
    if (seen.has(document.hash)) duplicates.add(document.hash);
    seen.add(document.hash);
  }
  return [...duplicates];
}
