// What a line of Markdown is, by CommonMark's rules: a fence opening or closing, an ATX heading, a thematic break, a
// list item, a quote, a table row, the start of an HTML block, text. The one home of these rules: the chunker, the
// block splitter, doc-site normalisation, front matter, HTML and PDF conversion and the code-context tracker all read
// lines here. Block syntax may be indented three columns at most, counted from the list item the line is in
// (MarkdownLineClassifier follows list items; they are the only containers read: a quote's `>` stays part of its
// line). Each rule reads its line once, without patterns that backtrack, so classifying a document is linear in it.

export interface FenceOpening {
  /** Spaces and tabs before the marker. */
  readonly indent: string;
  /** The run that opened the fence (```, ~~~~, ...); a closing run is of the same character and at least as long. */
  readonly marker: string;
  /** What follows the marker on its line (`python title="main.py"`). */
  readonly info: string;
  /** The column of the list item the fence is in (0 outside lists): its closing line may be indented three past it. */
  readonly container: number;
  /**
   * Where the content of the list item the fence is in starts (absent outside lists): a line indented less that is not
   * blank ends the item, and the fence with it, as CommonMark closes a container's blocks with the container.
   */
  readonly itemContent?: number;
}

export interface AtxHeading {
  /** 1 to 6: the number of `#`. */
  readonly level: number;
  /** The heading's text, without its closing `#`s; empty for a heading of hashes alone. */
  readonly text: string;
}

export type MarkdownLine =
  | { readonly kind: 'blank' | 'thematic-break' | 'quote' | 'table-row' | 'html' | 'text' }
  | { readonly kind: 'fence'; readonly fence: FenceOpening }
  | { readonly kind: 'heading'; readonly heading: AtxHeading }
  /** `contentColumn`: where the item's content starts; lines indented as far belong to the item. */
  | { readonly kind: 'list-item'; readonly contentColumn: number };

// The lines that carry nothing but their kind, shared rather than allocated for every line read.
const blank: MarkdownLine = { kind: 'blank' };
const text: MarkdownLine = { kind: 'text' };
const quote: MarkdownLine = { kind: 'quote' };
const tableRow: MarkdownLine = { kind: 'table-row' };
const html: MarkdownLine = { kind: 'html' };
const thematicBreak: MarkdownLine = { kind: 'thematic-break' };

/** Whether `line` holds nothing but whitespace (the test is cheap for the usual line, which starts with text). */
export const isBlank = (line: string): boolean => line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === '');

/** The number of columns of the line's indentation (a tab to the next multiple of four). */
export function indentWidth(line: string): number {
  return indentation(line).columns;
}

/** `line` without its first `columns` columns of indentation (or all of it, when it has fewer). */
export function dedent(line: string, columns: number): string {
  let width = 0;
  let index = 0;
  while (index < line.length && width < columns) {
    const character = line.charAt(index);
    if (character === ' ') width++;
    else if (character === '\t') width += 4 - (width % 4);
    else break;
    index++;
  }
  return ' '.repeat(Math.max(0, width - columns)) + line.slice(index);
}

const unindented = { length: 0, columns: 0 } as const;

/** Where the indentation from `start` (at column `column`) ends, and the column it reaches. */
function indentation(line: string, start = 0, column = 0): { length: number; columns: number } {
  // Most lines start with their text: no scan, and no object made.
  if (start === 0 && line.charCodeAt(0) > 32) return unindented;
  let columns = column;
  let length = start;
  for (; length < line.length; length++) {
    const character = line.charAt(length);
    if (character === ' ') columns++;
    else if (character === '\t') columns += 4 - (columns % 4);
    else break;
  }
  return { length, columns };
}

/** The end of the run of `character` that starts at `start`. */
function runEnd(line: string, start: number, character: string): number {
  let end = start;
  while (line.charAt(end) === character) end++;
  return end;
}

/**
 * The fence that `line` opens, or undefined: three or more backticks or tildes, indented at most three columns past
 * `container`. A backtick fence's info string holds no backtick, so "```js``` is inline code" opens none.
 */
export function fenceOpening(line: string, container = 0): FenceOpening | undefined {
  const { length, columns } = indentation(line);
  const character = line.charAt(length);
  if (columns - container > 3 || (character !== '`' && character !== '~')) return undefined;
  const end = runEnd(line, length, character);
  if (end - length < 3) return undefined;
  const info = line.slice(end);
  if (character === '`' && info.includes('`')) return undefined;
  return { indent: line.slice(0, length), marker: line.slice(length, end), info, container };
}

/**
 * Whether `line` closes the fence `opening` opened: a run of its character at least as long, then whitespace only,
 * indented at most three columns past the fence's list item (a closing line less indented than the item closes it too,
 * as its author means, where CommonMark would end the item first).
 */
export function closesFence(line: string, opening: FenceOpening): boolean {
  const { length, columns } = indentation(line);
  if (columns - opening.container > 3) return false;
  const end = runEnd(line, length, opening.marker.charAt(0));
  return end - length >= opening.marker.length && isBlank(line.slice(end));
}

/** Whether the non-blank `line` is indented less than the content of the list item the fence is in: the item ends. */
export function endsFenceItem(line: string, opening: FenceOpening): boolean {
  return opening.itemContent !== undefined && !isBlank(line) && indentation(line).columns < opening.itemContent;
}

/**
 * The lines of `markdown` in order, each with whether it is inside fenced code (after its opening fence, up to and
 * including its closing one); the lines outside are read by one classifier, so a fence in a list item is found.
 */
export function* linesAndFences(markdown: string): Generator<{ readonly line: string; readonly inFence: boolean }> {
  const classifier = new MarkdownLineClassifier();
  let fence: FenceOpening | undefined;
  for (const line of markdown.split('\n')) {
    if (fence !== undefined) {
      if (closesFence(line, fence)) fence = undefined;
      yield { line, inFence: true };
      continue;
    }
    const classified = classifier.classify(line);
    if (classified.kind === 'fence') fence = classified.fence;
    yield { line, inFence: false };
  }
}

/** A backtick fence to put around `code` that none of its lines closes: three backticks, or one more than its longest closing line. */
export function codeFence(code: string): string {
  const threeBackticks: FenceOpening = { indent: '', marker: '```', info: '', container: 0 };
  let longest = 2;
  for (const line of code.split('\n')) if (closesFence(line, threeBackticks)) longest = Math.max(longest, line.trim().length);
  return '`'.repeat(longest + 1);
}

/** The ATX heading `line` is (`## Title ##`), or undefined: one to six `#`, then a space, a tab or the line's end. */
export function atxHeading(line: string, container = 0): AtxHeading | undefined {
  const { length, columns } = indentation(line);
  if (columns - container > 3 || line.charAt(length) !== '#') return undefined;
  const end = runEnd(line, length, '#');
  const after = line.charAt(end);
  if (end - length > 6 || (after !== '' && after !== ' ' && after !== '\t')) return undefined;
  return { level: end - length, text: withoutClosingHashes(line.slice(end).trim()) };
}

/** A heading's text without its closing sequence: `#`s after a space, or alone. Scanned from the end, not matched. */
function withoutClosingHashes(text: string): string {
  if (!text.endsWith('#')) return text;
  let end = text.length;
  while (end > 0 && text.charAt(end - 1) === '#') end--;
  const before = text.charAt(end - 1);
  return end === 0 || before === ' ' || before === '\t' ? text.slice(0, end).trimEnd() : text;
}

/**
 * `text` without the attribute lists at its end (`{ #anchor }`, `{: .class }`, `{#id .class key=value}`): MkDocs'
 * and Pandoc's anchors and classes of a heading, never shown.
 */
export function withoutAttributeLists(text: string): string {
  let rest = text.trimEnd();
  while (rest.endsWith('}')) {
    const open = rest.lastIndexOf('{');
    const inner = rest.slice(open + 1, -1);
    if (open === -1 || inner.includes('}') || !/^:?\s*[#.]/.test(inner)) break;
    rest = rest.slice(0, open).trimEnd();
  }
  return rest;
}

/**
 * `---`, `* * *`, `___`: three or more of one of `-`, `*`, `_`, with spaces or tabs only between them. Scanned rather
 * than matched: a backtracking pattern overflowed V8's regular-expression stack on a line of six million `*`.
 */
function isThematicBreak(line: string, start: number): boolean {
  const marker = line.charAt(start);
  let markers = 0;
  for (let index = start; index < line.length; index++) {
    const character = line.charAt(index);
    if (character === marker) markers++;
    else if (character !== ' ' && character !== '\t' && character !== '\r') return false;
  }
  return markers >= 3;
}

/** The level of the setext heading that `line` underlines when it follows a paragraph (`===` 1, `---` 2), or undefined. */
export function setextUnderlineLevel(line: string, container = 0): 1 | 2 | undefined {
  const { length, columns } = indentation(line);
  const character = line.charAt(length);
  if (columns - container > 3 || (character !== '=' && character !== '-')) return undefined;
  return isBlank(line.slice(runEnd(line, length, character))) ? (character === '=' ? 1 : 2) : undefined;
}

/** Where a list item's content starts, when `line` is one from `start` (`-`, `*`, `+`, `1.`, `1)`); else undefined. */
function listItemContent(line: string, start: number, column: number): number | undefined {
  let end = start;
  const character = line.charAt(start);
  if (character === '-' || character === '*' || character === '+') end++;
  else {
    while (end - start < 9 && line.charCodeAt(end) >= 48 && line.charCodeAt(end) <= 57) end++;
    if (end === start || (line.charAt(end) !== '.' && line.charAt(end) !== ')')) return undefined;
    end++;
  }
  const markerEnd = column + end - start;
  const after = indentation(line, end, markerEnd);
  if (after.length === end && end < line.length) return undefined;
  // Content indented five columns or more past the marker is indented code: the item's own column is one past it.
  return after.length === line.length || after.columns - markerEnd > 4 ? markerEnd + 1 : after.columns;
}

/** What `line` is, read `container` columns in (the column of the list item it is in). */
export function classifyLine(line: string, container = 0): MarkdownLine {
  if (isBlank(line)) return blank;
  const { length, columns } = indentation(line);
  return classifyIndented(line, length, columns, container);
}

/** What the non-blank `line`, indented `columns` (`length` characters), is in a list item at `container`. */
function classifyIndented(line: string, length: number, columns: number, container: number): MarkdownLine {
  // Indented four columns past its container, a line is indented code or a paragraph's continuation.
  return columns - container > 3 ? text : classifyContent(line, length, container);
}

/** What the non-blank `line` is, its indentation (`length` characters) allowed, in a list item at `container`. */
function classifyContent(line: string, length: number, container: number): MarkdownLine {
  const character = line.charAt(length);
  switch (character) {
    case '`':
    case '~': {
      const fence = fenceOpening(line, container);
      return fence === undefined ? text : { kind: 'fence', fence };
    }
    case '#': {
      const heading = atxHeading(line, container);
      return heading === undefined ? text : { kind: 'heading', heading };
    }
    case '>':
      return quote;
    case '|':
      return tableRow;
    case '<':
      return /^<\/?[A-Za-z!?]/.test(line.slice(length, length + 3)) ? html : text;
    default: {
      if ((character === '-' || character === '*' || character === '_') && isThematicBreak(line, length)) return thematicBreak;
      const isMarker = character === '-' || character === '*' || character === '+' || (character >= '0' && character <= '9');
      const contentColumn = isMarker ? listItemContent(line, length, indentWidth(line)) : undefined;
      return contentColumn === undefined ? text : { kind: 'list-item', contentColumn };
    }
  }
}

/** An open list item: the lines indented to its content belong to it, and read their block syntax from `blocks`. */
interface ListItem {
  readonly content: number;
  /** Whether anything but its marker was read in it: an item that begins with a blank line ends at the second. */
  hasContent: boolean;
  /**
   * Where block syntax in the item is counted from: its content, or four columns past its marker when that is further
   * (Python-Markdown, which MkDocs sites are written for, indents an item's blocks four columns: `* x` then a fence six
   * columns in is code there, and indented code to CommonMark alone).
   */
  readonly blocks: number;
}

/**
 * Classifies a document's lines in order, each read from the list item it is in: a fence indented four columns under
 * `* item` is a fence, where at the top level it would be indented code. Feed it every line outside fenced code.
 */
/** A list item's line with nothing after its marker. */
const emptyListItem = /^(?:[-+*]|\d{1,9}[.)])$/;

export class MarkdownLineClassifier {
  /** The list items open at the current line, innermost last. */
  private readonly items: ListItem[] = [];
  /** Whether the last line read was paragraph text: only such a line may be continued lazily by a less indented one. */
  private paragraphOpen = false;

  /** What `line` is; it is taken as the next line. */
  classify(line: string): MarkdownLine {
    if (isBlank(line)) {
      this.paragraphOpen = false;
      // CommonMark: a list item can begin with at most one blank line, so `- ` and a blank line end the item.
      while (this.items.length > 0 && !(this.items[this.items.length - 1] as ListItem).hasContent) this.items.pop();
      return blank;
    }
    const { length, columns } = indentation(line);
    const kept = this.itemsKept(line, length, columns);
    while (this.items.length > kept) this.items.pop();
    const item = this.items[kept - 1];
    if (item !== undefined) item.hasContent = true;
    let classified = classifyIndented(line, length, columns, item?.blocks ?? 0);
    if (classified.kind === 'fence' && item !== undefined)
      classified = { kind: 'fence', fence: { ...classified.fence, itemContent: item.content } };
    if (classified.kind === 'list-item') {
      this.items.push({
        content: classified.contentColumn,
        blocks: Math.max(classified.contentColumn, columns + 4),
        hasContent: !emptyListItem.test(line.trim()),
      });
    }
    // An item's first line opens a paragraph when it holds text (`1. ` alone holds none, so the next line leaves it).
    this.paragraphOpen = classified.kind === 'text' || (classified.kind === 'list-item' && !emptyListItem.test(line.trim()));
    return classified;
  }

  /** What `line` would be if it came next (the classifier does not move past it). */
  peek(line: string): MarkdownLine {
    if (isBlank(line)) return blank;
    const { length, columns } = indentation(line);
    return classifyIndented(line, length, columns, this.items[this.itemsKept(line, length, columns) - 1]?.blocks ?? 0);
  }

  /**
   * How many of the open items the non-blank `line` (indented `columns`, `length` characters) stays in. A line
   * indented less than an item's content leaves the item, unless it continues the item's paragraph lazily (text right
   * after paragraph text).
   */
  private itemsKept(line: string, length: number, columns: number): number {
    let kept = this.items.length;
    // Whether the line is text where it stands, worked out once however many items it leaves.
    let isText: boolean | undefined;
    while (kept > 0 && columns < (this.items[kept - 1] as ListItem).content) {
      const outer = this.items[kept - 2]?.blocks ?? 0;
      if (this.paragraphOpen && (columns - outer > 3 || (isText ??= classifyContent(line, length, outer).kind === 'text'))) break;
      kept--;
    }
    return kept;
  }
}

/** `---` alone: a YAML block's first and last line (a document's front matter, a MyST directive's options). */
export const isYamlDelimiter = (line: string): boolean => line.trimEnd() === '---';
