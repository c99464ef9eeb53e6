// Launches headless Chromium for browser tests with playwright-core. The path lookup is scripts/ensure-chromium.mjs's
// (the script the test runner calls to install Chromium), imported here with its types spelled out.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { packageRoot } from '../../src/package-root.js';

interface ChromiumLookup {
  chromiumCandidates(environment?: NodeJS.ProcessEnv): string[];
  findChromium(environment?: NodeJS.ProcessEnv): string | undefined;
}

// A computed specifier: the script is plain JavaScript without a declaration file, typed by the interface above.
const lookupModule = pathToFileURL(join(packageRoot, 'scripts', 'ensure-chromium.mjs')).href;

/** Starts Chromium, or throws saying where it was looked for and how to install it (a failure, never a skip). */
export async function launchChromium(): Promise<Browser> {
  const lookup = (await import(lookupModule)) as ChromiumLookup;
  const executablePath = lookup.findChromium();
  if (executablePath === undefined) {
    throw new Error(
      `no Chromium found at ${lookup.chromiumCandidates().join(', ')}: run \`node scripts/ensure-chromium.mjs\` as root, ` +
        "install Debian's chromium package, or set CHROMIUM_PATH",
    );
  }
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}
