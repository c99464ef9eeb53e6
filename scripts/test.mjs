// `npm test`: the checks (scripts/check.mjs) and the test processes (scripts/run-tests.mjs) as one set of jobs, side
// by side, one more than the cores, longest first (scripts/jobs.mjs), by the seconds each took in the last run. The tests run the
// test build, not what the checks look at, so neither waits for the other, and a failed check does not keep the tests
// from reporting too. Exits non-zero when any job failed.
import { checkJobs } from './check.mjs';
import { runJobs } from './jobs.mjs';
import { prepareTestJobs } from './run-tests.mjs';

let testJobs;
try {
  testJobs = await prepareTestJobs();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
const durationsFile = 'node_modules/.cache/knowledge-agent/test-durations.json';
process.exit((await runJobs([...checkJobs, ...testJobs], { durationsFile })) ? 0 : 1);
