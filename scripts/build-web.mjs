// Builds the web playground into dist/web: compiles web/src (browser TypeScript) and copies web/public beside it.
// Built in a staging folder and swapped in at the end, so a running server (or a parallel build) never sees a
// half-written dist/web, and no file of an older build is left behind (the server serves every file there).
import { spawnSync } from 'node:child_process';
import { cpSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = fileURLToPath(new URL('../dist/web', import.meta.url));
const staging = fileURLToPath(new URL(`../dist/.web-${process.pid}`, import.meta.url));

rmSync(staging, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'web/tsconfig.json', '--outDir', staging], { cwd: root, stdio: 'inherit' });
if (compiled.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  process.exit(compiled.status ?? 1);
}
cpSync(fileURLToPath(new URL('../web/public', import.meta.url)), staging, { recursive: true });
rmSync(output, { recursive: true, force: true });
renameSync(staging, output);
