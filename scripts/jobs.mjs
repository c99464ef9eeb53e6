// Runs the jobs of `npm test` (the checks and the test processes) side by side: while a slot is free, the next job
// starts, the longest first (so that no long job ends the run alone), each job counting for the cores it keeps busy.
// How long a job takes is what it took in the last full run, recorded in a file, so that the order follows the tests
// as they change; a job's own `seconds` serves until it has run once. A job's output is printed whole when it ends, so the outputs of jobs running side by side never interleave; a
// quiet job's output only when it fails.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';

/**
 * @typedef {object} Job
 * @property {string} name
 * @property {string[]} command The executable, then its arguments.
 * @property {Record<string, string>} [env] Added to this process's environment.
 * @property {number} [seconds] About how long it takes beside other jobs on two cores, until a run records it: the
 *   longest start first.
 * @property {number} [cores] How many cores it keeps busy (1 when left out): a job that mostly waits counts for less.
 * @property {boolean} [quiet] Its output is printed only when it fails (a check), instead of always (a test process).
 */

/**
 * Jobs side by side: one more than the cores, or TEST_CONCURRENCY. The test processes wait on their child processes,
 * sockets and timers for about a fifth of their time (on two cores one job per core kept them 1.6 busy: 202 s for a
 * run that took 163 s with three jobs).
 */
const defaultConcurrency = Number.parseInt(process.env.TEST_CONCURRENCY ?? '', 10) || Math.max(2, availableParallelism()) + 1;

/** npm as the one running this script when it does (npm test), else the npm on the PATH. */
const npm = process.env.npm_execpath === undefined ? ['npm'] : [process.execPath, process.env.npm_execpath];

/** The command that runs a package.json script, printing only what the script itself prints. */
export const npmScript = (script) => [...npm, 'run', '--silent', script];

/** Runs one job to its end; resolves with its exit code (non-zero for a signal or a failed start) and output. */
function runJob(job) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(job.command[0], job.command.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...job.env },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const finish = (code) => {
      // A test process that ran no test (its files found nothing, a pattern matched none) proves nothing: it fails.
      const counts = testCounts(output);
      if (code === 0 && !job.quiet && !((counts.tests ?? 0) - (counts.skipped ?? 0) > 0)) {
        output += `\n${job.name} ran no tests\n`;
        code = 1;
      }
      resolve({ job, code, output, seconds: (Date.now() - started) / 1000 });
    };
    child.on('error', (error) => {
      output += `${error.message}\n`;
      finish(1);
    });
    child.on('close', (code, signal) => finish(code ?? (signal === null ? 1 : 128)));
  });
}

/** Node's test runner ends its report with `ℹ tests 12`, `ℹ pass 11`... (`# tests 12` as TAP): those counts of one job's output. */
function testCounts(output) {
  return Object.fromEntries(
    [...output.matchAll(/^(?:ℹ|#) (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)].map(([, name, count]) => [name, Number(count)]),
  );
}

function report({ job, code, output, seconds }) {
  const took = `${seconds.toFixed(1)} s`;
  if (code === 0 && job.quiet) console.log(`✔ ${job.name} (${took})`);
  else {
    const heading = code === 0 ? `✔ ${job.name} (${took})` : `✖ ${job.name} failed with exit code ${code} (${took})`;
    console.log(`${heading}\n${output.trimEnd()}\n`);
  }
}

/**
 * What a failed job says about its failure, repeated under the run's summary, where a log cut to its last lines (a CI
 * page) still shows it: the test reporter's closing list of failed tests with their errors, or the output's last lines.
 */
function failureExcerpt({ output }, maxLines = 60) {
  const list = output.lastIndexOf('✖ failing tests:');
  const lines = (list >= 0 ? output.slice(list) : output).trimEnd().split('\n');
  const kept = list >= 0 ? lines.slice(0, maxLines) : lines.slice(-maxLines);
  if (kept.length < lines.length) kept.push(`(${lines.length - kept.length} more lines in the job's output above)`);
  return kept.join('\n');
}

/** The seconds each job took in the last run that recorded them, by name; none when no run has. */
function readDurations(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * Runs `jobs`, `concurrency` cores' worth at a time; resolves true when every one passed. With
 * `durationsFile`, the jobs are ordered by the seconds recorded there, and the seconds of the jobs that passed are
 * recorded: only for runs of the whole set, since a run of a few test files makes a shared process look short.
 */
export async function runJobs(jobs, { concurrency = defaultConcurrency, durationsFile } = {}) {
  const started = Date.now();
  const recorded = durationsFile === undefined ? {} : readDurations(durationsFile);
  const seconds = (job) => recorded[job.name] ?? job.seconds ?? 0;
  // Jobs that count for less than a core (they mostly wait) go first: started early, they never end the run.
  const light = (job) => (job.cores ?? 1) < 1;
  const waiting = [...jobs].sort((left, right) => Number(light(right)) - Number(light(left)) || seconds(right) - seconds(left));
  const results = [];
  let busyCores = 0;
  await new Promise((resolve) => {
    const running = new Set();
    const startMore = () => {
      // Another job starts while a core is free; beside jobs that mostly wait, that may be one job more than cores.
      while (waiting.length > 0 && busyCores < concurrency) {
        const job = waiting.shift();
        busyCores += job.cores ?? 1;
        const run = runJob(job).then((result) => {
          running.delete(run);
          busyCores -= job.cores ?? 1;
          results.push(result);
          report(result);
          startMore();
        });
        running.add(run);
      }
      if (running.size === 0) resolve();
    };
    startMore();
  });
  const failed = results.filter((result) => result.code !== 0);
  if (durationsFile !== undefined) {
    // A failed job may have stopped early: its last recorded seconds stay. Jobs that no longer exist are dropped.
    const durations = Object.fromEntries(
      results.flatMap(({ job, code, seconds: took }) => {
        const kept = code === 0 ? Math.round(took) : recorded[job.name];
        return kept === undefined ? [] : [[job.name, kept]];
      }),
    );
    mkdirSync(dirname(durationsFile), { recursive: true });
    writeFileSync(durationsFile, `${JSON.stringify(durations, null, 2)}\n`);
  }
  const counts = results.map((result) => testCounts(result.output));
  const total = (name) => counts.reduce((sum, count) => sum + (count[name] ?? 0), 0);
  const summary = [`${results.length - failed.length} of ${results.length} jobs passed in ${((Date.now() - started) / 1000).toFixed(1)} s`];
  if (total('tests') > 0)
    summary.push(`tests: ${total('pass')} passed, ${total('fail')} failed, ${total('skipped')} skipped, ${total('cancelled')} cancelled`);
  if (failed.length > 0) summary.push(`failed: ${failed.map((result) => result.job.name).join(', ')}`);
  for (const result of failed) console.log(`✖ ${result.job.name}, what failed:\n${failureExcerpt(result)}\n`);
  console.log(`${failed.length === 0 ? '✔' : '✖'} ${summary.join('; ')}`);
  return failed.length === 0;
}
