// Async work over a list with a bounded number of calls in flight.

/**
 * Calls `work` on every item, at most `concurrency` calls at once, starting them in list order. Rejects when a call
 * does (calls already started run on).
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * A signal aborted (with the same reason) by whichever of `signals` aborts first; `unlink` undoes the links once the
 * work it guards has ended. Node 20's AbortSignal.any leaks every signal it links to a long-lived one such as
 * shutdown's.
 */
export function linkSignals(signals: readonly (AbortSignal | undefined)[]): { readonly signal: AbortSignal; unlink(): void } {
  const controller = new AbortController();
  const links = signals.flatMap((signal) => (signal === undefined ? [] : [{ signal, abort: () => controller.abort(signal.reason) }]));
  for (const link of links) {
    if (link.signal.aborted) link.abort();
    else link.signal.addEventListener('abort', link.abort, { once: true });
  }
  return {
    signal: controller.signal,
    unlink: () => {
      for (const link of links) link.signal.removeEventListener('abort', link.abort);
    },
  };
}
