// Where the shared test material lives: `shared/data` beside the checkout (CI clones main with shared/ beside it).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const sharedDataDirectory = resolve(fileURLToPath(new URL('../../../shared/data', import.meta.url)));
