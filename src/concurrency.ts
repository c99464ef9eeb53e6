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
