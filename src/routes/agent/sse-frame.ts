// The Server-Sent Events frames the JSON wire formats share: one `data:` line of JSON, and the closing `data: [DONE]`.

/** The last frame of the Variant 1, OpenAI and Mastra streams. */
export const doneFrame = 'data: [DONE]\n\n';

export function jsonFrame(payload: unknown): string {
  // JSON.stringify escapes CR and LF, so a frame is always one line.
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** A tool call's arguments as sent (JSON text), parsed; text that is not JSON is kept under `_raw`. */
export function parseToolArguments(text: string): unknown {
  try {
    return JSON.parse(text === '' ? '{}' : text);
  } catch {
    return { _raw: text };
  }
}
