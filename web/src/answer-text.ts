// Pure text handling of a streamed answer: what can be shown yet, where its citations are, and its Sources line.
// No DOM here, so the rules are unit-tested under Node.

export type AnswerPart = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'citation'; readonly number: number };

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

/** Text and `[n]` citations in order; `[n]` beyond `snippetCount` (or 0) stays text. */
export function splitCitations(text: string, snippetCount: number): AnswerPart[] {
  const parts: AnswerPart[] = [];
  let last = 0;
  for (const match of text.matchAll(/\[(\d{1,3})\]/g)) {
    const number = Number(match[1]);
    if (number < 1 || number > snippetCount) continue;
    if (match.index > last) parts.push({ kind: 'text', text: text.slice(last, match.index) });
    parts.push({ kind: 'citation', number });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ kind: 'text', text: text.slice(last) });
  return parts;
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
