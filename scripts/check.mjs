// The checks `npm test` runs before the tests, side by side, and the build the tests run. Each is a package.json
// script; its output is printed only when it fails, and the exit code is non-zero when any did. The TypeScript one
// (type check, ESLint, build) takes most of the time; knip keeps a cache in node_modules/.cache (by modification
// time), ESLint none, because its cache does not notice when a type another file declares changes.
import { spawn } from 'node:child_process';

/** What each check is called here, and the script that runs it. */
const checks = [
  ['format', 'format:check'],
  ['unused exports', 'unused'],
  ['type check, lint and build', 'check:typescript'],
];

/** npm as the one running this script when it does (npm test), else the npm on the PATH. */
const npm = process.env.npm_execpath === undefined ? ['npm'] : [process.execPath, process.env.npm_execpath];

function runScript(script) {
  return new Promise((resolve) => {
    const child = spawn(npm[0], [...npm.slice(1), 'run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal === null ? 1 : 128), output }));
  });
}

async function runCheck([name, script]) {
  const started = Date.now();
  const { code, output } = await runScript(script);
  if (code !== 0) {
    console.log(`✖ ${name}: \`npm run ${script}\` failed (exit ${code})\n${output}`);
    return false;
  }
  console.log(`✔ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return true;
}

const results = await Promise.all(checks.map(runCheck));
process.exit(results.every(Boolean) ? 0 : 1);
