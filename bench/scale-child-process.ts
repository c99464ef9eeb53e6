// Starts a step of bench/scale-child.ts in a Node process of its own (so that its memory figures are its own), for
// the scale benchmark and the kill -9 check.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { ChildOptions } from './scale-child.js';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));
const childScript = fileURLToPath(new URL('./scale-child.ts', import.meta.url));

/** The step's process; its stdout is a pipe (each step prints its result as the last JSON line), stderr is shared. */
export function spawnScaleChild(step: string, options: ChildOptions): ChildProcessByStdio<null, Readable, null> {
  return spawn(process.execPath, ['--expose-gc', '--import', 'tsx', childScript, step, JSON.stringify(options)], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

/** Runs the step to its end and returns the JSON line it printed last. */
export function runScaleChild<T>(step: string, options: ChildOptions): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawnScaleChild(step, options);
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = output.trim().split('\n').at(-1) ?? '';
      if (code !== 0) reject(new Error(`scale-child ${step} exited with ${code}`));
      else {
        try {
          resolve(JSON.parse(line) as T);
        } catch {
          reject(new Error(`scale-child ${step} printed no result: ${output.slice(-300)}`));
        }
      }
    });
  });
}
