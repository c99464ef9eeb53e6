// `npm run build:assets` (scripts/copy-assets.mjs run as a script): the kernels copied into dist/, and the package's
// command-line entry made executable, which the TypeScript compiler leaves without that bit.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { packageRoot } from '../../src/package-root.js';

describe('build:assets', () => {
  const folders: string[] = [];
  after(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

  it("copies what the compiler does not emit and makes the package's command-line entry executable", async () => {
    const folder = await mkdtemp(join(tmpdir(), 'build-assets-'));
    folders.push(folder);
    await mkdir(join(folder, 'src', 'kernels'), { recursive: true });
    await mkdir(join(folder, 'dist', 'cli'), { recursive: true });
    await writeFile(join(folder, 'src', 'kernels', 'dot.wasm'), 'wasm');
    await writeFile(join(folder, 'src', 'kernels', 'dot.ts'), 'compiled, not copied');
    await writeFile(join(folder, 'dist', 'cli', 'main.js'), '#!/usr/bin/env node\n', { mode: 0o644 });
    await writeFile(join(folder, 'package.json'), JSON.stringify({ bin: { tool: 'dist/cli/main.js' } }));
    execFileSync(process.execPath, [join(packageRoot, 'scripts', 'copy-assets.mjs')], { cwd: folder });
    assert.equal((await stat(join(folder, 'dist', 'kernels', 'dot.wasm'))).isFile(), true);
    await assert.rejects(stat(join(folder, 'dist', 'kernels', 'dot.ts')), { code: 'ENOENT' });
    assert.equal((await stat(join(folder, 'dist', 'cli', 'main.js'))).mode & 0o777, 0o755);
  });
});
