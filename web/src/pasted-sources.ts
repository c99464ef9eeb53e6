// What the "URLs or text" box holds: one URL source per line when every line is an http(s) URL, otherwise the
// whole box is one text document (the service applies the same rule to each Variant 2 string source).

export type PastedSource = { readonly kind: 'url'; readonly url: string } | { readonly kind: 'text'; readonly title: string; readonly text: string };

function isWebAddress(line: string): boolean {
  if (/\s/.test(line)) return false;
  try {
    const { protocol } = new URL(line);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** A title for pasted text: its first line without Markdown heading marks, at most 80 characters. */
function titleOf(text: string): string {
  const firstLine = text.trim().split('\n')[0]?.replace(/^#+\s*/, '').trim() ?? '';
  const title = firstLine === '' ? 'Pasted text' : firstLine;
  return title.length > 80 ? `${title.slice(0, 79)}…` : title;
}

export function parsePasted(value: string): PastedSource[] {
  const lines = value.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  if (lines.length === 0) return [];
  if (lines.every(isWebAddress)) return [...new Set(lines)].map((url) => ({ kind: 'url', url }));
  return [{ kind: 'text', title: titleOf(value), text: value.trim() }];
}

/** The JSON source the Variant 2 ingest route takes for it. */
export function toRequestSource(source: PastedSource): unknown {
  return source.kind === 'url' ? { type: 'url', value: source.url } : { type: 'markdown', value: source.text, title: source.title };
}

/** What the box will add, in words. */
export function describePasted(sources: readonly PastedSource[]): string {
  const first = sources[0];
  if (first === undefined) return 'One URL per line, or any text.';
  if (first.kind === 'text') return `Text, added as the document "${first.title}".`;
  return sources.length === 1 ? '1 URL, fetched by the service.' : `${sources.length} URLs, fetched by the service.`;
}
