// Documentation sites write Markdown with their generator's own syntax (MkDocs, Docusaurus, Sphinx-style extensions):
// heading attributes `{ #anchor }`, include directives `{* file *}`, admonition fences `/// tip`, API-reference
// directives `::: package.Class`, inline HTML (`<abbr title>`, colour spans) and links to sibling pages. Readers,
// rankers and answers see none of it: this turns such Markdown into plain CommonMark, keeping the words it frames.
// Idempotent: plain Markdown passes through unchanged. Fences follow code-context.ts's rules, the chunker's.
import { closesFence, fenceOpening, type FenceOpening } from './code-context.js';

/** `{ #anchor }`, `{: .class }` or `{ #id .class key=value }` at the end of a heading. */
const headingAttributesPattern = /\s*\{:?\s*[#.][^{}]*\}\s*$/;
/** MkDocs snippet includes: `{* ../../docs_src/app.py hl[3] *}`, `{! file.md !}`, `--8<-- "file"`. */
const includePattern = /^\s*(?:\{\*.*\*\}|\{!.*!\}|-{2}8<-{2}.*)\s*$/;
/** `/// tip`, `/// note | Technical Details`, `//// tab | Python 3.10+`, and the closing `///`. */
const blockFencePattern = /^\s*\/{3,}\s*(?:([\w-]+)\s*)?(?:\|\s*(.*?))?\s*$/;
/** `!!! note "Title"` or `??? tip` (collapsible): Python-Markdown admonitions, content indented below. */
const admonitionPattern = /^(\s*)(?:!!!|\?\?\?\+?)\s*([\w-]+)(?:\s+"([^"]*)")?\s*$/;
/** mkdocstrings: `::: fastapi.Request`, with indented options below. */
const apiDirectivePattern = /^\s*:::\s+[\w.:-]+\s*$/;

/** HTML elements that appear inline in documentation prose; anything else in angle brackets is left alone. */
const htmlElements = new Set([
  'a',
  'abbr',
  'b',
  'big',
  'blockquote',
  'br',
  'center',
  'code',
  'del',
  'details',
  'dfn',
  'div',
  'em',
  'figcaption',
  'figure',
  'font',
  'hr',
  'i',
  'img',
  'ins',
  'kbd',
  'mark',
  'p',
  'picture',
  'pre',
  'q',
  's',
  'samp',
  'small',
  'source',
  'span',
  'strike',
  'strong',
  'sub',
  'summary',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'tt',
  'u',
  'var',
  'video',
]);
/** Presentational tags that terminal transcripts in code blocks carry (colours, underlines). */
const presentationalInCode = /<\/?(?:span|font|u|b|strong|em|i)\b[^<>]*>/gi;
const consoleLanguages = new Set(['', 'console', 'bash', 'sh', 'shell', 'shell-session', 'text', 'txt']);

function titleCase(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

/** Inline HTML to Markdown (or to its text), outside code spans. */
function inlineHtml(text: string): string {
  return text
    .replace(/<a\s[^<>]*href="(https?:[^"]+)"[^<>]*>([\s\S]*?)<\/a>/gi, '[$2]($1)')
    .replace(/<(b|strong)>([\s\S]*?)<\/\1>/gi, '**$2**')
    .replace(/<(em|i)>([\s\S]*?)<\/\1>/gi, '*$2*')
    .replace(/<(code|kbd|samp|tt)>([\s\S]*?)<\/\1>/gi, '`$2`')
    .replace(/<img\b[^<>]*>/gi, '')
    .replace(/<br\s*\/?>/gi, ' ')
    .replace(/<\/?([a-z][a-z0-9]*)\b[^<>]*>/gi, (tag, name: string) => (htmlElements.has(name.toLowerCase()) ? '' : tag));
}

/** Links and images that point at sibling files of the site: their text stays, the target goes. */
function relativeLinks(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\((?!https?:|data:)[^)\s]*(?:\s+"[^"]*")?\)/g, '')
    .replace(/(?<!!)\[([^\]]+)\]\((?!https?:|mailto:|#)[^)\s]*(?:\s+"[^"]*")?\)/g, '$1');
}

/** Whether `offset` in a line falls inside an inline code span (after an odd number of backticks). */
const insideCodeSpan = (line: string, offset: number): boolean => (line.slice(0, offset).match(/`/g)?.length ?? 0) % 2 === 1;

/** Relative links whose text holds code ("[`GzipMiddleware`](middleware.md)"): the text stays, the target goes. */
function relativeCodeLinks(line: string): string {
  return line.replace(
    /(?<!!)\[((?:[^\]`]|`[^`]*`)*`[^`]*`(?:[^\]`]|`[^`]*`)*)\]\((?!https?:|mailto:|#)[^)\s]*(?:\s+"[^"]*")?\)/g,
    (link, text: string, offset: number) => (insideCodeSpan(line, offset) ? link : text),
  );
}

export interface DocSiteMarkupOptions {
  /**
   * Also drop the targets of relative links whose text is code. For text that is quoted to a reader (answers); an
   * ingested page keeps them, because the words of the target (a page, an anchor) help ranking it.
   */
  readonly plainCodeLinks?: boolean;
}

/** Applies `transform` to the parts of a line outside inline code spans. */
function outsideCodeSpans(line: string, transform: (text: string) => string): string {
  return line
    .split(/(`+[^`]*`+)/)
    .map((part, index) => (index % 2 === 1 ? part : transform(part)))
    .join('');
}

export function normalizeDocSiteMarkup(markdown: string, options: DocSiteMarkupOptions = {}): string {
  const output: string[] = [];
  let fence: { opening: FenceOpening; console: boolean } | undefined;
  /** Indentation of the content of a `!!!` admonition being read, to dedent it. */
  let admonitionIndent: string | undefined;
  let inApiDirective = false;
  for (const rawLine of markdown.split('\n')) {
    let line = rawLine;
    if (fence !== undefined) {
      output.push(fence.console ? line.replace(presentationalInCode, '') : line);
      if (closesFence(line, fence.opening)) fence = undefined;
      continue;
    }
    if (inApiDirective) {
      if (line.trim() === '' || /^\s/.test(line)) continue;
      inApiDirective = false;
    }
    if (admonitionIndent !== undefined) {
      if (line.startsWith(admonitionIndent)) line = line.slice(admonitionIndent.length);
      else if (line.trim() !== '') admonitionIndent = undefined;
    }
    const opening = fenceOpening(line);
    if (opening !== undefined) {
      const language = opening.info.trim().split(/\s/)[0] ?? '';
      fence = { opening, console: consoleLanguages.has(language.toLowerCase()) };
      output.push(line);
      continue;
    }
    if (includePattern.test(line)) continue;
    if (apiDirectivePattern.test(line)) {
      inApiDirective = true;
      continue;
    }
    const block = blockFencePattern.exec(line);
    if (block !== null) {
      const label = block[2] ?? (block[1] === undefined ? undefined : titleCase(block[1]));
      if (label !== undefined && label !== '') output.push(`**${label}**`, '');
      continue;
    }
    const admonition = admonitionPattern.exec(line);
    if (admonition !== null) {
      admonitionIndent = `${admonition[1] ?? ''}    `;
      output.push(`**${admonition[3] ?? titleCase(admonition[2] as string)}**`, '');
      continue;
    }
    if (/^\s{0,3}#{1,6}\s/.test(line)) line = line.replace(headingAttributesPattern, '');
    line = outsideCodeSpans(line, (text) => relativeLinks(inlineHtml(text)));
    output.push(options.plainCodeLinks === true ? relativeCodeLinks(line) : line);
  }
  // What the removed lines leave behind: runs of blank lines and blank-only lines.
  return output
    .map((line) => (line.trim() === '' ? '' : line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
}
