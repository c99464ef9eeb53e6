// Compiles every WebAssembly text kernel in src/indexes/simd/*.wat into the .wasm beside it (committed, loaded at run time).
// test/indexes/vector-index.test.ts recompiles the same way and compares bytes, so keep the options in step with it.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import wabtInit from 'wabt';

const kernelDirectory = 'src/indexes/simd';
const wabt = await wabtInit();
/** SIMD for the kernels, threads for their shared memory. */
const features = { simd: true, threads: true };

for (const name of readdirSync(kernelDirectory)
  .filter((file) => file.endsWith('.wat'))
  .sort()) {
  const source = join(kernelDirectory, name);
  const target = source.replace(/\.wat$/, '.wasm');
  const module = wabt.parseWat(name, readFileSync(source, 'utf8'), features);
  try {
    module.validate(features);
    writeFileSync(target, module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
  console.log(`${source} -> ${target}`);
}
