// Reads streamed response bodies as they arrive: NDJSON lines (ingest progress) and SSE `data:` frames (agent runs).

async function* readLines(response: Response): AsyncGenerator<string> {
  if (response.body === null) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += value;
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        yield buffered.slice(0, newline).replace(/\r$/, '');
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
      }
    }
    if (buffered !== '') yield buffered.replace(/\r$/, '');
  } finally {
    reader.releaseLock();
  }
}

/** One parsed JSON value per non-empty line. */
export async function* readNdjson<Line>(response: Response): AsyncGenerator<Line> {
  for await (const line of readLines(response)) {
    if (line.trim() !== '') yield JSON.parse(line) as Line;
  }
}

/** The data of each SSE frame (its `data:` lines joined), JSON-parsed when it is JSON (`[DONE]` stays a string). */
export async function* readSseData(response: Response): AsyncGenerator<unknown> {
  let data: string[] = [];
  const flush = (): unknown => {
    const text = data.join('\n');
    data = [];
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  };
  for await (const line of readLines(response)) {
    if (line === '') {
      if (data.length > 0) yield flush();
    } else if (line.startsWith('data:')) {
      data.push(line.slice(5).replace(/^ /, ''));
    }
    // Comments (":") and other fields (event, id, retry) carry nothing the playground needs.
  }
  if (data.length > 0) yield flush();
}
