// The package's own files outside the compiled code (package.json, the bundled model, the built playground), found
// from the root of the package rather than by a fixed number of `../`: the same modules run from src/ (tsx), from
// dist/ (the service) and from dist-test/src/ (the test build), which sit at different depths.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(): string {
  for (let directory = dirname(fileURLToPath(import.meta.url)); ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json'))) return directory;
    if (dirname(directory) === directory) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
  }
}

/** The folder that holds the package's package.json. */
export const packageRoot = findPackageRoot();

/** The package's version, from its package.json. */
export const packageVersion = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
