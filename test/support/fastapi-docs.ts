// The FastAPI documentation tree of the test fixtures (62 of the docs' Markdown pages, several of them sharing a base name
// such as index.md or middleware.md in different folders, with SOURCE.txt and LICENSE): the test material for
// document identity by path.
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fixturesDirectory } from './fixtures.js';

export const fastapiDocsDirectory = join(fixturesDirectory, 'docs-fastapi');

/** Every Markdown page of the tree, as `/`-separated paths relative to it, sorted. */
export async function fastapiPagePaths(): Promise<string[]> {
  const entries = await readdir(fastapiDocsDirectory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative(fastapiDocsDirectory, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}
