// The FastAPI documentation tree of the shared data (155 Markdown pages, several of them sharing a base name such as
// index.md or middleware.md in different folders): the test material for document identity by path.
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { sharedDataDirectory } from './shared-data.js';

export const fastapiDocsDirectory = join(sharedDataDirectory, 'docs-fastapi');

/** Every Markdown page of the tree, as `/`-separated paths relative to it, sorted. */
export async function fastapiPagePaths(): Promise<string[]> {
  const entries = await readdir(fastapiDocsDirectory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative(fastapiDocsDirectory, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}
