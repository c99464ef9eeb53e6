// Installs the client SDKs the compatibility tests drive, each in its own folder under test/clients/ with its own
// lockfile (they are never dependencies of the service): `npm ci` from the npm registry when a folder's packages are
// missing or differ from its lockfile. Fails loudly: a test that needs a client never runs without it.
// `node scripts/ensure-test-clients.mjs` installs the clients for the running Node; the tests import
// `mastraClientFolder` from here (through test/support/mastra-client.ts), so the choice lives in one place.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const clientsDirectory = fileURLToPath(new URL('../test/clients/', import.meta.url));

/**
 * Mastra's client for this Node: 0.17.2 is the last release that runs on Node 20; the newest (1.x) needs Node >= 22.13.
 * Returns the folder's absolute path.
 */
export function mastraClientFolder(nodeVersion = process.versions.node) {
  const [major = 0, minor = 0] = nodeVersion.split('.').map(Number);
  const latest = major > 22 || (major === 22 && minor >= 13);
  return join(clientsDirectory, latest ? 'mastra-latest' : 'mastra-0.17');
}

/** True when every package the folder's lockfile names is installed at the locked version. */
function isInstalled(folder) {
  const lockPath = join(folder, 'package-lock.json');
  if (!existsSync(lockPath))
    throw new Error(`ensure-test-clients: ${lockPath} is missing; the client folder must hold its package.json and lockfile`);
  const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
  const direct = Object.keys(lock.packages?.['']?.dependencies ?? {});
  return direct.every((name) => {
    const manifest = join(folder, 'node_modules', name, 'package.json');
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === lock.packages[`node_modules/${name}`]?.version;
  });
}

/** Installs the folder's locked packages when needed; throws with npm's output when that fails. */
export function ensureClientFolder(folder) {
  if (isInstalled(folder)) return;
  console.error(`ensure-test-clients: npm ci in ${folder} (first run only; about a minute)`);
  // --ignore-scripts: nothing in these trees needs an install script, and none may download anything.
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: folder,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0 || !isInstalled(folder)) {
    const reason = result.error !== undefined ? result.error.message : `exit ${result.status}`;
    throw new Error(
      `ensure-test-clients: npm ci failed in ${folder} (${reason}); the Mastra client tests cannot run without it. Run it by hand to see why (the npm registry must be reachable).`,
    );
  }
}

export function ensureTestClients() {
  ensureClientFolder(mastraClientFolder());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    ensureTestClients();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
