// The benchmarks' material: the project's shared data (shared/data beside the checkout, not in the repository; the
// tests read their own trimmed copy in test/fixtures/). A benchmark that reads it calls requireSharedData() first, so
// that without it the benchmark stops with one message saying what is missing and where to put it, instead of an
// ENOENT stack trace from its first read.
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { packageRoot } from '../src/package-root.js';

/** shared/data beside the checkout. */
export const sharedDataDirectory = join(packageRoot, '..', 'shared', 'data');

/**
 * Checks that `entries` (paths relative to shared/data, e.g. `docs-fastapi` or `pdfs/bash-reference-manual-5.2.pdf`)
 * are there; when any is missing, prints one message naming them and what to put where, and exits with status 1.
 */
export function requireSharedData(...entries: string[]): void {
  const missing = entries.filter((entry) => !existsSync(join(sharedDataDirectory, entry)));
  if (missing.length === 0) return;
  const benchmark = process.argv[1] === undefined ? 'benchmark' : basename(process.argv[1]);
  const paths = missing.map((entry) => join(sharedDataDirectory, entry)).join(', ');
  const wanted = missing.map((entry) => `data/${entry}`).join(', ');
  console.error(
    `${benchmark}: missing ${paths}. The benchmarks read the project's shared test and benchmark data (shared/data, ` +
      `not in the repository): put the project's shared/ folder at ${join(packageRoot, '..', 'shared')}, with ${wanted} ` +
      'in it (its data/README.md lists the sets). npm test does not need it: the tests read test/fixtures/.',
  );
  process.exit(1);
}
