// Converts a PDF into Markdown, rebuilding headings, paragraphs and code blocks from text positions and font sizes.
import { getDocumentProxy } from 'unpdf';
import { KnowledgeError } from '../errors.js';
import { codeFence } from '../markdown/markdown-lines.js';
import { checkPdfInflation } from './pdf-inflation-check.js';

export interface PdfMarkdown {
  title: string | null;
  markdown: string;
  pageCount: number;
}

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;
type TextContent = Awaited<ReturnType<Awaited<ReturnType<PdfDocument['getPage']>>['getTextContent']>>;

/** One visual line of a page: all that layout needs, so a page's raw pdf.js items can be dropped at once. */
interface TextLine {
  text: string;
  fontSize: number;
  x: number;
  y: number;
  monospace: boolean;
  characterWidth: number;
}

interface Layout {
  bodySize: number;
  lineSpacing: number;
  headingSizes: number[];
}

type BlockKind = 'heading' | 'paragraph' | 'code' | 'contents-entry';

interface Block {
  kind: BlockKind;
  level: number;
  lines: TextLine[];
  gaps: number[];
}

const headingSizeRatio = 1.15;
const paragraphGapRatio = 1.1;
const maximumHeadingLength = 200;
const pageReferences = String.raw`(?:\d+|[ivxlcdm]+)(?:,\s*(?:\d+|[ivxlcdm]+))*`;
const contentsLeaders = new RegExp(String.raw`(?:(?:\s\.){2,}\s*${pageReferences}|(?:\s\.){4,}|\.{4,}\s*(?:${pageReferences})?)\s*$`, 'i');
const pageNumberOnly = /^(?:page\s*)?(?:\d+|[ivxlcdm]+)(?:\s*(?:\/|of)\s*\d+)?$/i;
const bullet = /^[•◦▪‣●]\s*/u;

export async function pdfToMarkdown(data: Uint8Array): Promise<PdfMarkdown> {
  // pdf.js would hold each stream whole, inflated, outside any heap limit: a compression bomb is refused first.
  await checkPdfInflation(data);
  const pdf = await openDocument(data);
  try {
    const pages: TextLine[][] = [];
    for (let pageNumber = 1; pageNumber <= pdf.numPages; pageNumber++) {
      const page = await pdf.getPage(pageNumber);
      try {
        pages.push(readLines(await page.getTextContent()));
      } finally {
        page.cleanup();
      }
    }
    if (!pages.some((lines) => lines.length > 0)) {
      throw new KnowledgeError('document_unreadable', 'the PDF has no text layer (it may hold only scanned images)');
    }
    const layout = measureLayout(pages);
    const blocks = buildBlocks(dropRunningLines(pages, layout), layout);
    const firstHeading = blocks.find((block) => block.kind === 'heading');
    return {
      title: (await readMetadataTitle(pdf)) ?? (firstHeading ? joinProse(firstHeading.lines) : null),
      markdown: blocks.map((block) => renderBlock(block)).join('\n\n') + '\n',
      pageCount: pdf.numPages,
    };
  } catch (error) {
    if (error instanceof KnowledgeError) throw error;
    throw new KnowledgeError('document_unreadable', 'the PDF could not be read', { cause: error });
  } finally {
    await pdf.destroy();
  }
}

async function openDocument(data: Uint8Array): Promise<PdfDocument> {
  try {
    // pdf.js transfers (detaches) the buffer it is given, so it gets a copy and the caller keeps theirs.
    return await getDocumentProxy(new Uint8Array(data), { verbosity: 0 });
  } catch (error) {
    const encrypted = error instanceof Error && error.name === 'PasswordException';
    const message = encrypted ? 'the PDF is password-protected' : 'the content is not a readable PDF';
    throw new KnowledgeError('document_unreadable', message, { cause: error });
  }
}

async function readMetadataTitle(pdf: PdfDocument): Promise<string | null> {
  try {
    const { info, metadata } = await pdf.getMetadata();
    const candidates: unknown[] = [(info as Record<string, unknown>)['Title'], metadata?.get('dc:title')];
    for (const candidate of candidates) {
      if (typeof candidate !== 'string') continue;
      const title = candidate.replace(/\s+/g, ' ').trim();
      const trivial =
        title.length < 3 ||
        !/\p{L}/u.test(title) ||
        /^(?:untitled|microsoft (?:word|powerpoint|excel)\b)/i.test(title) ||
        /\.(?:pdf|docx?|odt|rtf|tex|dvi|ps|indd|txt)$/i.test(title);
      if (!trivial) return title;
    }
  } catch {
    // A broken metadata stream only costs the title, not the document.
  }
  return null;
}

function readLines(content: TextContent): TextLine[] {
  const lines: TextLine[] = [];
  let line: TextLine | undefined;
  let anchorLength = 0;
  let endX = 0;
  let monospaceCharacters = 0;
  let sizeCharacters = new Map<number, number>();
  const finishLine = (): void => {
    if (!line) return;
    let dominant = 0;
    for (const [size, count] of sizeCharacters) if (count > dominant) [dominant, line.fontSize] = [count, size];
    line.monospace = monospaceCharacters === line.text.replace(/\s/g, '').length;
    lines.push(line);
  };
  for (const item of content.items) {
    if (!('str' in item) || item.str.trim() === '') continue;
    const [, , skewX = 0, scaleY = 0, x = 0, y = 0] = item.transform as number[];
    const fontSize = Math.round(Math.hypot(skewX, scaleY) * 10) / 10;
    const monospace = content.styles[item.fontName]?.fontFamily === 'monospace';
    const characterWidth = item.width / item.str.length;
    const visible = item.str.replace(/\s/g, '').length;
    if (line && Math.abs(y - line.y) <= 0.5 * Math.max(fontSize, line.fontSize)) {
      const gap = x - endX;
      if (gap > 0.15 * fontSize && !/\s$/.test(line.text) && !/^\s/.test(item.str)) {
        const spaces = line.monospace && monospace && characterWidth > 0 ? Math.round(gap / characterWidth) : 1;
        line.text += ' '.repeat(Math.max(1, spaces));
      }
      line.text += item.str;
      line.monospace &&= monospace;
      // Superscripts shift y; the line's baseline is that of its longest piece of text.
      if (visible > anchorLength) [anchorLength, line.y] = [visible, y];
    } else {
      finishLine();
      line = { text: item.str, fontSize, x, y, monospace, characterWidth: monospace ? characterWidth : 0 };
      [anchorLength, monospaceCharacters, sizeCharacters] = [visible, 0, new Map()];
    }
    if (monospace) monospaceCharacters += visible;
    sizeCharacters.set(fontSize, (sizeCharacters.get(fontSize) ?? 0) + visible);
    endX = x + item.width;
  }
  finishLine();
  return lines;
}

function measureLayout(pages: TextLine[][]): Layout {
  const sizeCharacters = new Map<number, number>();
  for (const lines of pages) for (const line of lines) increment(sizeCharacters, line.fontSize, line.text.length);
  // Zero-size text (some invisible layers) must not become the unit every gap is measured in.
  const bodySize = mostCommon(sizeCharacters) || 10;
  const isBody = (line: TextLine): boolean => Math.abs(line.fontSize - bodySize) < 0.05 * bodySize;
  const gaps = new Map<number, number>();
  for (const lines of pages) {
    lines.forEach((line, index) => {
      const previous = lines[index - 1];
      if (!previous || !isBody(line) || !isBody(previous)) return;
      const gap = Math.round((previous.y - line.y) * 10) / 10;
      if (gap > 0.8 * bodySize && gap < 2.5 * bodySize) increment(gaps, gap, 1);
    });
  }
  const headingSizes: number[] = [];
  const candidateSizes = new Set<number>();
  for (const lines of pages) {
    for (const line of lines) if (isHeadingCandidate(line, bodySize)) candidateSizes.add(line.fontSize);
  }
  for (const size of [...candidateSizes].sort((left, right) => right - left)) {
    const smallest = headingSizes[headingSizes.length - 1];
    if (smallest === undefined || size < smallest * 0.96) headingSizes.push(size);
  }
  return { bodySize, lineSpacing: mostCommon(gaps) ?? 1.2 * bodySize, headingSizes };
}

function isHeadingCandidate(line: TextLine, bodySize: number): boolean {
  return (
    line.fontSize >= bodySize * headingSizeRatio &&
    line.text.length <= maximumHeadingLength &&
    /\p{L}/u.test(line.text) &&
    !contentsLeaders.test(line.text)
  );
}

function headingLevel(line: TextLine, layout: Layout): number {
  if (!isHeadingCandidate(line, layout.bodySize)) return 0;
  const index = layout.headingSizes.findIndex((size) => line.fontSize >= size * 0.96);
  return index === -1 ? 0 : Math.min(index + 1, 3);
}

/**
 * Removes page numbers and running headers or footers: a page's top or bottom line that only numbers the page,
 * repeats on several pages once numbers are ignored, or carries the page's own printed number.
 */
function dropRunningLines(pages: TextLine[][], layout: Layout): TextLine[][] {
  const edges = pages.map((lines) => {
    if (lines.length === 0) return [];
    const top = lines.reduce((best, line) => (line.y > best.y ? line : best));
    const bottom = lines.reduce((best, line) => (line.y < best.y ? line : best));
    return [top, bottom].filter((line) => line.fontSize < layout.bodySize * headingSizeRatio);
  });
  const repeatKey = (line: TextLine): string =>
    line.text
      .toLowerCase()
      .replace(/^\s*[ivxlcdm]+\s|\s[ivxlcdm]+\s*$/g, ' ')
      .replace(/[\d\s]+/g, ' ')
      .trim();
  const printedNumber = (line: TextLine): number | undefined => {
    const match = /^\s*(\d+)\s|\s(\d+)(?:\s*(?:\/|of)\s*\d+)?\s*$/i.exec(line.text);
    return match ? Number(match[1] ?? match[2]) : undefined;
  };
  const pagesWithKey = new Map<string, number>();
  const pageNumberOffsets = new Map<number, number>();
  edges.forEach((lines, index) => {
    for (const key of new Set(lines.map(repeatKey))) increment(pagesWithKey, key, 1);
    for (const offset of new Set(lines.map((line) => index + 1 - (printedNumber(line) ?? Number.NaN)))) {
      if (!Number.isNaN(offset)) increment(pageNumberOffsets, offset, 1);
    }
  });
  const offset = mostCommon(pageNumberOffsets);
  const trustedOffset = offset !== undefined && (pageNumberOffsets.get(offset) ?? 0) >= 3 ? offset : undefined;
  return pages.map((lines, index) =>
    lines.filter((line) => {
      if (!edges[index]!.includes(line)) return true;
      const key = repeatKey(line);
      return !(
        pageNumberOnly.test(line.text.trim()) ||
        (/\p{L}{3}/u.test(key) && (pagesWithKey.get(key) ?? 0) >= 3) ||
        (trustedOffset !== undefined && printedNumber(line) === index + 1 - trustedOffset)
      );
    }),
  );
}

function buildBlocks(pages: TextLine[][], layout: Layout): Block[] {
  const blocks: Block[] = [];
  const spacingFor = (size: number): number => (layout.lineSpacing * size) / layout.bodySize;
  const isCloseBelow = (upper: TextLine, lower: TextLine): boolean => {
    const gap = upper.y - lower.y;
    return gap > 0 && gap <= spacingFor(Math.max(upper.fontSize, lower.fontSize)) * paragraphGapRatio;
  };
  // A monospace line with prose indented right under it is a definition-list term, not code.
  const isTerm = (line: TextLine, next: TextLine | undefined): boolean =>
    next !== undefined && !next.monospace && next.x > line.x + line.fontSize && isCloseBelow(line, next);
  for (const lines of pages) {
    let previous: TextLine | undefined;
    for (const [index, line] of lines.entries()) {
      const level = headingLevel(line, layout);
      const kind: BlockKind = contentsLeaders.test(line.text)
        ? 'contents-entry'
        : level > 0
          ? 'heading'
          : line.monospace && !isTerm(line, lines[index + 1])
            ? 'code'
            : 'paragraph';
      const block = blocks[blocks.length - 1];
      const gap = previous ? previous.y - line.y : Number.NaN;
      const spacing = spacingFor(Math.max(line.fontSize, previous?.fontSize ?? 0));
      const withinParagraph = previous !== undefined && isCloseBelow(previous, line);
      let continues = false;
      if (block && block.kind === kind) {
        const last = block.lines[block.lines.length - 1]!;
        const similarSize = Math.abs(last.fontSize - line.fontSize) <= 0.1 * last.fontSize;
        if (kind === 'heading') continues = withinParagraph && similarSize && block.level === level;
        if (kind === 'contents-entry') continues = true;
        if (kind === 'code') continues = previous ? gap > 0 && gap <= spacing * 2.6 : true;
        if (kind === 'paragraph' && similarSize && !bullet.test(line.text)) {
          continues = previous ? withinParagraph : !/[.!?:]["”’)]?$/.test(last.text.trim());
        }
      }
      if (continues && block) {
        block.lines.push(line);
        block.gaps.push(Number.isNaN(gap) ? 1 : gap / spacing);
      } else {
        blocks.push({ kind, level, lines: [line], gaps: [0] });
      }
      previous = line;
    }
  }
  return foldLabelHeadings(blocks);
}

/** Folds a short label heading such as "Chapter 1" into the larger heading right after it. */
function foldLabelHeadings(blocks: Block[]): Block[] {
  return blocks.filter((block, index) => {
    const next = blocks[index + 1];
    const isLabel = block.kind === 'heading' && next?.kind === 'heading' && next.level < block.level && joinProse(block.lines).length <= 30;
    if (isLabel) next.lines.unshift(...block.lines);
    return !isLabel;
  });
}

function renderBlock(block: Block): string {
  if (block.kind === 'heading') return `${'#'.repeat(block.level)} ${joinProse(block.lines)}`;
  if (block.kind === 'contents-entry') {
    return block.lines
      .map(
        (line) =>
          `- ${line.text
            .replace(contentsLeaders, '')
            .replace(/[\s.]+$/, '')
            .replace(/\s+/g, ' ')
            .trim()}`,
      )
      .join('\n');
  }
  if (block.kind === 'code') {
    const left = block.lines.reduce((smallest, line) => Math.min(smallest, line.x), Number.POSITIVE_INFINITY);
    const rows = block.lines.map((line, index) => {
      const blankRows = Math.max(0, Math.round(block.gaps[index]!) - 1);
      const indent = line.characterWidth > 0 ? Math.round((line.x - left) / line.characterWidth) : 0;
      return '\n'.repeat(blankRows) + ' '.repeat(indent) + line.text.trimEnd();
    });
    const fence = codeFence(rows.join('\n'));
    return `${fence}\n${rows.join('\n')}\n${fence}`;
  }
  const text = joinProse(block.lines);
  if (bullet.test(text)) return `- ${text.replace(bullet, '')}`;
  return text.replace(/^([#>]|[-*+] )/, '\\$1');
}

/** Joins wrapped lines into one, mending words the typesetter hyphenated at a line end. */
function joinProse(lines: TextLine[]): string {
  let result = '';
  for (const line of lines) {
    const text = line.text.replace(/\s+/g, ' ').trim();
    if (result === '') result = text;
    else if (/\p{L}-$/u.test(result) && /^\p{Ll}/u.test(text)) result = result.slice(0, -1) + text;
    else result += ` ${text}`;
  }
  return result;
}

function increment<Key>(counts: Map<Key, number>, key: Key, amount: number): void {
  counts.set(key, (counts.get(key) ?? 0) + amount);
}

function mostCommon<Key>(counts: Map<Key, number>): Key | undefined {
  let best: Key | undefined;
  let bestCount = 0;
  for (const [key, count] of counts) if (count > bestCount) [best, bestCount] = [key, count];
  return best;
}
