// Splits a Markdown body into heading-scoped chunks of bounded size, for embedding and BM25 search.
import {
  classifyLine,
  closesFence,
  MarkdownLineClassifier,
  setextUnderlineLevel,
  withoutAttributeLists,
  type FenceOpening,
} from '../markdown/markdown-lines.js';

export interface MarkdownChunk {
  text: string;
  headingPath: string[];
}

export interface ChunkOptions {
  /** Upper bound on a chunk's length in characters; only an indivisible unit may exceed it. */
  maxChars: number;
  /** Characters of trailing context repeated at the start of the next chunk of the same section. */
  overlapChars: number;
}

export const defaultChunkOptions: ChunkOptions = Object.freeze({ maxChars: 1200, overlapChars: 150 });

type ProseStyle = 'paragraph' | 'list' | 'quote' | 'html' | 'break';

type Block =
  /** `overlapLength`: leading characters repeated from the previous chunk, so a cut must go past them. */
  | { kind: 'prose'; style: ProseStyle; text: string; overlapLength: number }
  /**
   * A code block (framed by its fences) or a table (framed by its header rows): `lines[from..]` inside
   * the frame, the first `overlapLines` of them repeated from the previous chunk.
   */
  | {
      kind: 'lines';
      style: 'code' | 'table';
      before: string[];
      after: string[];
      lines: readonly string[];
      from: number;
      overlapLines: number;
    };

interface Section {
  level: number;
  headingPath: string[];
  /** The heading as written (one ATX line or a setext pair); empty for text before the first heading. */
  headingText: string;
  blocks: Block[];
}

interface Boundary {
  headEnd: number;
  restStart: number;
}

type BoundaryKind = 'item' | 'line' | 'sentence' | 'word';

const blockSeparator = '\n\n';
const listMarkerAtPattern = /(?:[*+-]|\d{1,9}[.)])(?:[ \t]|$)/y;
const tableDelimiterCellPattern = /^[ \t]*:?-+:?[ \t]*$/;
/** A heading names a chunk in its heading path with at most this many characters (its chunk holds all of it). */
const headingPathMaxChars = 300;
const wordCharacterPattern = /[\p{L}\p{N}]/u;
const whitespacePattern = /\s*/y;
// Opens a pymdown block such as `/// tip` or `//// tab | Python`; a bare `///` closes one.
const leadInMarkerPattern = /^\/{3,}[ \t]*[^\s/]/;
const leadInMaxChars = 300;
const boundaryPatterns: Record<Exclude<BoundaryKind, 'item'>, RegExp> = {
  line: /\n\s*/g,
  sentence: /([.!?…]["'”’)\]*_`]*)\s+/g,
  word: /\s+/g,
};
const cutPreferences: Record<ProseStyle, BoundaryKind[]> = {
  paragraph: ['sentence', 'line', 'word'],
  list: ['item', 'line', 'sentence', 'word'],
  quote: ['line', 'sentence', 'word'],
  html: ['line', 'word'],
  break: ['word'],
};

export function chunkMarkdown(markdown: string, options: Partial<ChunkOptions> = {}): MarkdownChunk[] {
  const resolved = resolveOptions(options);
  const chunks: MarkdownChunk[] = [];
  // Blocks are cut at sentences, words and lines; what has none of them within a chunk (a word, a code line or a table
  // row longer than a chunk) is cut at the limit itself, so that no chunk is longer than maxChars.
  for (const chunk of packChunks(markdown, resolved)) {
    if (chunk.text.length <= resolved.maxChars) chunks.push(chunk);
    else pushBounded(chunk.text, chunk.headingPath, resolved.maxChars, chunks);
  }
  return chunks;
}

function packChunks(markdown: string, resolved: ChunkOptions): MarkdownChunk[] {
  const sections = parseSections(normalizeLines(markdown));
  const chunks: MarkdownChunk[] = [];
  // Headings carried into the next section's first chunk take at most half a chunk: beyond that (thousands of empty
  // headings in a row) they are a chunk of their own, so no chunk outgrows the limit and nothing is copied over and over.
  const carryLimit = Math.floor(resolved.maxChars / 2);
  let carried: string[] = [];
  let carriedLength = 0;
  const joined = (length: number, part: string) => length + (length === 0 ? 0 : blockSeparator.length) + part.length;
  sections.forEach((section, index) => {
    const context = section.headingText === '' ? carried : [...carried, section.headingText];
    const contextLength = section.headingText === '' ? carriedLength : joined(carriedLength, section.headingText);
    carried = [];
    carriedLength = 0;
    const next = sections[index + 1];
    // A heading with no body of its own (at most an introduction such as "It offers:" or `//// tab | Test`)
    // introduces what follows, so it travels into the next section's first chunk instead of standing alone.
    if (section.level > 0 && next !== undefined && next.level >= section.level && section.blocks.every(isLeadIn)) {
      const introduction = section.blocks.map(renderBlock);
      const length = introduction.reduce(joined, contextLength);
      if (length <= carryLimit) {
        carried = [...context, ...introduction];
        carriedLength = length;
      } else {
        pushBounded([...context, ...introduction].join(blockSeparator), section.headingPath, resolved.maxChars, chunks);
      }
    } else if (section.blocks.length > 0) {
      // A heading longer than the carry limit (one enormous line) is a chunk of its own rather than every chunk's lead.
      if (contextLength > carryLimit) pushBounded(context.join(blockSeparator), section.headingPath, resolved.maxChars, chunks);
      packSection(contextLength > carryLimit ? '' : context.join(blockSeparator), section, resolved, chunks);
    } else if (context.length > 0) {
      pushBounded(context.join(blockSeparator), section.headingPath, resolved.maxChars, chunks);
    }
  });
  return chunks;
}

/**
 * Adds `text` as chunks of at most `maxChars`, cut at the last whitespace before the limit (at the limit when there is
 * none, but never between the two halves of a surrogate pair).
 */
function pushBounded(text: string, headingPath: readonly string[], maxChars: number, output: MarkdownChunk[]): void {
  let rest = text;
  while (rest.length > maxChars) {
    const space = rest.lastIndexOf(' ', maxChars);
    const newline = rest.lastIndexOf('\n', maxChars);
    const cut = Math.max(space, newline) > 0 ? Math.max(space, newline) : cutAt(rest, maxChars).length;
    const piece = rest.slice(0, cut).trimEnd();
    if (piece !== '') output.push({ text: piece, headingPath: [...headingPath] });
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '') output.push({ text: rest, headingPath: [...headingPath] });
}

function resolveOptions(options: Partial<ChunkOptions>): ChunkOptions {
  const maxChars = options.maxChars ?? defaultChunkOptions.maxChars;
  const overlapChars = options.overlapChars ?? defaultChunkOptions.overlapChars;
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`maxChars must be a positive integer, got ${maxChars}`);
  if (!Number.isInteger(overlapChars) || overlapChars < 0 || overlapChars >= maxChars) {
    throw new RangeError(`overlapChars must be an integer from 0 to maxChars - 1, got ${overlapChars}`);
  }
  return { maxChars, overlapChars };
}

function normalizeLines(markdown: string): string[] {
  const lines: string[] = [];
  const unified = markdown.includes('\r') ? markdown.replace(/\r\n?/g, '\n') : markdown;
  for (const rawLine of unified.replace(/^\uFEFF/, '').split('\n')) {
    const line = rawLine.trimEnd();
    if (line === '' && (lines.length === 0 || lines[lines.length - 1] === '')) continue;
    lines.push(line);
  }
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function parseSections(lines: string[]): Section[] {
  const sections: Section[] = [{ level: 0, headingPath: [], headingText: '', blocks: [] }];
  const headingStack: Array<{ level: number; text: string }> = [];
  const open: { kind: Exclude<ProseStyle, 'break'> | 'table' | null; lines: string[] } = { kind: null, lines: [] };
  const currentBlocks = (): Block[] => (sections[sections.length - 1] as Section).blocks;
  const closeOpenBlock = (): void => {
    if (open.kind !== null) currentBlocks().push(makeBlock(open.kind, open.lines));
    open.kind = null;
    open.lines = [];
  };
  const addLine = (kind: NonNullable<typeof open.kind>, line: string): void => {
    if (open.kind !== kind) closeOpenBlock();
    open.kind = kind;
    open.lines.push(line);
  };
  const startSection = (level: number, text: string, headingText: string): void => {
    closeOpenBlock();
    while (headingStack.length > 0 && (headingStack[headingStack.length - 1]?.level ?? 0) >= level) headingStack.pop();
    headingStack.push({ level, text: cutAt(text, headingPathMaxChars) });
    sections.push({ level, headingPath: headingStack.map((heading) => heading.text), headingText, blocks: [] });
  };

  const classifier = new MarkdownLineClassifier();
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] as string;
    const classified = classifier.classify(line);
    if (classified.kind === 'blank') {
      const next = lines[index + 1] ?? '';
      if (open.kind === 'list' && (/^[ \t]/.test(next) || classifier.peek(next).kind === 'list-item')) open.lines.push(line);
      else closeOpenBlock();
      continue;
    }
    if (open.kind === 'html') {
      // An HTML block runs to the next blank line; a `#` line inside it is not a heading.
      open.lines.push(line);
      continue;
    }
    if (classified.kind === 'fence') {
      closeOpenBlock();
      index = readFence(lines, index, classified.fence, currentBlocks());
      continue;
    }
    if (classified.kind === 'heading') {
      startSection(classified.heading.level, withoutAttributeLists(classified.heading.text), line.trim());
      continue;
    }
    const setextLevel = open.kind === 'paragraph' ? setextUnderlineLevel(line) : undefined;
    if (setextLevel !== undefined) {
      const textLines = open.lines;
      open.kind = null;
      open.lines = [];
      startSection(setextLevel, withoutAttributeLists(textLines.join(' ').trim()), [...textLines, line].join('\n'));
      continue;
    }
    if (classified.kind === 'thematic-break') {
      closeOpenBlock();
      currentBlocks().push({ kind: 'prose', style: 'break', text: line, overlapLength: 0 });
    } else if (classified.kind === 'quote') addLine('quote', line);
    else if (classified.kind === 'table-row') addLine('table', line);
    else if (classified.kind === 'list-item') addLine('list', line);
    else if (classified.kind === 'html' && open.kind !== 'paragraph') addLine('html', line);
    else if (open.kind === null || open.kind === 'table') addLine('paragraph', line);
    else open.lines.push(line); // lazy continuation of a paragraph, list item or quote
  }
  closeOpenBlock();
  return sections;
}

/** Reads the fenced code block opened at `start` into `blocks`; returns the index of its last line. */
function readFence(lines: string[], start: number, opening: FenceOpening, blocks: Block[]): number {
  const body: string[] = [];
  for (let index = start + 1; index < lines.length; index += 1) {
    const line = lines[index] as string;
    if (closesFence(line, opening)) {
      blocks.push(codeBlock(lines[start] as string, line, body));
      return index;
    }
    body.push(line);
  }
  // An unterminated fence runs to the end; closing it keeps every chunk valid Markdown.
  blocks.push(codeBlock(lines[start] as string, opening.indent + opening.marker, body));
  return lines.length;
}

function codeBlock(opener: string, closer: string, lines: string[]): Block {
  return { kind: 'lines', style: 'code', before: [opener], after: [closer], lines, from: 0, overlapLines: 0 };
}

function makeBlock(kind: Exclude<ProseStyle, 'break'> | 'table', lines: string[]): Block {
  while (lines[lines.length - 1] === '') lines.pop();
  if (kind !== 'table') return { kind: 'prose', style: kind, text: lines.join('\n'), overlapLength: 0 };
  const headerRows = lines.length >= 2 && isTableDelimiter(lines[1] as string) ? 2 : 0;
  return { kind: 'lines', style: 'table', before: lines.slice(0, headerRows), after: [], lines, from: headerRows, overlapLines: 0 };
}

/** `| --- | :-: |`, cell by cell: one pattern for the whole row overflowed V8's regular-expression stack on a long row. */
function isTableDelimiter(line: string): boolean {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|')) row = row.slice(0, -1);
  return row.split('|').every((cell) => tableDelimiterCellPattern.test(cell));
}

/** The first `maxChars` characters of `text`, never ending between the two halves of a surrogate pair. */
function cutAt(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return text.slice(0, maxChars > 1 && /[\uD800-\uDBFF]/.test(text.charAt(maxChars - 1)) ? maxChars - 1 : maxChars);
}

function renderBlock(block: Block): string {
  return block.kind === 'prose' ? block.text : renderLines(block, block.from, block.lines.length);
}

function renderLines(block: Extract<Block, { kind: 'lines' }>, from: number, end: number): string {
  return [...block.before, ...block.lines.slice(from, end), ...block.after].join('\n');
}

function frameSize(block: Extract<Block, { kind: 'lines' }>): number {
  let size = -1;
  for (const line of block.before) size += line.length + 1;
  for (const line of block.after) size += line.length + 1;
  return size;
}

/** The rendered length of `block`, counted only until it passes `limit`, so huge blocks cost no more than small ones. */
function blockSize(block: Block, limit: number): number {
  if (block.kind === 'prose') return block.text.length;
  let size = frameSize(block);
  for (let index = block.from; index < block.lines.length && size <= limit; index += 1) size += (block.lines[index] as string).length + 1;
  return size;
}

function joinedLength(texts: readonly string[]): number {
  let length = Math.max(0, texts.length - 1) * blockSeparator.length;
  for (const text of texts) length += text.length;
  return length;
}

/** Packs a section's blocks greedily into chunks; only the first chunk carries the heading. */
function packSection(headingText: string, section: Section, options: ChunkOptions, output: MarkdownChunk[]): void {
  const { maxChars, overlapChars } = options;
  const pending = [...section.blocks].reverse();
  let parts: string[] = headingText === '' ? [] : [headingText];
  let bodyBlocks: Block[] = [];
  let startsWithOverlap = false;
  const emit = (): void => {
    output.push({ text: parts.join(blockSeparator), headingPath: [...section.headingPath] });
    parts = [];
    bodyBlocks = [];
    startsWithOverlap = false;
  };

  while (pending.length > 0) {
    const block = pending.pop() as Block;
    const size = blockSize(block, maxChars);
    const room = maxChars - joinedLength(parts) - (parts.length > 0 ? blockSeparator.length : 0);
    const following = pending[pending.length - 1];
    // A closing marker such as `///` stays with the block before it rather than open the next chunk.
    const canMove = bodyBlocks.some((body) => !isLeadIn(body));
    const trailer = following !== undefined && canMove && isWordless(following) ? renderBlock(following) : '';
    const fits = size + (trailer === '' ? 0 : blockSeparator.length + trailer.length) <= room;
    // A block too long for any chunk is split anyway, so its first piece may as well fill this one.
    let cut = !fits && size > maxChars && room >= maxChars / 4 ? cutBlock(block, room, overlapChars) : null;
    if (cut !== null && cut.head.length > room) cut = null;
    const fillsRoom = cut !== null;
    if (fits) {
      parts.push(renderBlock(block));
      bodyBlocks.push(block);
    } else if (bodyBlocks.length > 0 && !fillsRoom) {
      const last = bodyBlocks[bodyBlocks.length - 1] as Block;
      const leadIn = bodyBlocks.length > 1 && isLeadIn(last) ? renderBlock(last) : null;
      // An introduction ("For example:", "/// tip") belongs with the block it introduces.
      const roomAfterLeadIn = maxChars - (leadIn?.length ?? maxChars) - blockSeparator.length;
      const moveLeadIn = leadIn !== null && (size <= roomAfterLeadIn || (size > maxChars && roomAfterLeadIn >= maxChars / 4));
      if (moveLeadIn) {
        parts.pop();
        bodyBlocks.pop();
      }
      const overlap = trailingContext(bodyBlocks, overlapChars);
      emit();
      if (overlap !== null) parts.push(overlap);
      if (moveLeadIn) parts.push(leadIn);
      startsWithOverlap = overlap !== null;
      pending.push(block);
    } else if (startsWithOverlap && !fillsRoom) {
      parts.shift();
      startsWithOverlap = false;
      pending.push(block);
    } else if (block.kind === 'lines' && size <= maxChars && parts.length > 0) {
      // Only the heading keeps this code block or table from fitting: the heading becomes a chunk of its own and the
      // block stays whole in the next one (the block's chunk still names the heading in its heading path).
      emit();
      pending.push(block);
    } else if (room < maxChars / 4) {
      emit();
      pending.push(block);
    } else {
      const { head, rest } = cut ?? cutBlock(block, room, overlapChars);
      parts.push(head);
      emit();
      if (rest !== null) pending.push(rest);
    }
  }
  if (parts.length > 0) emit();
}

function isWordless(block: Block): boolean {
  return block.kind === 'prose' && !wordCharacterPattern.test(block.text);
}

function isLeadIn(block: Block): boolean {
  if (block.kind !== 'prose' || block.style !== 'paragraph' || block.text.length > leadInMaxChars) return false;
  return block.text.endsWith(':') || leadInMarkerPattern.test(block.text);
}

/** The context that opens the next chunk: the tail of the last block that has words in it. */
function trailingContext(blocks: readonly Block[], overlapChars: number): string | null {
  for (let index = blocks.length - 1; index >= 0; index -= 1) {
    const block = blocks[index] as Block;
    if (block.kind === 'lines') {
      if (block.style === 'table') return null;
      const start = tailStart(block.lines, block.from, block.lines.length, overlapChars - frameSize(block) - 1);
      return start < block.lines.length ? renderLines(block, start, block.lines.length) : null;
    }
    if (block.style === 'break' || isWordless(block)) continue;
    const start = overlapStart(block.text, overlapChars, true);
    return start === null ? null : block.text.slice(start);
  }
  return null;
}

/** Where the last lines of `lines[from..end]` that fit in `budget` characters start; never at `from`. */
function tailStart(lines: readonly string[], from: number, end: number, budget: number): number {
  let start = end;
  let size = 0;
  while (start > from + 1 && size + (lines[start - 1] as string).length + 1 <= budget) {
    start -= 1;
    size += (lines[start] as string).length + 1;
  }
  while (start < end && lines[start] === '') start += 1;
  return start;
}

/** Where the repeated tail of `text` starts: a sentence or line start if that gives enough, else a word start. */
function overlapStart(text: string, overlapChars: number, allowWhole: boolean): number | null {
  if (overlapChars <= 0 || text.length === 0) return null;
  if (allowWhole && text.length <= overlapChars) return 0;
  const lowest = Math.max(1, text.length - overlapChars);
  const sentenceStart = minimumOf(firstStartFrom(text, 'sentence', lowest), firstStartFrom(text, 'line', lowest));
  if (sentenceStart !== null && text.length - sentenceStart >= overlapChars / 2) return sentenceStart;
  return firstStartFrom(text, 'word', lowest) ?? sentenceStart;
}

function minimumOf(first: number | null, second: number | null): number | null {
  if (first === null) return second;
  return second === null ? first : Math.min(first, second);
}

function firstStartFrom(text: string, kind: Exclude<BoundaryKind, 'item'>, lowest: number): number | null {
  const pattern = boundaryPatterns[kind];
  pattern.lastIndex = Math.max(0, lowest - 64);
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const restStart = match.index + match[0].length;
    if (restStart >= lowest && restStart < text.length && isSafeStart(text, restStart)) return restStart;
  }
  return null;
}

/**
 * Whether a chunk may start at `position`: not with what a renderer would read as a heading or a fence, and, cut
 * inside a line, not with anything but plain text: a word after "`allow_origin_regex` " would open the chunk as a list
 * item "- A regex string...", an item that names nothing, and answers quoting it drop the option's name.
 */
function isSafeStart(text: string, position: number): boolean {
  // Enough of the line to tell (`###### ` or a fence's marker), and no more, so that a check costs the same on any line.
  const head = text.slice(position, position + 8);
  const kind = classifyLine(head.slice(0, head.includes('\n') ? head.indexOf('\n') : head.length)).kind;
  const midLine = position > 0 && text.charAt(position - 1) !== '\n';
  return midLine ? kind === 'text' : kind !== 'heading' && kind !== 'fence';
}

function cutBlock(block: Block, budget: number, overlapChars: number): { head: string; rest: Block | null } {
  return block.kind === 'prose' ? cutProse(block, budget, overlapChars) : cutLines(block, budget, overlapChars);
}

function cutProse(block: Extract<Block, { kind: 'prose' }>, budget: number, overlapChars: number): { head: string; rest: Block | null } {
  const { text } = block;
  const boundary = findCut(text, budget, block.overlapLength, cutPreferences[block.style]);
  if (boundary === null) return { head: text, rest: null };
  const head = text.slice(0, boundary.headEnd).trimEnd();
  const start = overlapStart(head, overlapChars, false) ?? boundary.restStart;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  // A quote cut mid-line stays a quote in the next chunk.
  const prefix = block.style === 'quote' && text.slice(lineStart, start).trim() !== '' ? '> ' : '';
  const overlapLength = prefix.length + Math.max(0, boundary.headEnd - start);
  return { head, rest: { ...block, text: prefix + text.slice(start), overlapLength } };
}

/** The best cut at or before `budget` that moves past `minimumEnd`, trying coarser boundaries first. */
function findCut(text: string, budget: number, minimumEnd: number, kinds: readonly BoundaryKind[]): Boundary | null {
  const baseIndent = text.length - text.trimStart().length;
  const protectedRanges = inlineFenceRanges(text, budget);
  const allowed = (headEnd: number): boolean => protectedRanges.every(([start, end]) => headEnd <= start || headEnd > end);
  for (const kind of kinds) {
    const boundary = lastBoundary(text, kind, budget, minimumEnd, baseIndent, allowed);
    if (boundary !== null && (boundary.headEnd >= budget / 2 || kind === 'word')) return boundary;
  }
  // Nothing fits: the first word (or the whole text) is an indivisible unit.
  const pattern = boundaryPatterns.word;
  pattern.lastIndex = minimumEnd;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const restStart = match.index + match[0].length;
    const headEnd = match.index;
    if (headEnd <= minimumEnd || restStart >= text.length || !isSafeStart(text, restStart)) continue;
    if (inlineFenceRanges(text, headEnd).every(([start, end]) => headEnd <= start || headEnd > end)) return { headEnd, restStart };
  }
  return null;
}

/**
 * Spans of lines such as "```js``` is inline code" that start like a fence but are not one, up to
 * `limit`: a cut before such a line's last backtick would leave a piece opening a fence it never closes.
 */
function inlineFenceRanges(text: string, limit: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const match of text.slice(0, limit).matchAll(/(?:^|\n)[ \t]*```/g)) {
    const lineEnd = text.indexOf('\n', match.index + 1);
    ranges.push([match.index, text.lastIndexOf('`', lineEnd === -1 ? text.length : lineEnd)]);
  }
  return ranges;
}

function lastBoundary(
  text: string,
  kind: BoundaryKind,
  budget: number,
  minimumEnd: number,
  baseIndent: number,
  allowed: (headEnd: number) => boolean,
): Boundary | null {
  const pattern = boundaryPatterns[kind === 'item' ? 'line' : kind];
  // Only a boundary within the budget counts, so the search never reads further than that.
  const window = text.slice(0, budget + 1);
  pattern.lastIndex = 0;
  let best: Boundary | null = null;
  for (let match = pattern.exec(window); match !== null; match = pattern.exec(window)) {
    const headEnd = match.index + (kind === 'sentence' ? (match[1] as string).length : 0);
    if (headEnd > budget) break;
    whitespacePattern.lastIndex = headEnd;
    whitespacePattern.test(text);
    const restStart = whitespacePattern.lastIndex;
    if (headEnd <= minimumEnd || restStart >= text.length || !isSafeStart(text, restStart) || !allowed(headEnd)) continue;
    if (kind === 'item' && !isListItemAt(text, restStart, baseIndent)) continue;
    best = { headEnd, restStart };
  }
  return best;
}

function isListItemAt(text: string, position: number, baseIndent: number): boolean {
  if (position - (text.lastIndexOf('\n', position - 1) + 1) > baseIndent) return false;
  listMarkerAtPattern.lastIndex = position;
  return listMarkerAtPattern.test(text);
}

/**
 * Splits a code block or table between lines; each piece keeps the frame (fences re-opened with their
 * info string, or the table header repeated) so it stays valid Markdown. Tables repeat no rows.
 */
function cutLines(block: Extract<Block, { kind: 'lines' }>, budget: number, overlapChars: number): { head: string; rest: Block | null } {
  const { lines, from } = block;
  let size = frameSize(block);
  let end = from;
  while (end < lines.length && size + (lines[end] as string).length + 1 <= budget) {
    size += (lines[end] as string).length + 1;
    end += 1;
  }
  // Prefer ending a piece at a blank line (between functions, say) when that still fills half the budget.
  for (let index = end - 1, kept = size; end < lines.length && index > from + block.overlapLines && kept >= budget / 2; index -= 1) {
    kept -= (lines[index] as string).length + 1;
    if (lines[index] === '') {
      end = index;
      break;
    }
  }
  end = Math.max(end, from + block.overlapLines + 1);
  if (end >= lines.length) return { head: renderBlock(block), rest: null };
  let headEnd = end;
  while (headEnd > from + 1 && lines[headEnd - 1] === '') headEnd -= 1;
  const head = renderLines(block, from, headEnd);
  const overlapFrom = block.style === 'code' ? tailStart(lines, from, headEnd, overlapChars) : headEnd;
  if (overlapFrom < headEnd) return { head, rest: { ...block, from: overlapFrom, overlapLines: end - overlapFrom } };
  while (lines[end] === '') end += 1;
  return { head, rest: end < lines.length ? { ...block, from: end, overlapLines: 0 } : null };
}
