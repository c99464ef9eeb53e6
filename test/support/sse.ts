// Reads Server-Sent Event streams in tests: the `data:` payloads of each frame, in order.

/** Splits an SSE body into the data payloads of its frames (JSON parsed where possible). */
export function parseSseData(body: string): unknown[] {
  return body
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      try {
        return JSON.parse(data);
      } catch {
        return data;
      }
    });
}

/** The answer text of a Variant 1 stream: its text_message deltas joined. */
export function variant1Answer(events: readonly unknown[]): string {
  return events
    .filter((event): event is { type: 'text_message'; delta: string } => (event as { type?: string })?.type === 'text_message')
    .map((event) => event.delta)
    .join('');
}
