// Counts a page's elements and measures its nesting from the markup alone, before any DOM is built: building and
// reading the DOM of a hostile page (100,000 nested divs, 392,000 spans) takes the converter seconds and gigabytes.

export interface HtmlLimits {
  readonly maxElements: number;
  readonly maxDepth: number;
}

export interface HtmlComplexity {
  /** Elements counted; once a limit is passed, counting stops, so this is a lower bound. */
  readonly elements: number;
  /** The deepest nesting met (the same lower bound). */
  readonly depth: number;
}

/**
 * Generous for documentation: large reference pages have 10,000-30,000 elements and nest a few dozen levels deep.
 * Converting a page nested 3,000 deep takes ~0.5 s, 10,000 deep ~2 s, 100,000 deep (a hostile page) 15 s.
 */
export const defaultHtmlLimits: HtmlLimits = { maxElements: 100_000, maxDepth: 5_000 };

const voidElements = new Set('area base br col embed hr img input keygen link meta param source track wbr'.split(' '));
// An element of these closes its open predecessor implicitly; not nesting them keeps unclosed ones from adding depth.
const impliedEndElements = new Set('p li dt dd tr td th option optgroup rt rp'.split(' '));
// Their content is text to the parser, whatever it looks like.
const rawTextElements = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'plaintext']);
const markupPattern = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)\b(?:[^>"']|"[^"]*"|'[^']*')*>/g;

/** The page's element count and nesting depth, as an HTML parser would build them (closely enough to bound its work). */
export function measureHtml(html: string, limits: HtmlLimits = defaultHtmlLimits): HtmlComplexity {
  const open: string[] = [];
  const openCounts = new Map<string, number>();
  let elements = 0;
  let depth = 0;
  let lowerCase: string | undefined;
  markupPattern.lastIndex = 0;
  for (let match = markupPattern.exec(html); match !== null; match = markupPattern.exec(html)) {
    const name = match[2]?.toLowerCase();
    if (name === undefined) continue; // a comment
    if (match[1] === '/') {
      // A stray end tag (no such element open) is ignored, as parsers do; otherwise it closes everything inside it.
      if ((openCounts.get(name) ?? 0) === 0) continue;
      for (let closed = open.pop(); closed !== undefined; closed = open.pop()) {
        openCounts.set(closed, (openCounts.get(closed) as number) - 1);
        if (closed === name) break;
      }
      continue;
    }
    elements++;
    if (elements > limits.maxElements) break;
    if (rawTextElements.has(name)) {
      lowerCase ??= html.toLowerCase();
      const end = lowerCase.indexOf(`</${name}`, markupPattern.lastIndex);
      markupPattern.lastIndex = end === -1 ? html.length : end;
      continue;
    }
    if (voidElements.has(name) || impliedEndElements.has(name) || match[0].endsWith('/>')) continue;
    open.push(name);
    openCounts.set(name, (openCounts.get(name) ?? 0) + 1);
    depth = Math.max(depth, open.length);
    if (depth > limits.maxDepth) break;
  }
  return { elements, depth };
}
