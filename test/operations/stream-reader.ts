// Reads a streamed HTTP response body while it arrives, so a test can act when a stream is part-way through.
import { setTimeout as sleep } from 'node:timers/promises';

export interface StreamReader {
  /** Everything received so far. */
  readonly text: string;
  /** Resolves once the text received so far satisfies `predicate`; rejects after `timeoutMs`. */
  waitFor(predicate: (text: string) => boolean, timeoutMs?: number): Promise<void>;
  /** The whole body, once the stream has ended. */
  readonly done: Promise<string>;
}

export function readStream(response: Response): StreamReader {
  if (response.body === null) throw new Error('the response has no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const done = (async () => {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
    }
  })();
  // Callers await `done` themselves; this only keeps an early failure from being reported as unhandled.
  done.catch(() => {});
  return {
    get text() {
      return text;
    },
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(text)) {
        if (Date.now() > deadline)
          throw new Error(`the stream did not reach the expected point within ${timeoutMs} ms; received:\n${text}`);
        await sleep(10);
      }
    },
    done,
  };
}
