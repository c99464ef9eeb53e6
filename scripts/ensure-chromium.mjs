// Finds the Chromium the playground's end-to-end test drives (CHROMIUM_PATH, then Debian's and other distributions'
// paths); when it is missing and this runs as root with apt-get, installs Debian's `chromium` package.
// `node scripts/ensure-chromium.mjs` exits 0 with the path on stdout, or non-zero saying how to install it.
// The test imports `findChromium` from here (through test/support/chromium.ts), so the lookup lives in one place.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Where Chromium may be, in order. */
export function chromiumCandidates(environment = process.env) {
  return [environment.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
    (path) => typeof path === 'string' && path !== '',
  );
}

/** The first executable candidate, or undefined. */
export function findChromium(environment = process.env) {
  return chromiumCandidates(environment).find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const installHint =
  'Chromium is needed by the playground test (test/web/playground.test.ts). Install it with\n' +
  '  sudo apt-get install -y --no-install-recommends chromium      (Debian, Ubuntu: chromium-browser)\n' +
  'or point CHROMIUM_PATH at a Chromium or Chrome executable.';

function canInstall() {
  return process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
}

function aptGet(args) {
  console.error(`ensure-chromium: apt-get ${args.join(' ')}`);
  const result = spawnSync('apt-get', args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
}

/** The Chromium path, installing Debian's package first when it is missing and that is possible; undefined otherwise. */
export function ensureChromium() {
  const found = findChromium();
  if (found !== undefined) return found;
  if (!canInstall()) {
    console.error(`ensure-chromium: no Chromium found (looked at ${chromiumCandidates().join(', ')}).\n${installHint}`);
    return undefined;
  }
  console.error("ensure-chromium: Chromium is missing; installing Debian's chromium package");
  if (!aptGet(['update']) || !aptGet(['install', '-y', '--no-install-recommends', 'chromium'])) {
    console.error(`ensure-chromium: the installation failed.\n${installHint}`);
    return undefined;
  }
  const installed = findChromium();
  if (installed === undefined)
    console.error(`ensure-chromium: the package installed, but no Chromium is at ${chromiumCandidates().join(', ')}.\n${installHint}`);
  return installed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const path = ensureChromium();
  if (path === undefined) process.exit(1);
  console.log(path);
}
