// Copies the files tsc does not emit (the WebAssembly kernels) from src/ into dist/, same paths.
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const emittedByTsc = /\.(ts|tsx|mts|cts)$/;

function copyAssets(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) copyAssets(source, target);
    else if (!emittedByTsc.test(entry.name)) cpSync(source, target);
  }
}

copyAssets('src', 'dist');
