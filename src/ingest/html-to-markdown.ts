// Turns a fetched HTML page into clean Markdown of its main content, ready for chunking and search.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { strikethrough } from 'turndown-plugin-gfm';

export interface HtmlMarkdown {
  title: string | null;
  markdown: string;
}

// The slice of the DOM used here; tsconfig loads no DOM library, so linkedom's types resolve to any.
interface DomElement {
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<unknown>;
  parentNode: DomElement | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  closest(selector: string): DomElement | null;
  contains(other: DomElement): boolean;
  cloneNode(deep: boolean): DomElement;
  append(...nodes: unknown[]): void;
  replaceWith(...nodes: unknown[]): void;
  remove(): void;
}
interface DomDocument {
  documentElement: DomElement | null;
  body: DomElement;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  createElement(tagName: string): DomElement;
}

const junkSelector = [
  'script, style, noscript, template, title, meta, link, base, svg, canvas, iframe, object, embed',
  'video, audio, picture, button, input, select, textarea, dialog, nav, footer',
  '[role=navigation], [role=banner], [role=contentinfo], [role=search], [role=dialog], [role=alertdialog]',
  '[aria-modal=true], [aria-hidden=true], [hidden], [style*="display:none"], [style*="display: none"]',
  '.headerlink, .hash-link, .header-anchor, .anchorjs-link, .linenos, .linenodiv, .lineno, .line-numbers-rows',
  '.toc, #toc, .table-of-contents, [class*=breadcrumb i], [aria-label*=breadcrumb i]',
].join(', ');
const cookieSelector = '[id*=cookie i], [class*=cookie i], [id*=consent i], [class*=consent i], [id*=gdpr i], [class*=gdpr i]';
const semanticSelector = 'main, [role=main], article';
const calloutPattern = /note|tip|hint|info|warning|caution|danger|important|admonition|callout/i;
const chromeLinkPattern =
  /^(?:edit (?:this page|this file|page|on github)|improve this (?:page|doc)|suggest (?:an )?edits?|view (?:page )?source|skip to (?:main )?content)$/i;
const titleSeparator = String.raw`\s+(?:[-|–—·»]|::)\s+`;
// Readability's own default threshold: below it, its choice of content is a guess.
const readableMinimumLength = 500;
// Private-use characters mark table cells and rows while Turndown assembles them.
const cellMark = '\uE000';
const rowMark = '\uE001';

const converter = createConverter();

export function htmlToMarkdown(html: string, options: { url?: string } = {}): HtmlMarkdown {
  try {
    return convert(html, options.url);
  } catch {
    // Pathological markup (nesting deeper than the call stack) must not fail an ingest; its text still counts.
    return { title: null, markdown: plainText(html) };
  }
}

function convert(html: string, url: string | undefined): HtmlMarkdown {
  const document = parseDocument(html.replace(/[\uE000\uE001]/g, ''));
  const metaTitle = metaContent(document, 'og:title') ?? textOf(document.querySelector('title'));
  const siteName = metaContent(document, 'og:site_name');
  const baseUrl = resolveUrl(document.querySelector('base[href]')?.getAttribute('href') ?? '', url) ?? url;
  const container = findContainer(document);
  removeChrome(document, container);
  if (baseUrl) resolveLinks(document, baseUrl);
  const heading = textOf(container.querySelector('h1') ?? document.querySelector('h1'));
  const title = cleanTitle(metaTitle ?? heading, siteName, heading);
  const containerCopy = container.cloneNode(true);
  const article = new Readability<DomElement>(document, {
    keepClasses: true,
    serializer: (node) => node as DomElement,
  }).parse();
  const content = chooseContent(article?.content ?? null, containerCopy, container !== document.body);
  const markdown = tidy(converter.turndown(content));
  return { title, markdown: addTitleHeading(markdown, heading ?? title) };
}

function parseDocument(html: string): DomDocument {
  const document: DomDocument = parseHTML(html).document;
  if (document.documentElement?.nodeName === 'HTML' && document.querySelector('body')) return document;
  // linkedom builds no html and body around a fragment, and Readability needs a body.
  const inner = html.replace(/<\/?(?:!doctype|html|head|body)\b[^>]*>/gi, '');
  return parseHTML(`<!doctype html><html><head></head><body>${inner}</body></html>`).document;
}

function findContainer(document: DomDocument): DomElement {
  const articles = [...document.querySelectorAll('article')];
  const single = articles.length === 1 ? articles[0] : undefined;
  return document.querySelector('main') ?? document.querySelector('[role=main]') ?? single ?? document.body;
}

function removeChrome(document: DomDocument, container: DomElement): void {
  const removable = (element: DomElement) => !element.contains(container);
  // Inactive tabs are hidden but hold real content (install commands per platform, per language).
  for (const panel of document.querySelectorAll('[role=tabpanel][hidden]')) panel.removeAttribute('hidden');
  for (const element of document.querySelectorAll('aside, [role=complementary]')) {
    const label = `${element.getAttribute('class') ?? ''} ${element.getAttribute('aria-label') ?? ''}`;
    if (element.closest(semanticSelector) && calloutPattern.test(label)) keepCallout(document, element);
  }
  for (const element of document.querySelectorAll(`${junkSelector}, aside, [role=complementary]`)) {
    if (removable(element)) element.remove();
  }
  for (const element of document.querySelectorAll('header')) {
    if (!element.closest(semanticSelector) && removable(element)) element.remove();
  }
  // Banners sit outside the main region; inside it these names hit sections about cookies.
  for (const element of document.querySelectorAll(cookieSelector)) {
    const isBlock = ['DIV', 'SECTION', 'FORM'].includes(element.nodeName);
    if (isBlock && !element.closest(semanticSelector) && removable(element)) element.remove();
  }
  // A page-wide form (ASP.NET wraps whole pages in one) is the page, not a widget.
  for (const element of document.querySelectorAll('form')) {
    if (removable(element) && !element.querySelector('h1, h2')) element.remove();
  }
  for (const link of document.querySelectorAll('a')) {
    if (chromeLinkPattern.test(textOf(link) ?? '')) link.remove();
  }
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
  if (!reference || /^javascript:/i.test(reference)) return undefined;
  try {
    return new URL(reference, baseUrl).href;
  } catch {
    return undefined;
  }
}

function chooseContent(readable: DomElement | null, container: DomElement, isSemantic: boolean): DomElement {
  if (!readable) return container;
  if (!isSemantic) return readable;
  const readableLength = visibleLength(readable);
  const containerLength = visibleLength(container);
  if (readableLength < readableMinimumLength) return containerLength >= readableLength ? container : readable;
  // Keeping under half of the page's declared main region means Readability picked one section or a sidebar.
  return readableLength < containerLength / 2 ? container : readable;
}

function createConverter(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    hr: '---',
    br: '',
  });
  service.use(strikethrough);
  // Images carry nothing for text search: alt text is mostly "screenshot", a file name or a badge label.
  service.addRule('image', { filter: ['img', 'picture'], replacement: () => '' });
  service.addRule('link', {
    filter: (node) => node.nodeName === 'A' && Boolean(node.getAttribute('href')),
    replacement: (content, node) => {
      const text = content.replace(/\s+/g, ' ').trim();
      const href = String(node.getAttribute('href'));
      if (!text || /^javascript:/i.test(href)) return text;
      return `[${text}](${href.replace(/\(/g, '%28').replace(/\)/g, '%29').replace(/\s/g, '%20')})`;
    },
  });
  service.addRule('codeBlock', { filter: 'pre', replacement: (_content, node) => codeBlock(node) });
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, node) => {
      const parent = node.parentNode;
      const start = Number(parent?.getAttribute('start') ?? 1);
      const prefix =
        parent?.nodeName === 'OL' ? `${start + Array.prototype.indexOf.call(parent.children, node)}. ` : '- ';
      const isParagraph = content.endsWith('\n');
      const body = content.replace(/^\n+|\n+$/g, '') + (isParagraph ? '\n' : '');
      return `${prefix}${body.replace(/\n/g, `\n${' '.repeat(prefix.length)}`)}${node.nextSibling ? '\n' : ''}`;
    },
  });
  service.addRule('tableCell', {
    filter: (node) => ['TD', 'TH'].includes(node.nodeName) && isDataTable(node.closest('table')),
    replacement: (content, node) => {
      const span = Math.max(1, Math.min(Number(node.getAttribute('colspan')) || 1, 50));
      return cellMark + content.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|') + cellMark.repeat(span - 1);
    },
  });
  service.addRule('tableRow', {
    filter: (node) => node.nodeName === 'TR' && isDataTable(node.closest('table')),
    replacement: (content) => rowMark + content,
  });
  service.addRule('table', {
    filter: (node) => node.nodeName === 'TABLE' && isDataTable(node),
    replacement: (content) => `\n\n${gfmTable(content)}\n\n`,
  });
  return service;
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
  const rows = rowTexts.map((row) => row.split(cellMark).slice(1).map((cell) => cell.trim()));
  const width = Math.max(0, ...rows.map((cells) => cells.length));
  if (width === 0) return caption.trim();
  const line = (cells: string[]) =>
    `| ${Array.from({ length: width }, (_, index) => cells[index] ?? '').join(' | ')} |`;
  const [header = [], ...body] = rows.filter((cells) => cells.length > 0);
  const table = [line(header), line(Array(width).fill('---')), ...body.map(line)].join('\n');
  return caption.trim() ? `${caption.trim()}\n\n${table}` : table;
}

function codeBlock(node: DomElement): string {
  // Some highlighters (Docusaurus) end each line with <br> instead of a newline.
  for (const lineBreak of node.querySelectorAll('br')) lineBreak.replaceWith('\n');
  const code = (node.textContent ?? '').replace(/\n$/, '');
  if (!code.trim()) return '';
  const longestFence = Math.max(2, ...(code.match(/^`{3,}/gm) ?? []).map((fence) => fence.length));
  const fence = '`'.repeat(longestFence + 1);
  return `\n\n${fence}${codeLanguage(node)}\n${code}\n${fence}\n\n`;
}

function codeLanguage(pre: DomElement): string {
  const code = pre.querySelector('code');
  // Sphinx puts the language two levels up: div.highlight-python > div.highlight > pre.
  const parent = pre.parentNode;
  for (const element of [code, pre, parent, parent?.parentNode]) {
    if (!element?.getAttribute) continue;
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
  let fence: string | null = null;
  for (const raw of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (fence) {
      lines.push(raw);
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && raw.trim() === marker) fence = null;
      continue;
    }
    if (marker) fence = marker;
    const line = raw.replace(/\u00a0/g, ' ').replace(/\u200b/g, '').trimEnd();
    if (line === '' && lines.at(-1) === '') continue;
    lines.push(line);
  }
  return lines.join('\n').replace(/^\n+/, '').trimEnd();
}

function addTitleHeading(markdown: string, heading: string | null): string {
  if (!markdown || !heading) return markdown;
  const first = /^(#{1,6}) (.*)/.exec(markdown);
  const unescape = (text: string) => text.replace(/\\(.)/g, '$1').trim().toLowerCase();
  if (first && unescape(first[2] ?? '') === unescape(heading)) return markdown.replace(/^#{1,6} /, '# ');
  if (first?.[1] === '#') return markdown;
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
