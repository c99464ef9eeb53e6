// Polls for a condition that becomes true asynchronously (a background job, a disconnect the server notices later).
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves once `condition()` holds; throws after `timeoutMs`, naming `what` was awaited. */
export async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}
