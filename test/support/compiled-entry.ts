// The compiled service entry point (dist/main.js) for tests that run the real process, and the built playground
// (dist/web) for the browser tests; `npm test` builds both first.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/package-root.js';

function newestModification(directory: string): number {
  return Math.max(
    0,
    ...readdirSync(directory, { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? newestModification(join(directory, entry.name)) : statSync(join(directory, entry.name)).mtimeMs,
    ),
  );
}

/** Fails with a clear message when the build is missing or older than the sources, rather than testing stale code. */
export function compiledEntryPoint(): string {
  const entry = join(packageRoot, 'dist', 'main.js');
  let built: number;
  try {
    built = statSync(entry).mtimeMs;
  } catch {
    throw new Error('dist/main.js is missing: run `npm run build` (npm test does) before tests that start the real process');
  }
  if (built < newestModification(join(packageRoot, 'src'))) {
    throw new Error('dist/ is older than src/: run `npm run build` (npm test does) before tests that start the real process');
  }
  return entry;
}

/** The compiled command line (dist/cli/main.js, the package's `bin`), refusing a missing or stale build like compiledEntryPoint. */
export function compiledCliEntryPoint(): string {
  compiledEntryPoint();
  const entry = join(packageRoot, 'dist', 'cli', 'main.js');
  try {
    statSync(entry);
  } catch {
    throw new Error('dist/cli/main.js is missing: run `npm run build` (npm test does) before the command-line tests');
  }
  return entry;
}

/**
 * Builds the web playground into dist/web when it is missing or older than web/, so a browser test drives the page as
 * web/ holds it now; after `npm run build` (as in `npm test`) it is current and left alone.
 */
export function ensurePlaygroundBuilt(): void {
  const built = join(packageRoot, 'dist', 'web');
  let builtAt: number;
  try {
    builtAt = statSync(join(built, 'index.html')).mtimeMs;
  } catch {
    builtAt = 0;
  }
  if (builtAt >= newestModification(join(packageRoot, 'web'))) return;
  const build = spawnSync(process.execPath, ['scripts/build-web.mjs'], { cwd: packageRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`scripts/build-web.mjs failed:\n${build.stdout}${build.stderr}`);
}
