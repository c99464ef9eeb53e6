// Runs every *.test.ts under test/ with Node's built-in test runner, compiled to JavaScript first by
// scripts/build-tests.mjs (dist-test/; a single file can still be run from source: node --import tsx --test <file>).
// Node 20's --test does not expand globs itself, so the files are listed here.
// Files run side by side, one per core (TEST_CONCURRENCY overrides it; Node 20's default is cores - 1, one file at a
// time on two cores): much of a file's time is spent waiting on servers, child processes and timers, and every file
// has its own process, free ports and temporary folders. More files than cores starve the ones with time limits (30 s
// conversions and fuzz families, child start-ups) on a busy machine. The files in `runAlone` run afterwards, one at a
// time, because they measure wall-clock bounds that files beside them would break.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ensureChromium } from './ensure-chromium.mjs';
import { ensureTestClients } from './ensure-test-clients.mjs';
import { buildTests, testBuildDirectory, typeScriptFiles } from './build-tests.mjs';

/** Asserts a /health latency percentile while it ingests hostile pages. */
const runAlone = [join('test', 'http', 'hostile-pages.test.ts')];
/** The longest files (child-process restarts, the browser, the fuzzers, the command line), started first so that none of them ends the run alone. */
const startFirst = [
  ['durability', 'kill-restart.test.ts'],
  ['web', 'playground.test.ts'],
  ['http', 'fuzz.test.ts'],
  ['cli', 'cli.test.ts'],
  ['operations', 'graceful-shutdown.test.ts'],
  ['http', 'fuzz-openapi.test.ts'],
].map((path) => join('test', ...path));
/** Position in the start order: the files of `startFirst` in that order, then the others. */
const startRank = (file) => (startFirst.includes(file) ? startFirst.indexOf(file) : startFirst.length);

const concurrency = Number.parseInt(process.env.TEST_CONCURRENCY ?? '', 10) || Math.max(2, availableParallelism());
const filter = process.argv.slice(2);
const files = typeScriptFiles('test')
  .filter((file) => file.endsWith('.test.ts'))
  .filter((file) => filter.length === 0 || filter.some((part) => file.includes(part)))
  .sort((left, right) => startRank(left) - startRank(right) || left.localeCompare(right));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// The playground's browser test needs Chromium: installed here when missing (without it that test fails, it is not skipped).
if (files.some((file) => file.endsWith('playground.test.ts'))) ensureChromium();
// The Mastra client test drives the real @mastra/client-js, kept in test/clients/ with its own lockfile: installed
// here when missing; a failed install stops the run (loudly) instead of skipping the test.
if (files.some((file) => file.includes('mastra-client'))) {
  try {
    ensureTestClients();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
await buildTests();
/** A test file's compiled counterpart in the test build. */
const compiled = (file) => join(testBuildDirectory, file.replace(/\.ts$/, '.js'));

function runFiles(group, filesAtOnce) {
  if (group.length === 0) return 0;
  const result = spawnSync(
    process.execPath,
    ['--enable-source-maps', '--test', '--test-reporter=spec', `--test-concurrency=${filesAtOnce}`, ...group.map(compiled)],
    { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
  );
  return result.status ?? 1;
}

// Both groups run even when the first fails, so one run reports every failure.
const sideBySide = runFiles(
  files.filter((file) => !runAlone.includes(file)),
  concurrency,
);
const alone = runFiles(
  files.filter((file) => runAlone.includes(file)),
  1,
);
process.exit(sideBySide !== 0 ? sideBySide : alone);
