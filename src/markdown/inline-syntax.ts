// Scanners of inline syntax that inline-markup.ts runs at a trigger: the content of an attribute list (`{: #id .class
// key="value" }`), and where each HTML closing tag of a line is. Each reads its text once.
import type { CodeSpan } from './code-context.js';

/** An attribute list's content: `#id`, `.class` and `key=value` items (the value quoted or not), one or more. */
export function isAttributeList(text: string): boolean {
  let index = text.trimStart().startsWith(':') ? text.indexOf(':') + 1 : 0;
  let items = 0;
  while (index < text.length) {
    if (/\s/.test(text.charAt(index))) {
      index++;
      continue;
    }
    const prefixed = text.charAt(index) === '#' || text.charAt(index) === '.';
    const start = prefixed ? index + 1 : index;
    index = start;
    while (index < text.length && /[\w:-]/.test(text.charAt(index))) index++;
    if (index === start) return false;
    if (!prefixed) {
      if (text.charAt(index) !== '=') return false;
      const quote = text.charAt(++index);
      if (quote === '"' || quote === "'") {
        const close = text.indexOf(quote, index + 1);
        if (close === -1) return false;
        index = close + 1;
      } else {
        const valueStart = index;
        while (index < text.length && !/[\s"'=]/.test(text.charAt(index))) index++;
        if (index === valueStart) return false;
      }
    }
    if (index < text.length && !/\s/.test(text.charAt(index))) return false;
    items++;
  }
  return items > 0;
}

/** The last position of each `</name>` outside code spans. */
export function closingTags(line: string, spans: readonly CodeSpan[]): Map<string, number> {
  const closers = new Map<string, number>();
  let spanIndex = 0;
  for (let index = line.indexOf('</'); index !== -1; index = line.indexOf('</', index + 2)) {
    while (spanIndex < spans.length && (spans[spanIndex] as CodeSpan).end <= index) spanIndex++;
    const span = spans[spanIndex];
    if (span !== undefined && span.start <= index) continue;
    const name = /^[A-Za-z]{1,10}>/.exec(line.slice(index + 2, index + 13))?.[0];
    if (name !== undefined) closers.set(name.slice(0, -1).toLowerCase(), index);
  }
  return closers;
}
