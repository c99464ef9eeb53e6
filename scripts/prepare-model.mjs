// Writes the local embedding model's int8 form (src/providers/int8-model.ts) after the build, so that the service's
// first start after `npm ci` does not spend ~0.5 s converting it (the first load would otherwise, once).
import { int8ModelFile } from '../dist/providers/int8-model.js';
import { defaultModelDirectory } from '../dist/providers/local-embedding-model.js';

console.log(`local embedding model, int8 form: ${await int8ModelFile(defaultModelDirectory)}`);
