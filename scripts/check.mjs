// The static checks `npm test` runs before the tests, side by side (each is single-threaded for most of its run, and
// the slowest, ESLint's type-aware pass, takes about as long as all the others together), and the build the tests run.
// Each check's output is printed when it ends; the exit code is non-zero when any check failed.
// Prettier, knip and tsc keep caches in node_modules/.cache (content-checked, so a change is never missed); ESLint does
// not, because its cache does not notice when a type another file declares changes.
import { spawn } from 'node:child_process';

const cacheFolder = 'node_modules/.cache';
/** Each entry runs its commands in order; the entries run side by side. */
const checks = [
  { name: 'format', commands: [['prettier', '--check', '.', '--cache', '--cache-strategy', 'content', '--log-level', 'warn']] },
  { name: 'unused exports', commands: [['knip', '--cache']] },
  { name: 'lint', commands: [['eslint', '.']] },
  {
    name: 'type check',
    commands: [
      ['tsc', '-p', 'tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', `${cacheFolder}/tsc/typecheck.tsbuildinfo`],
    ],
  },
  {
    // Emitted without a second type check (the entry above does it); then the web assets.
    name: 'build',
    commands: [
      ['tsc', '-p', 'tsconfig.build.json', '--noCheck'],
      ['npm', 'run', '--silent', 'build:assets'],
    ],
  },
];

function run([command, ...args]) {
  // npm as the one running this script (when it does), other commands from node_modules/.bin as npm scripts find them.
  const [executable, prefix] =
    command === 'npm'
      ? process.env.npm_execpath === undefined
        ? ['npm', []]
        : [process.execPath, [process.env.npm_execpath]]
      : [`node_modules/.bin/${command}`, []];
  return new Promise((resolve) => {
    const child = spawn(executable, [...prefix, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal === null ? 1 : 128), output }));
  });
}

async function runCheck({ name, commands }) {
  const started = Date.now();
  for (const command of commands) {
    const { code, output } = await run(command);
    if (code !== 0) {
      console.log(`✖ ${name}: \`${command.join(' ')}\` failed (exit ${code})\n${output}`);
      return false;
    }
  }
  console.log(`✔ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return true;
}

const results = await Promise.all(checks.map(runCheck));
process.exit(results.every(Boolean) ? 0 : 1);
