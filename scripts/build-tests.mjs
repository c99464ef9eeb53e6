// The test build: src/, test/, bench/ and web/src/ transpiled to JavaScript in dist-test/, same paths, so that the
// test runner runs plain JavaScript. Running the .ts files through tsx's loader costs every test file 2-3 s of CPU
// (its hooks see every module the file loads, node_modules included), about as much as the tests themselves.
// Transpiling only: `npm test` type-checks with tsc first. The build is made afresh each time (about a second), so no
// file of a deleted source is left behind.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { copyAssets } from './copy-assets.mjs';

export const testBuildDirectory = 'dist-test';
/** test/clients/ holds installed client SDKs (with their own packages' tests), test/fixtures/ data: neither is compiled. */
const notCompiled = new Set([join('test', 'clients'), join('test', 'fixtures')]);

/** The TypeScript sources below `directory` (declaration files and folders of installed packages left out). */
export function typeScriptFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return notCompiled.has(path) || entry.name === 'node_modules' ? [] : typeScriptFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

export async function buildTests() {
  rmSync(testBuildDirectory, { recursive: true, force: true });
  await build({
    entryPoints: ['src', 'test', 'bench', join('web', 'src')].flatMap(typeScriptFiles),
    outdir: testBuildDirectory,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'error',
  });
  copyAssets('src', join(testBuildDirectory, 'src'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildTests();
