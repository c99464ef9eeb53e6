// Pure text handling of a streamed answer: what can be shown yet, and its Sources line (markdown.ts reads the rest).
// No DOM here, so the rules are unit-tested under Node.

const sourcesLabel = 'Sources:';

/**
 * How much of the answer streamed so far can be shown now: everything except trailing whitespace, a trailing
 * citation still being written ("[1" of "[12]"), and a last line that is, or may still become, the Sources line
 * (shown apart once the answer is complete).
 */
export function settledLength(text: string): number {
  let end = text.length;
  const lineStart = text.lastIndexOf('\n') + 1;
  const lastLine = text.slice(lineStart);
  if (lastLine.startsWith(sourcesLabel) || (lastLine !== '' && sourcesLabel.startsWith(lastLine))) end = lineStart;
  const partialCitation = /\[\d*$/.exec(text.slice(0, end));
  if (partialCitation !== null) end = partialCitation.index;
  return text.slice(0, end).trimEnd().length;
}

/** The complete answer split into its body and the labels of its final `Sources:` line (empty for "none"). */
export function splitSources(text: string): { body: string; sources: string[] | undefined } {
  const trimmed = text.trimEnd();
  const lineStart = trimmed.lastIndexOf('\n') + 1;
  const lastLine = trimmed.slice(lineStart);
  if (!lastLine.startsWith(sourcesLabel)) return { body: trimmed, sources: undefined };
  const list = lastLine.slice(sourcesLabel.length).trim();
  return {
    body: trimmed.slice(0, lineStart).trimEnd(),
    sources: list === '' || list.toLowerCase() === 'none' ? [] : list.split(/,\s*/).filter((label) => label !== ''),
  };
}
