// The block syntax of documentation generators, one line at a time: what a line opens or closes. Indented blocks
// (MkDocs `!!! note "Title"`, `??? tip`, `=== "Tab"`), fenced containers (`::: tip` of VitePress and Docusaurus, MyST's
// `:::{note}`, pymdownx's `/// tip | Title`), mkdocstrings' `::: package.Class`, includes, MDX's import and export
// statements, raw HTML blocks. CommonMark's own line syntax (fences, headings) is markdown-lines.ts's; the driver is
// doc-site-markup.ts. Each parser reads its line once (anchored patterns or plain scans), so classifying a document is
// linear in it.
import { titleCase } from './inline-constructs.js';
import { reduceInline, type InlineOptions } from './inline-markup.js';
import { isAttributeList } from './inline-syntax.js';
import { atxHeading, fenceOpening, isBlank, withoutAttributeLists } from './markdown-lines.js';

export type BlockMarker =
  /** `!!! kind "Title"`, `???+ kind`, `=== "Tab"`: content indented four columns further below. */
  | { readonly kind: 'indented'; readonly label: string | undefined }
  /** `:::name Title`, `:::{name} Title`, `/// name | Title`, and the lines that close them. */
  | {
      readonly kind: 'open';
      readonly family: 'colon' | 'slash';
      readonly length: number;
      readonly name: string;
      readonly title: string | undefined;
      readonly myst: boolean;
    }
  | { readonly kind: 'close'; readonly family: 'colon' | 'slash'; readonly length: number }
  /**
   * A line that shows nothing: an unresolved include (`{* file *}`, `--8<-- "file"`, `<<< @/file`), `[[toc]]`, an
   * attribute list of the block above it (`{#anchor}`, `{: .class }`).
   */
  | { readonly kind: 'hidden' }
  /** `--8<--` alone: the file names below it, up to the next one, are includes. */
  | { readonly kind: 'include-block' };

/** Admonition kinds: a container of one of these, without a title, is labelled with its kind. */
const asideKinds = new Set(
  (
    'note tip info warning danger caution important details success example abstract summary tldr question help faq ' +
    'failure fail missing bug quote cite hint attention error todo seealso check done'
  ).split(' '),
);

export const isAsideKind = (name: string): boolean => asideKinds.has(name.toLowerCase());

/** The text between the first and the last double quote of `text`, when it is quoted (or undefined). */
function quoted(text: string): string | undefined {
  const trimmed = text.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : undefined;
}

/** `!!! note "Title"`, `??? tip`, `???+ example "Title"`, `!!! info inline end`, `=== "Tab"`, `===+ "Tab"`. */
function indentedMarker(text: string): BlockMarker | undefined {
  const marker = /^(?:!!!|\?\?\?\+?|===[!+]?)/.exec(text)?.[0];
  if (marker === undefined) return undefined;
  const rest = text.slice(marker.length);
  if (marker.startsWith('===')) {
    const label = quoted(rest);
    return label === undefined || !/^\s/.test(rest) ? undefined : { kind: 'indented', label };
  }
  // A kind, modifiers (`inline end`), then an optional quoted title.
  const titleStart = rest.indexOf('"');
  const words = (titleStart === -1 ? rest : rest.slice(0, titleStart)).trim();
  if (!/^[\w-]+(?: +[\w-]+)*$/.test(words)) return undefined;
  if (titleStart === -1) return { kind: 'indented', label: titleCase(words.split(' ')[0] as string) };
  const title = quoted(rest.slice(titleStart));
  if (title === undefined) return undefined;
  return { kind: 'indented', label: title.trim() === '' ? undefined : title };
}

/** `:::`, `::: tip`, `:::warning Title`, `:::tip[Title]`, `:::{note} Title`, `::: code-group`. */
function colonMarker(text: string): BlockMarker | undefined {
  let length = 0;
  while (text.charAt(length) === ':') length++;
  if (length < 3) return undefined;
  const rest = text.slice(length).trim();
  if (rest === '') return { kind: 'close', family: 'colon', length };
  const myst = /^\{([\w:.-]+)\}/.exec(rest);
  const name = myst?.[1] ?? /^[\w.-]+/.exec(rest)?.[0];
  if (name === undefined) return undefined;
  let title = rest.slice(myst?.[0].length ?? name.length).trim();
  // Docusaurus: `:::tip[Title]` or `:::note{title="Title"}`.
  if (title.startsWith('[') && title.endsWith(']')) title = title.slice(1, -1);
  else if (title.startsWith('{') && title.endsWith('}')) title = /title=["']([^"']*)["']/.exec(title)?.[1] ?? '';
  return { kind: 'open', family: 'colon', length, name, title: title.trim() === '' ? undefined : title.trim(), myst: myst !== null };
}

/** `/// tip`, `/// note | Technical Details`, `//// tab | Python 3.10+`, and the closing `///`. */
function slashMarker(text: string): BlockMarker | undefined {
  let length = 0;
  while (text.charAt(length) === '/') length++;
  if (length < 3) return undefined;
  const rest = text.slice(length).trim();
  if (rest === '') return { kind: 'close', family: 'slash', length };
  const bar = rest.indexOf('|');
  const name = (bar === -1 ? rest : rest.slice(0, bar)).trim();
  if (name !== '' && !/^[\w-]+$/.test(name)) return undefined;
  const title = bar === -1 ? undefined : rest.slice(bar + 1).trim();
  return { kind: 'open', family: 'slash', length, name, title: title === '' ? undefined : title, myst: false };
}

/** What `line` (outside code, without the indentation of the blocks it is in) opens or closes, if anything. */
export function blockMarker(line: string): BlockMarker | undefined {
  const text = line.trim();
  switch (text.charAt(0)) {
    case '!':
    case '?':
    case '=':
      return indentedMarker(text);
    case ':':
      return colonMarker(text);
    case '/':
      return slashMarker(text);
    case '{': {
      const include = (text.startsWith('{*') && text.endsWith('*}')) || (text.startsWith('{!') && text.endsWith('!}'));
      return include || (text.endsWith('}') && isAttributeList(text.slice(1, -1))) ? { kind: 'hidden' } : undefined;
    }
    case '-':
      if (text === '--8<--') return { kind: 'include-block' };
      return text.startsWith('--8<--') ? { kind: 'hidden' } : undefined;
    case '<':
      return text.startsWith('<<< ') ? { kind: 'hidden' } : undefined;
    case '[':
      return text === '[[toc]]' ? { kind: 'hidden' } : undefined;
    default:
      return undefined;
  }
}

/** MDX's `import X from './x'` and `export const meta = ...` at the top level: JavaScript, not text. */
export function isModuleStatement(line: string): boolean {
  if (line.startsWith('import')) return /^import\s+(?:[{*'"]|type\s|[\w$]+\s*(?:,|from\s))/.test(line);
  return line.startsWith('export') && /^export\s+(?:[{*]|(?:const|let|var|function|async|class|default|type|interface|enum)\b)/.test(line);
}

/** `<script>` and `<style>` blocks: the page's code and styles, never shown (the element's name, or undefined). */
export function rawHtmlBlock(line: string): string | undefined {
  return /^ {0,3}<(script|style)(?:[\s>]|$)/i.exec(line)?.[1]?.toLowerCase();
}

/** MyST directive options at the top of a directive's content: `:class: tip`, `:name: label`. */
export const isDirectiveOption = (line: string): boolean => /^\s*:[\w-]+:(?:\s|$)/.test(line);

/** MyST directives whose content is code (```{code-block} python), or that show nothing here (```{toctree}). */
export const codeDirectives = new Set([
  'code-block',
  'code',
  'sourcecode',
  'code-cell',
  'math',
  'mermaid',
  'eval-rst',
  'raw',
  'graphviz',
  'plantuml',
]);
export const hiddenDirectives = new Set(['toctree', 'include', 'literalinclude', 'image', 'contents', 'tableofcontents']);

/** MyST's fenced directive: ```{name} argument. */
export function mystDirective(info: string): { name: string; argument: string } | undefined {
  const match = /^\{([\w:.-]+)\}(.*)$/.exec(info.trim());
  return match === null ? undefined : { name: match[1] as string, argument: (match[2] as string).trim() };
}

/** A heading's attributes at its end: `{ #anchor }`, `{: .class }`, `{#id .class key=value}` (any number of them). */
export function withoutHeadingAttributes(line: string): string {
  return line.endsWith('}') && atxHeading(line) !== undefined ? withoutAttributeLists(line) : line;
}

/** Whether `line` (without indentation) is block syntax that doc-site-markup.ts handles as such. */
export function looksLikeConstruct(line: string): boolean {
  const first = line.charAt(0);
  if (first === '`' || first === '~') return fenceOpening(line) !== undefined;
  if (!'{!?=:/-<[ie'.includes(first)) return false;
  return (
    blockMarker(line) !== undefined ||
    rawHtmlBlock(line) !== undefined ||
    isModuleStatement(line) ||
    line.startsWith('<!--') ||
    line.startsWith('{/*') ||
    highlightOpening.test(line)
  );
}

/** A label line: bold text alone. */
export const isLabelLine = (line: string): boolean => /^\s*\*\*[^*\n]+\*\*\s*$/.test(line);
/** Hugo's `{{< highlight go "linenos=table" >}}`: a code block up to `{{< /highlight >}}`. */
export const highlightOpening = /^\s*\{\{[<%]\s*(?:highlight|code)\b(.*?)[>%]\}\}\s*$/;
export const leadingWhitespace = (line: string): string => line.slice(0, line.length - line.trimStart().length);

/**
 * A tag whose attributes run over several lines (`<Tabs` then `groupId="x">`) as one line of text: `text` (line
 * `index`, its inline markup gone) and the lines after it up to the one that holds the tag's `>`, when the tag starts
 * `text`, is one that goes, and no line before its `>` is anything but plain text without a `<`. Every line is judged
 * as it will be written (its inline markup gone), which is what normalising the result again reads, so that it joins
 * exactly what this did not.
 */
export function tagOverLines(
  text: string,
  lines: readonly string[],
  index: number,
  options: InlineOptions,
): { text: string; lastLine: number } | undefined {
  const start = text.trimStart();
  if (!/^<[A-Za-z]/.test(start) || /[<>]/.test(start.slice(1)) || looksLikeConstruct(start)) return undefined;
  const parts = [text];
  for (let next = index + 1; next < lines.length && next <= index + 30; next++) {
    const raw = lines[next] as string;
    if (isBlank(raw) || looksLikeConstruct(raw.trimStart())) return undefined;
    const result = reduceInline(raw.trim(), options);
    const line = result.text;
    const close = line.indexOf('>');
    const open = line.indexOf('<');
    const plain =
      !isBlank(line) && result.openComment === undefined && !(result.labelled === true && isLabelLine(line)) && !looksLikeConstruct(line);
    if (!plain || (open !== -1 && (close === -1 || open < close))) return undefined;
    parts.push(line);
    if (close === -1) continue;
    const joined = parts.join(' ');
    if (reduceInline(joined.slice(0, joined.indexOf('>') + 1), options).text.includes('>')) return undefined;
    return { text: joined, lastLine: next };
  }
  return undefined;
}
