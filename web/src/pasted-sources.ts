// What the "URLs or text" box holds: each line that is only an http(s) URL is a URL source (fetched by the service),
// and everything else in the box, kept as written, is one text document beside them.

export type PastedSource =
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'text'; readonly title: string; readonly text: string };

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
  const firstLine =
    text
      .trim()
      .split('\n')[0]
      ?.replace(/^#+\s*/, '')
      .trim() ?? '';
  const title = firstLine === '' ? 'Pasted text' : firstLine;
  return title.length > 80 ? `${title.slice(0, 79)}…` : title;
}

export function parsePasted(value: string): PastedSource[] {
  const lines = value.split('\n');
  const urls = [...new Set(lines.map((line) => line.trim()).filter(isWebAddress))];
  // The text without the URL lines; a URL inside a sentence stays part of the text.
  const text = lines
    .filter((line) => !isWebAddress(line.trim()))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return [
    ...urls.map((url): PastedSource => ({ kind: 'url', url })),
    ...(text === '' ? [] : [{ kind: 'text' as const, title: titleOf(text), text }]),
  ];
}

/** The JSON source the Variant 2 ingest route takes for it. */
export function toRequestSource(source: PastedSource): unknown {
  return source.kind === 'url' ? { type: 'url', value: source.url } : { type: 'markdown', value: source.text, title: source.title };
}

/** What the box will add, in words. */
export function describePasted(sources: readonly PastedSource[]): string {
  if (sources.length === 0) return 'One URL per line, or any text.';
  const urls = sources.filter((source) => source.kind === 'url').length;
  const text = sources.find((source) => source.kind === 'text');
  const parts = [
    ...(urls === 0 ? [] : [urls === 1 ? '1 URL, fetched by the service' : `${urls} URLs, fetched by the service`]),
    ...(text === undefined ? [] : [`text, added as the document "${text.title}"`]),
  ];
  const sentence = parts.join('; and ');
  return `${sentence[0]?.toUpperCase() ?? ''}${sentence.slice(1)}.`;
}
