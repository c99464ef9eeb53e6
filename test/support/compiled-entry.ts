// The compiled entry points for tests that run the real process: the service and the command line from the test
// build (dist-test/src, which scripts/run-tests.mjs transpiles afresh before every run), the package's own build (dist/)
// for the tests of the package bin, and the built playground (dist/web) for the browser tests. The builds in dist/ are
// brought up to date here when they are older than their sources, so no test drives stale code.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
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

/** When `file` was written, or 0 when it is missing. */
function writtenAt(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** `file` of the test build, refused with a clear message when missing or older than src/, rather than testing stale code. */
function testBuildFile(...path: string[]): string {
  const file = join(packageRoot, 'dist-test', 'src', ...path);
  if (writtenAt(file) < newestModification(join(packageRoot, 'src')))
    throw new Error(`${file} is missing or older than src/: run the tests with scripts/run-tests.mjs (npm test does), which builds it`);
  return file;
}

/** The service's entry point (main.ts), compiled. */
export function compiledEntryPoint(): string {
  return testBuildFile('main.js');
}

/** The command line's entry point (cli/main.ts), compiled. */
export function compiledCliEntryPoint(): string {
  return testBuildFile('cli', 'main.js');
}

/** Runs `node args` in the package folder; throws with its output when it fails. */
function runNode(...args: string[]): void {
  const result = spawnSync(process.execPath, args, { cwd: packageRoot, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
}

/**
 * The package's own command line (dist/cli/main.js, its `bin`), built first when dist/ is missing or older than src/,
 * as `npm run build` does but without its type check (npm test type-checks); after `npm ci` (which builds it) and no
 * change, it is left alone.
 */
export function packageBin(): string {
  const bin = join(packageRoot, 'dist', 'cli', 'main.js');
  if (writtenAt(bin) < newestModification(join(packageRoot, 'src'))) {
    runNode(createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--noCheck');
    runNode('scripts/copy-assets.mjs');
  }
  return bin;
}

/**
 * Builds the web playground into dist/web when it is missing or older than web/, so a browser test drives the page as
 * web/ holds it now; after `npm run build` it is current and left alone.
 */
export function ensurePlaygroundBuilt(): void {
  if (writtenAt(join(packageRoot, 'dist', 'web', 'index.html')) >= newestModification(join(packageRoot, 'web'))) return;
  runNode('scripts/build-web.mjs');
}
