// Where the tests' real-world material lives: test/fixtures/ in the repository (its README.md says what is there,
// where it is from and its licence), so that a fresh clone needs nothing beside it.
import { join } from 'node:path';
import { packageRoot } from '../../src/package-root.js';

export const fixturesDirectory = join(packageRoot, 'test', 'fixtures');
