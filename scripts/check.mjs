// The static checks: the format, unused exports (knip, which keeps a cache in node_modules/.cache by modification
// time), and the TypeScript check (type check and ESLint on one program; ESLint keeps no cache, because its cache
// does not notice when a type another file declares changes). `npm run check` runs them side by side; `npm test` runs
// them beside the test processes (scripts/test.mjs). Each is a package.json script.
import { fileURLToPath } from 'node:url';
import { npmScript, runJobs } from './jobs.mjs';

export const checkJobs = [
  { name: 'type check and lint', command: npmScript('check:typescript'), seconds: 40, quiet: true },
  { name: 'unused exports', command: npmScript('unused'), seconds: 6, quiet: true },
  { name: 'format', command: npmScript('format:check'), seconds: 1, quiet: true },
];

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit((await runJobs(checkJobs, { concurrency: checkJobs.length })) ? 0 : 1);
