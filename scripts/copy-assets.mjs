// Copies the files the TypeScript compilers do not emit (the WebAssembly kernels) from src/ into a build, same paths:
// into dist/ when run (`npm run build:assets`), and into the test build by scripts/build-tests.mjs. Run, it also makes
// the package's command-line entry executable: the compiler writes it without that bit, and npx runs it through a link
// made when the checkout was first linked (a checkout cloned again into the same folder got "Permission denied").
import { chmodSync, cpSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const compiled = /\.(ts|tsx|mts|cts)$/;

export function copyAssets(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) copyAssets(source, target);
    else if (!compiled.test(entry.name)) cpSync(source, target);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  copyAssets('src', 'dist');
  const { bin } = JSON.parse(readFileSync('package.json', 'utf8'));
  for (const entry of Object.values(bin)) chmodSync(entry, 0o755);
}
