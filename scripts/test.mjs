// `npm test`: the checks (scripts/check.mjs) and the test processes (scripts/run-tests.mjs) as one set of jobs, side
// by side, one per core, longest first (scripts/jobs.mjs). The tests run the test build, not what the checks look at,
// so neither waits for the other, and a failed check does not keep the tests from reporting too. Exits non-zero when
// any job failed.
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
process.exit((await runJobs([...checkJobs, ...testJobs])) ? 0 : 1);
