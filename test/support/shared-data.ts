// Where the shared test material lives: `shared/data` beside the checkout (CI clones main with shared/ beside it).
import { resolve } from 'node:path';
import { packageRoot } from '../../src/package-root.js';

export const sharedDataDirectory = resolve(packageRoot, '..', 'shared', 'data');
