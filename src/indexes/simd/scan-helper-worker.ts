// The scan helper's thread (scan-helper.ts): it sleeps until a job or a message arrives, then claims pieces of the
// job one at a time and scores them with its own instance of the kernel over the same shared memory.
import { type MessagePort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { instantiateKernel, type KernelExports } from './int8-dot-kernel.js';
import { claimPiece, control, type HelperMessage } from './scan-helper.js';

const { control: words, port } = workerData as { control: Int32Array; port: MessagePort };
const floats = new Float32Array(words.buffer);
const kernels = new Map<number, KernelExports>();

/** Instantiates the kernel over each memory registered since the last call. */
function receiveMessages(): void {
  for (let received = receiveMessageOnPort(port); received !== undefined; received = receiveMessageOnPort(port)) {
    const { register, memory } = received.message as HelperMessage;
    kernels.set(register, instantiateKernel(memory));
  }
}

/**
 * Scores pieces of the current job until none is left to claim. Its fields are written before its number, and a
 * claim succeeds only while the number is unchanged, so fields read after the number and used under a claim are its.
 */
function helpWithJob(): void {
  const job = Atomics.load(words, control.cursor) >>> 16;
  const kernel = kernels.get(Atomics.load(words, control.kernel));
  // A kernel is registered before its first job is posted; should one be missing, the caller scores every piece.
  if (kernel === undefined) return;
  const query = Atomics.load(words, control.query);
  const rowBytes = Atomics.load(words, control.rowBytes);
  const queryScaleInverse = floats[control.queryScaleInverse] as number;
  for (let piece = claimPiece(words, job); piece !== -1; piece = claimPiece(words, job)) {
    const at = control.pieces + 4 * piece;
    kernel.scoreRows(
      query,
      Atomics.load(words, at),
      Atomics.load(words, at + 1),
      rowBytes,
      Atomics.load(words, at + 2),
      Atomics.load(words, at + 3),
      queryScaleInverse,
    );
    Atomics.add(words, control.helperPieces, 1);
    Atomics.add(words, control.done, 1);
    Atomics.notify(words, control.done);
  }
}

for (let seen = Atomics.load(words, control.signal); ; seen = Atomics.load(words, control.signal)) {
  receiveMessages();
  helpWithJob();
  Atomics.wait(words, control.signal, seen);
}
