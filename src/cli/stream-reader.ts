// Reads streamed response bodies as they arrive: NDJSON lines (ingest progress) and SSE `data:` payloads (/agent).

/** The body's lines, without their line ends, as each one completes; a last line without a line end too. */
export async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of body) {
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) yield line.replace(/\r$/, '');
  }
  pending += decoder.decode();
  if (pending !== '') yield pending.replace(/\r$/, '');
}

/** NDJSON: each non-blank line parsed; a line that is not JSON is an error. */
export async function* readJsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  for await (const line of readLines(body)) {
    if (line.trim() === '') continue;
    yield JSON.parse(line) as unknown;
  }
}

/** Server-Sent Events: the `data` of each event (its `data:` lines joined with newlines), as events complete. */
export async function* readSseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let data: string[] = [];
  for await (const line of readLines(body)) {
    if (line === '') {
      if (data.length > 0) yield data.join('\n');
      data = [];
    } else if (line.startsWith('data:')) {
      data.push(line.slice(5).replace(/^ /, ''));
    }
    // Comments (`:`) and other fields (event, id, retry) carry nothing the Variant 1 format uses.
  }
  if (data.length > 0) yield data.join('\n');
}
