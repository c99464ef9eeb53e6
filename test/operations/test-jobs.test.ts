// The job runner of `npm test` (scripts/jobs.mjs): a test process passes only when it ran tests and exited 0.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/package-root.js';

// From the repository's own scripts/ (the tests also run compiled, from dist-test/, where scripts/ is not copied).
const { runJobs } = (await import(pathToFileURL(join(packageRoot, 'scripts', 'jobs.mjs')).href)) as {
  runJobs: (jobs: readonly { name: string; command: string[]; quiet?: boolean }[], options: { concurrency: number }) => Promise<boolean>;
};

const printing = (text: string) => [process.execPath, '-e', `console.log(${JSON.stringify(text)})`];

describe('the npm test job runner', () => {
  it('fails a test process that ran no test, and passes one that ran some', async (context) => {
    // The runner reports each job on the console: in this test's output those reports would read as npm test's own.
    context.mock.method(console, 'log', () => undefined);
    const ran = (report: string) => runJobs([{ name: 'job', command: printing(report) }], { concurrency: 1 });
    assert.equal(await ran('ℹ tests 2\nℹ pass 2\nℹ skipped 0'), true);
    assert.equal(await ran('ℹ tests 0\nℹ pass 0'), false);
    assert.equal(await ran('ℹ tests 1\nℹ skipped 1'), false, 'every test skipped');
    assert.equal(await ran('no report at all'), false);
    assert.equal(
      await runJobs([{ name: 'check', command: printing(''), quiet: true }], { concurrency: 1 }),
      true,
      'a check reports no tests',
    );
  });

  it("repeats each failed job's list of failed tests under the summary, where a log cut to its end shows it", async (context) => {
    const printed: string[] = [];
    context.mock.method(console, 'log', (text: string) => printed.push(text));
    const report = 'ℹ tests 2\nℹ pass 1\nℹ fail 1\n\n✖ failing tests:\n\n✖ converts the manual\n  conversion_timed_out';
    const failing = [process.execPath, '-e', `console.log(${JSON.stringify(report)}); process.exitCode = 1`];
    const passing = printing('ℹ tests 1\nℹ pass 1');
    const passed = await runJobs(
      [
        { name: 'broken', command: failing },
        { name: 'fine', command: passing },
      ],
      { concurrency: 1 },
    );
    assert.equal(passed, false);
    const afterJobs = printed.slice(2).join('\n');
    assert.match(afterJobs, /^✖ broken, what failed:\n✖ failing tests:\n\n✖ converts the manual\n {2}conversion_timed_out\n/);
    assert.match(printed.at(-1) ?? '', /^✖ 1 of 2 jobs passed .*failed: broken$/);
  });
});
