// Runs every *.test.ts under test/ with Node's built-in test runner (tsx loads TypeScript).
// Node 20's --test does not expand globs itself, so the files are listed here.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ensureChromium } from './ensure-chromium.mjs';
import { ensureTestClients } from './ensure-test-clients.mjs';

function findTests(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    // test/clients/ holds installed client SDKs (with their own packages' tests), not tests of this service.
    if (entry.isDirectory()) return entry.name === 'node_modules' || path === join('test', 'clients') ? [] : findTests(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const filter = process.argv.slice(2);
const files = findTests('test')
  .filter((file) => filter.length === 0 || filter.some((part) => file.includes(part)))
  .sort();
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
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
