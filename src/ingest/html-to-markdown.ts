// Turns a fetched HTML page into clean Markdown of its main content, ready for chunking and search.
import type TurndownService from 'turndown';
import { linkedom, readability, turndown, turndownGfm } from './html-libraries.js';
import { KnowledgeError } from '../errors.js';
import { atxHeading, codeFence, linesAndFences } from '../markdown/markdown-lines.js';
import { defaultHtmlLimits, measureHtml, type HtmlLimits } from './html-complexity.js';

export interface HtmlMarkdown {
  title: string | null;
  markdown: string;
}

// The slice of the DOM used here; tsconfig loads no DOM library, so linkedom's types resolve to any.
interface DomParent {
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  getElementsByTagName(tagName: string): ArrayLike<DomElement>;
}
interface DomElement extends DomParent {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  parentNode: DomElement | null;
  childNodes: ArrayLike<unknown>;
  children: ArrayLike<DomElement>;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  hasAttribute(name: string): boolean;
  removeAttribute(name: string): void;
  contains(other: DomElement): boolean;
  append(...nodes: unknown[]): void;
  replaceWith(...nodes: unknown[]): void;
  remove(): void;
}
interface DomDocument extends DomParent {
  documentElement: DomElement | null;
  body: DomElement;
  createElement(tagName: string): DomElement;
}
interface PreparedPage {
  document: DomDocument;
  container: DomElement;
  title: string | null;
  heading: string | null;
}
type ChromeAction = 'remove' | 'unhide' | 'callout';

const chromeTags = new Set(
  'SCRIPT STYLE NOSCRIPT TEMPLATE TITLE META LINK BASE SVG CANVAS IFRAME OBJECT EMBED VIDEO AUDIO PICTURE BUTTON INPUT SELECT TEXTAREA DIALOG NAV FOOTER'.split(
    ' ',
  ),
);
const chromeRoles = new Set(['navigation', 'banner', 'contentinfo', 'search', 'dialog', 'alertdialog']);
const chromeClasses = new Set(
  'headerlink hash-link header-anchor anchorjs-link linenos linenodiv lineno line-numbers-rows toc table-of-contents'.split(' '),
);
const calloutPattern = /note|tip|hint|info|warning|caution|danger|important|admonition|callout/i;
const cookiePattern = /cookie|consent|gdpr/i;
const chromeLinkPattern =
  /^(?:edit (?:this page|this file|page|on github)|improve this (?:page|doc)|suggest (?:an )?edits?|view (?:page )?source|skip to (?:main )?content)$/i;
const titleSeparator = String.raw`\s+(?:[-|–—·»]|::)\s+`;
// Readability's own default threshold: below it, its choice of content is a guess.
const readableMinimumLength = 500;
// Readability slows down steeply with depth (minutes at 1000 levels); real pages stay far below this.
const readableMaximumDepth = 150;
// Private-use characters mark table cells and rows while Turndown assembles them.
const cellMark = '\uE000';
const rowMark = '\uE001';

// Built on the first conversion, not at import: loading Turndown costs start-up time a service that converts no page does not need.
let converter: TurndownService | undefined;

/**
 * Throws `document_too_complex` for a page with more elements or deeper nesting than `limits` allow, before building
 * its DOM: the time and memory that takes grow with both, steeply with depth.
 */
export function htmlToMarkdown(html: string, options: { url?: string; limits?: HtmlLimits } = {}): HtmlMarkdown {
  const limits = options.limits ?? defaultHtmlLimits;
  const { elements, depth } = measureHtml(html, limits);
  if (elements > limits.maxElements) {
    throw new KnowledgeError('document_too_complex', `the page has more than ${limits.maxElements.toLocaleString('en-US')} elements`);
  }
  if (depth > limits.maxDepth) {
    throw new KnowledgeError(
      'document_too_complex',
      `the page nests elements more than ${limits.maxDepth.toLocaleString('en-US')} levels deep`,
    );
  }
  try {
    return convert(html, options.url);
  } catch {
    // Pathological markup (nesting deeper than the call stack) must not fail an ingest; its text still counts.
    return { title: null, markdown: plainText(html) };
  }
}

function convert(html: string, url: string | undefined): HtmlMarkdown {
  const { document, container, title, heading } = preparePage(html, url);
  const isSemantic = container !== document.body;
  const containerLength = visibleLength(container);
  const isTooDeep = nestingDepth(document.body, readableMaximumDepth) > readableMaximumDepth;
  const readable = isTooDeep ? null : readableContent(document);
  // Readability moves and removes nodes of the page it reads, so the fallback needs a fresh copy.
  const content = prefersReadable(readable, containerLength, isSemantic)
    ? readable
    : isTooDeep
      ? container
      : preparePage(html, url).container;
  const markdown = tidy((converter ??= createConverter()).turndown(content));
  return { title, markdown: addTitleHeading(markdown, heading ?? title) };
}

function readableContent(document: DomDocument): DomElement | null {
  try {
    const reader = new (readability().Readability)<DomElement>(document, { keepClasses: true, serializer: (node) => node as DomElement });
    return reader.parse()?.content ?? null;
  } catch {
    // Readability gives up on some markup it cannot walk; the page's main region is still worth converting.
    return null;
  }
}

function preparePage(html: string, url: string | undefined): PreparedPage {
  const document = parseDocument(html.replace(/[\uE000\uE001]/g, ''));
  const metaTitle = metaContent(document, 'og:title') ?? textOf(document.getElementsByTagName('title')[0] ?? null);
  const siteName = metaContent(document, 'og:site_name');
  const baseUrl = resolveUrl(document.querySelector('base[href]')?.getAttribute('href') ?? '', url) ?? url;
  const container = findContainer(document);
  removeChrome(document, container);
  if (baseUrl) resolveLinks(document, baseUrl);
  const heading = textOf(container.getElementsByTagName('h1')[0] ?? document.getElementsByTagName('h1')[0] ?? null);
  return { document, container, title: cleanTitle(metaTitle ?? heading, siteName, heading), heading };
}

function parseDocument(html: string): DomDocument {
  const document: DomDocument = linkedom().parseHTML(html).document;
  if (document.documentElement?.nodeName === 'HTML' && document.getElementsByTagName('body').length) return document;
  // linkedom builds no html and body around a fragment, and Readability needs a body.
  const inner = html.replace(/<\/?(?:!doctype|html|head|body)\b[^>]*>/gi, '');
  return linkedom().parseHTML(`<!doctype html><html><head></head><body>${inner}</body></html>`).document;
}

function findContainer(document: DomDocument): DomElement {
  const articles = document.getElementsByTagName('article');
  const single = articles.length === 1 ? articles[0] : undefined;
  return document.getElementsByTagName('main')[0] ?? document.querySelector('[role=main]') ?? single ?? document.body;
}

function removeChrome(document: DomDocument, container: DomElement): void {
  for (const element of document.querySelectorAll('*')) {
    const action = chromeAction(element);
    if (action === 'unhide') element.removeAttribute('hidden');
    else if (action === 'callout') keepCallout(document, element);
    else if (action === 'remove' && !element.contains(container)) element.remove();
  }
}

function chromeAction(element: DomElement): ChromeAction | null {
  const tag = element.nodeName.toUpperCase();
  if (chromeTags.has(tag)) return 'remove';
  const attribute = (name: string) => element.getAttribute(name) ?? '';
  const role = attribute('role');
  // Inactive tabs are hidden but hold real content (install commands per platform, per language).
  if (element.hasAttribute('hidden')) return role === 'tabpanel' ? 'unhide' : 'remove';
  if (chromeRoles.has(role) || attribute('aria-hidden') === 'true' || attribute('aria-modal') === 'true') return 'remove';
  const className = attribute('class');
  const label = `${className} ${attribute('aria-label')}`;
  if (/display:\s*none/i.test(attribute('style')) || /breadcrumb/i.test(label)) return 'remove';
  if (className.split(/\s+/).some((name) => chromeClasses.has(name))) return 'remove';
  if (tag === 'A') return chromeLinkPattern.test(textOf(element) ?? '') ? 'remove' : null;
  // A page-wide form (ASP.NET wraps whole pages in one) is the page, not a widget.
  if (tag === 'FORM') return element.querySelector('h1, h2') ? null : 'remove';
  if (tag === 'ASIDE' || role === 'complementary') {
    return calloutPattern.test(label) && isInsideMainRegion(element) ? 'callout' : 'remove';
  }
  if (tag === 'HEADER') return isInsideMainRegion(element) ? null : 'remove';
  // Banners sit outside the main region; inside it these names hit sections about cookies.
  const isBlock = tag === 'DIV' || tag === 'SECTION';
  if (isBlock && cookiePattern.test(`${className} ${attribute('id')}`)) return isInsideMainRegion(element) ? null : 'remove';
  return null;
}

function isInsideMainRegion(element: DomElement): boolean {
  for (let node = element.parentNode; node && node.nodeType === 1; node = node.parentNode) {
    if (node.nodeName === 'MAIN' || node.nodeName === 'ARTICLE' || node.getAttribute('role') === 'main') return true;
  }
  return false;
}

// Readability drops every aside, so a callout becomes a div to survive it.
function keepCallout(document: DomDocument, element: DomElement): void {
  const division = document.createElement('div');
  division.setAttribute('class', element.getAttribute('class') ?? '');
  division.append(...Array.from(element.childNodes));
  element.replaceWith(division);
}

function resolveLinks(document: DomDocument, baseUrl: string): void {
  for (const link of document.querySelectorAll('a[href]')) {
    const resolved = resolveUrl(link.getAttribute('href') ?? '', baseUrl);
    if (resolved) link.setAttribute('href', resolved);
  }
}

function resolveUrl(reference: string, baseUrl: string | undefined): string | undefined {
  if (!reference.trim() || /^javascript:/i.test(reference)) return undefined;
  try {
    return new URL(reference, baseUrl).href;
  } catch {
    return undefined;
  }
}

function prefersReadable(readable: DomElement | null, containerLength: number, isSemantic: boolean): readable is DomElement {
  if (!readable) return false;
  if (!isSemantic) return true;
  const readableLength = visibleLength(readable);
  if (readableLength < readableMinimumLength) return readableLength > containerLength;
  // Keeping under half of the page's declared main region means Readability picked one section or a sidebar.
  return readableLength >= containerLength / 2;
}

function nestingDepth(root: DomElement, limit: number): number {
  let deepest = 0;
  const pending: Array<[DomElement, number]> = [[root, 0]];
  for (let next = pending.pop(); next && deepest <= limit; next = pending.pop()) {
    const [element, depth] = next;
    deepest = Math.max(deepest, depth);
    for (const child of Array.from(element.children)) pending.push([child, depth + 1]);
  }
  return deepest;
}

function createConverter(): TurndownService {
  const service = new (turndown())({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    hr: '---',
    br: '',
  });
  service.use(turndownGfm().strikethrough);
  // Images carry nothing for text search: alt text is mostly "screenshot", a file name or a badge label.
  service.addRule('image', { filter: ['img', 'picture'], replacement: () => '' });
  service.addRule('link', {
    filter: 'a',
    replacement: (content, node) => {
      const text = content.replace(/\s+/g, ' ').trim();
      const href = (node.getAttribute('href') ?? '').trim();
      if (!text || !href || /^javascript:/i.test(href)) return text;
      return `[${text}](${href.replace(/\(/g, '%28').replace(/\)/g, '%29').replace(/\s/g, '%20')})`;
    },
  });
  service.addRule('codeBlock', { filter: 'pre', replacement: (_content, node) => codeBlock(node) });
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, node) => {
      const parent = node.parentNode;
      const start = Number.parseInt(parent?.getAttribute('start') ?? '1', 10);
      const number = (Number.isNaN(start) ? 1 : start) + Array.prototype.indexOf.call(parent?.children ?? [], node);
      const prefix = parent?.nodeName === 'OL' ? `${number}. ` : '- ';
      const isParagraph = content.endsWith('\n');
      const body = content.replace(/^\n+|\n+$/g, '') + (isParagraph ? '\n' : '');
      return `${prefix}${body.replace(/\n/g, `\n${' '.repeat(prefix.length)}`)}${node.nextSibling ? '\n' : ''}`;
    },
  });
  service.addRule('tableCell', {
    filter: (node) => ['TD', 'TH'].includes(node.nodeName) && isDataTable(enclosingTable(node)),
    replacement: (content, node) => {
      const span = Math.max(1, Math.min(Number(node.getAttribute('colspan')) || 1, 50));
      return cellMark + content.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|') + cellMark.repeat(span - 1);
    },
  });
  service.addRule('tableRow', {
    filter: (node) => node.nodeName === 'TR' && isDataTable(enclosingTable(node)),
    replacement: (content) => rowMark + content,
  });
  service.addRule('table', {
    filter: (node) => node.nodeName === 'TABLE' && isDataTable(node),
    replacement: (content) => `\n\n${gfmTable(content)}\n\n`,
  });
  return service;
}

function enclosingTable(element: DomElement): DomElement | null {
  let node = element.parentNode;
  while (node && node.nodeName !== 'TABLE') node = node.parentNode;
  return node;
}

// A table holding code or other tables lays out a page or a highlighted listing; it is not data.
const dataTables = new WeakMap<object, boolean>();
function isDataTable(table: DomElement | null): boolean {
  if (!table) return false;
  let known = dataTables.get(table);
  if (known === undefined) {
    known = !table.querySelector('pre, table');
    dataTables.set(table, known);
  }
  return known;
}

function gfmTable(content: string): string {
  const [caption = '', ...rowTexts] = content.split(rowMark);
  const rows = rowTexts.map((row) =>
    row
      .split(cellMark)
      .slice(1)
      .map((cell) => cell.trim()),
  );
  const width = rows.reduce((widest, cells) => Math.max(widest, cells.length), 0);
  if (width === 0) return caption.trim();
  const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, index) => cells[index] ?? '').join(' | ')} |`;
  const [header = [], ...body] = rows.filter((cells) => cells.length > 0);
  const table = [line(header), line(Array(width).fill('---')), ...body.map(line)].join('\n');
  return caption.trim() ? `${caption.trim()}\n\n${table}` : table;
}

function codeBlock(node: DomElement): string {
  // Some highlighters (Docusaurus) end each line with <br> instead of a newline.
  for (const lineBreak of Array.from(node.getElementsByTagName('br'))) lineBreak.replaceWith('\n');
  const code = (node.textContent ?? '').replace(/\n$/, '');
  if (!code.trim()) return '';
  const fence = codeFence(code);
  return `\n\n${fence}${codeLanguage(node)}\n${code}\n${fence}\n\n`;
}

function codeLanguage(pre: DomElement): string {
  const code = pre.getElementsByTagName('code')[0];
  // Sphinx puts the language two levels up: div.highlight-python > div.highlight > pre.
  const parent = pre.parentNode;
  for (const element of [code, pre, parent, parent?.parentNode]) {
    if (element?.nodeType !== 1) continue;
    const explicit = element.getAttribute('data-lang') ?? element.getAttribute('data-language');
    const className = element.getAttribute('class') ?? '';
    const fromClass = /(?:^|\s)(?:language|lang|highlight(?:-source|-text)?)-([\w+#.-]+)/.exec(className)?.[1];
    const language = (explicit ?? fromClass ?? '').trim().toLowerCase();
    if (language && !['default', 'none', 'nohighlight', 'plaintext'].includes(language)) return language;
  }
  return '';
}

function tidy(markdown: string): string {
  const lines: string[] = [];
  for (const { line: raw, inFence } of linesAndFences(markdown)) {
    if (inFence) {
      lines.push(raw);
      continue;
    }
    // Dropped images and inline chrome leave runs of spaces between words; indentation stays.
    const line = raw
      .replace(/\u00a0/g, ' ')
      .replace(/\u200b/g, '')
      .replace(/(\S) {2,}/g, '$1 ')
      .trimEnd();
    if (line === '' && lines.at(-1) === '') continue;
    lines.push(line);
  }
  return lines.join('\n').replace(/^\n+/, '').trimEnd();
}

function addTitleHeading(markdown: string, heading: string | null): string {
  if (!markdown || !heading) return markdown;
  const lineEnd = markdown.indexOf('\n');
  const firstLine = lineEnd === -1 ? markdown : markdown.slice(0, lineEnd);
  const first = atxHeading(firstLine);
  const unescape = (text: string) => text.replace(/\\(.)/g, '$1').trim().toLowerCase();
  if (first !== undefined && unescape(first.text) === unescape(heading)) return `# ${first.text}${markdown.slice(firstLine.length)}`;
  if (first?.level === 1) return markdown;
  return `# ${heading}\n\n${markdown}`;
}

function cleanTitle(title: string | null, siteName: string | null, heading: string | null): string | null {
  if (!title) return heading;
  if (siteName) {
    const name = siteName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const stripped = title
      .replace(new RegExp(`${titleSeparator}${name}$`, 'i'), '')
      .replace(new RegExp(`^${name}${titleSeparator}`, 'i'), '');
    if (stripped && stripped !== title) return stripped;
  }
  if (heading && title.startsWith(heading) && new RegExp(`^${titleSeparator}`).test(title.slice(heading.length))) {
    return heading;
  }
  return title;
}

function metaContent(document: DomDocument, property: string): string | null {
  const meta = document.querySelector(`meta[property="${property}"], meta[name="${property}"]`);
  return normalizeSpace(meta?.getAttribute('content') ?? '');
}

function textOf(element: DomElement | null): string | null {
  return normalizeSpace(element?.textContent ?? '');
}

function normalizeSpace(text: string): string | null {
  return text.replace(/[\s\u200b]+/g, ' ').trim() || null;
}

function visibleLength(element: DomElement): number {
  return (element.textContent ?? '').replace(/\s+/g, '').length;
}

function plainText(html: string): string {
  try {
    const document = parseDocument(html);
    for (const element of document.querySelectorAll('script, style, noscript, template')) element.remove();
    return normalizeSpace(document.body.textContent ?? '') ?? '';
  } catch {
    return '';
  }
}
