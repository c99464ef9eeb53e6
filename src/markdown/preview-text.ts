// A chunk's Markdown as a search result's preview shows it: links read as their text, images as their alt text and
// MkDocs autorefs as their text (autorefs.ts); fenced code and code spans stay as they are. A preview is about 300
// characters, and a link's destination would take them: a Vue playground link holds a whole program in base64, and
// previews opened in the middle of one.
import { withoutAutorefTargets } from './autorefs.js';
import { codeSpans, cutByCodeSpan } from './code-context.js';
import { linesAndFences } from './markdown-lines.js';

/** `[text](destination "title")` or `![alt](destination)`: a destination without spaces or parentheses. */
const inlineLink = /(!?)\[([^[\]\n]*)\]\(\s*<?[^\s()<>]*>?(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;

/** One line of prose with its links and images read as their text; a code span that cuts into one keeps it whole. */
export function withoutLinkTargets(line: string): string {
  if (!line.includes('](')) return line;
  const spans = codeSpans(line);
  return line.replace(inlineLink, (whole: string, bang: string, text: string, offset: number) => {
    const textStart = offset + bang.length + 1;
    return cutByCodeSpan(spans, offset, offset + whole.length, textStart, textStart + text.length) ? whole : text;
  });
}

/** Markdown with its prose lines' links, images and autorefs read as their text; fenced code stays as it is. */
export function previewMarkdown(markdown: string): string {
  if (!markdown.includes('](') && !markdown.includes('][')) return markdown;
  return Array.from(linesAndFences(markdown), ({ line, inFence }) =>
    inFence ? line : withoutLinkTargets(withoutAutorefTargets(line)),
  ).join('\n');
}
