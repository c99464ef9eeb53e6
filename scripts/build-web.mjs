// Builds the web playground into dist/web: compiles web/src (browser TypeScript) and copies web/public beside it.
// Built in a staging folder and swapped in at the end, so a running server (or a parallel build) never sees a
// half-written dist/web, and no file of an older build is left behind (the server serves every file there).
// Run as a script (npm run build), tsc compiles; scripts/check-typescript.mjs emits from the program it has checked.
import { spawnSync } from 'node:child_process';
import { cpSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = fileURLToPath(new URL('../dist/web', import.meta.url));

/** Rebuilds dist/web; `compileInto(folder)` writes the compiled web/src there and says whether it succeeded. */
export function buildWeb(compileInto) {
  const staging = fileURLToPath(new URL(`../dist/.web-${process.pid}`, import.meta.url));
  rmSync(staging, { recursive: true, force: true });
  if (!compileInto(staging)) {
    rmSync(staging, { recursive: true, force: true });
    return false;
  }
  cpSync(fileURLToPath(new URL('../web/public', import.meta.url)), staging, { recursive: true });
  rmSync(output, { recursive: true, force: true });
  renameSync(staging, output);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const built = buildWeb(
    (staging) =>
      spawnSync(process.execPath, [tsc, '-p', 'web/tsconfig.json', '--outDir', staging], { cwd: root, stdio: 'inherit' }).status === 0,
  );
  if (!built) process.exit(1);
}
