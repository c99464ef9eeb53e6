// Splits a Markdown body into heading-scoped chunks of bounded size, for embedding and BM25 search.

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

type ProseStyle = 'paragraph' | 'list' | 'quote' | 'break';

type Block =
  /** `overlapLength`: leading characters repeated from the previous chunk, so a cut must go past them. */
  | { kind: 'prose'; style: ProseStyle; text: string; overlapLength: number }
  | { kind: 'code'; opener: string; closer: string; lines: string[]; overlapLines: number }
  | { kind: 'table'; header: string[]; rows: string[] };

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
const fenceOpenerPattern = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
const atxHeadingPattern = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;
const setextUnderlinePattern = /^ {0,3}(?:=+|-+)$/;
const thematicBreakPattern = /^ {0,3}([-*_])(?:[ \t]*\1){2,}$/;
const listItemPattern = /^[ \t]*(?:[*+-]|\d{1,9}[.)])(?:[ \t]|$)/;
const listMarkerAtPattern = /(?:[*+-]|\d{1,9}[.)])(?:[ \t]|$)/y;
const quotePattern = /^ {0,3}>/;
const listMarkers = '*+-0123456789';
const tableDelimiterPattern = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?$/;
const headingAttributesPattern = /[ \t]*\{:?[ \t]*[#.][^{}]*\}$/;
const closingHashesPattern = /(?:^|[ \t]+)#+$/;
// A chunk that starts mid-line must not start with something a renderer would read as a heading or fence.
const unsafeStartPattern = /(?:#{1,6}(?:[ \t]|$)|`{3}|~{3})/y;
const wordCharacterPattern = /[\p{L}\p{N}]/u;
const leadInMarkerPattern = /^\/{3,}[ \t]*\S/;
const leadInMaxChars = 300;
const boundaryPatterns: Record<Exclude<BoundaryKind, 'item'>, RegExp> = {
  line: /\n[ \t]*/g,
  sentence: /([.!?…]["'”’)\]*_`]*)\s+/g,
  word: /\s+/g,
};
const cutPreferences: Record<ProseStyle, BoundaryKind[]> = {
  paragraph: ['sentence', 'line', 'word'],
  list: ['item', 'line', 'sentence', 'word'],
  quote: ['line', 'sentence', 'word'],
  break: ['word'],
};

export function chunkMarkdown(markdown: string, options: Partial<ChunkOptions> = {}): MarkdownChunk[] {
  const resolved = resolveOptions(options);
  const sections = parseSections(normalizeLines(markdown));
  const chunks: MarkdownChunk[] = [];
  let carried: string[] = [];
  sections.forEach((section, index) => {
    const context = section.headingText === '' ? carried : [...carried, section.headingText];
    carried = [];
    const next = sections[index + 1];
    // A heading with no body of its own (at most an opener such as `//// tab | Test`) introduces what
    // follows, so it travels into the next section's first chunk instead of becoming a chunk of its own.
    if (section.level > 0 && next !== undefined && next.level >= section.level && section.blocks.every(isBareOpener)) {
      carried = [...context, ...section.blocks.map(renderBlock)];
    } else if (section.blocks.length > 0) {
      packSection(context.join(blockSeparator), section, resolved, chunks);
    } else if (context.length > 0) {
      chunks.push({ text: context.join(blockSeparator), headingPath: [...section.headingPath] });
    }
  });
  return chunks;
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
    headingStack.push({ level, text });
    sections.push({ level, headingPath: headingStack.map((heading) => heading.text), headingText, blocks: [] });
  };

  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] as string;
    if (line === '') {
      const next = lines[index + 1] ?? '';
      if (open.kind === 'list' && (/^[ \t]/.test(next) || listItemPattern.test(next))) open.lines.push(line);
      else closeOpenBlock();
      continue;
    }
    // The first visible character rules out most patterns, which keeps plain text lines cheap.
    const marker = line.charAt(line.length - line.trimStart().length);
    const fence = marker === '`' || marker === '~' ? fenceOpenerPattern.exec(line) : null;
    if (fence !== null && !((fence[2] as string).startsWith('`') && (fence[3] as string).includes('`'))) {
      closeOpenBlock();
      index = readFence(lines, index, fence[1] as string, fence[2] as string, currentBlocks());
      continue;
    }
    const atxHeading = marker === '#' ? atxHeadingPattern.exec(line) : null;
    if (atxHeading !== null) {
      startSection((atxHeading[1] as string).length, cleanHeadingText(atxHeading[2] ?? ''), line.trim());
      continue;
    }
    if (open.kind === 'paragraph' && (marker === '=' || marker === '-') && setextUnderlinePattern.test(line)) {
      const textLines = open.lines;
      open.kind = null;
      open.lines = [];
      const level = line.trim().startsWith('=') ? 1 : 2;
      startSection(level, cleanHeadingText(textLines.join(' ')), [...textLines, line].join('\n'));
      continue;
    }
    if ('-*_'.includes(marker) && thematicBreakPattern.test(line)) {
      closeOpenBlock();
      currentBlocks().push({ kind: 'prose', style: 'break', text: line, overlapLength: 0 });
    } else if (marker === '>' && quotePattern.test(line)) addLine('quote', line);
    else if (marker === '|') addLine('table', line);
    else if (listMarkers.includes(marker) && listItemPattern.test(line)) addLine('list', line);
    else if (open.kind === null || open.kind === 'table') addLine('paragraph', line);
    else open.lines.push(line); // lazy continuation of a paragraph, list item or quote
  }
  closeOpenBlock();
  return sections;
}

/** Reads the fenced code block opened at `start` into `blocks`; returns the index of its last line. */
function readFence(lines: string[], start: number, indent: string, marker: string, blocks: Block[]): number {
  const closerPattern = marker.startsWith('`') ? /^[ \t]*(`{3,})$/ : /^[ \t]*(~{3,})$/;
  const body: string[] = [];
  for (let index = start + 1; index < lines.length; index += 1) {
    const line = lines[index] as string;
    const closer = closerPattern.exec(line);
    if (closer !== null && (closer[1] as string).length >= marker.length) {
      blocks.push({ kind: 'code', opener: lines[start] as string, closer: line, lines: body, overlapLines: 0 });
      return index;
    }
    body.push(line);
  }
  // An unterminated fence runs to the end; closing it keeps every chunk valid Markdown.
  blocks.push({ kind: 'code', opener: lines[start] as string, closer: indent + marker, lines: body, overlapLines: 0 });
  return lines.length;
}

function makeBlock(kind: Exclude<ProseStyle, 'break'> | 'table', lines: string[]): Block {
  while (lines[lines.length - 1] === '') lines.pop();
  if (kind !== 'table') return { kind: 'prose', style: kind, text: lines.join('\n'), overlapLength: 0 };
  const hasHeader = lines.length >= 2 && tableDelimiterPattern.test(lines[1] as string);
  return { kind: 'table', header: hasHeader ? lines.slice(0, 2) : [], rows: hasHeader ? lines.slice(2) : lines };
}

function cleanHeadingText(text: string): string {
  let cleaned = text.trim();
  if (cleaned.endsWith('#')) cleaned = cleaned.replace(closingHashesPattern, '');
  if (cleaned.endsWith('}')) cleaned = cleaned.replace(headingAttributesPattern, '');
  return cleaned.trim();
}

function renderBlock(block: Block): string {
  if (block.kind === 'prose') return block.text;
  if (block.kind === 'code') return [block.opener, ...block.lines, block.closer].join('\n');
  return [...block.header, ...block.rows].join('\n');
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
    const text = renderBlock(block);
    const room = maxChars - joinedLength(parts) - (parts.length > 0 ? blockSeparator.length : 0);
    const following = pending[pending.length - 1];
    // A closing marker such as `///` stays with the block before it rather than open a chunk alone.
    const trailer = following !== undefined && bodyBlocks.length > 0 && isWordless(following) ? renderBlock(following) : '';
    const fits = text.length + (trailer === '' ? 0 : blockSeparator.length + trailer.length) <= room;
    // A block too long for any chunk is split anyway, so its first piece may as well fill this one.
    const fillsRoom = text.length > maxChars && room >= maxChars / 4;
    if (fits) {
      parts.push(text);
      bodyBlocks.push(block);
    } else if (bodyBlocks.length > 0 && !fillsRoom) {
      const last = bodyBlocks[bodyBlocks.length - 1] as Block;
      const leadIn = bodyBlocks.length > 1 && isLeadIn(last) ? renderBlock(last) : null;
      // An introduction ("For example:", "/// tip") belongs with the block it introduces.
      const moveLeadIn = leadIn !== null && leadIn.length + blockSeparator.length + text.length <= maxChars;
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
    } else if (block.kind !== 'prose' && text.length <= maxChars) {
      // Only the heading keeps this code block or table from fitting; splitting it would cost more than the overrun.
      parts.push(text);
      bodyBlocks.push(block);
    } else if (room < maxChars / 4) {
      emit();
      pending.push(block);
    } else {
      const { head, rest } = cutBlock(block, room, overlapChars);
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

function isBareOpener(block: Block): boolean {
  return block.kind === 'prose' && block.style === 'paragraph' && !block.text.includes('\n') && leadInMarkerPattern.test(block.text);
}

function isLeadIn(block: Block): boolean {
  if (block.kind !== 'prose' || block.style !== 'paragraph' || block.text.length > leadInMaxChars) return false;
  return block.text.endsWith(':') || leadInMarkerPattern.test(block.text);
}

/** The context that opens the next chunk: the tail of the last block that has words in it. */
function trailingContext(blocks: readonly Block[], overlapChars: number): string | null {
  for (let index = blocks.length - 1; index >= 0; index -= 1) {
    const block = blocks[index] as Block;
    if (block.kind === 'table') return null;
    if (block.kind === 'code') {
      const lines = codeTail(block.lines, overlapChars - block.opener.length - block.closer.length - 2);
      return lines.length === 0 ? null : renderBlock({ ...block, lines });
    }
    if (block.style === 'break' || isWordless(block)) continue;
    const start = overlapStart(block.text, overlapChars, true);
    return start === null ? null : block.text.slice(start);
  }
  return null;
}

/** The last lines of `lines` within `budget` characters, never all of them. */
function codeTail(lines: readonly string[], budget: number): string[] {
  let start = lines.length;
  let size = 0;
  while (start > 1 && size + (lines[start - 1] as string).length + 1 <= budget) {
    start -= 1;
    size += (lines[start] as string).length + 1;
  }
  while (start < lines.length && lines[start] === '') start += 1;
  return lines.slice(start);
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

function isSafeStart(text: string, position: number): boolean {
  unsafeStartPattern.lastIndex = position;
  return !unsafeStartPattern.test(text);
}

function cutBlock(block: Block, budget: number, overlapChars: number): { head: string; rest: Block | null } {
  if (block.kind === 'code') return cutCode(block, budget, overlapChars);
  if (block.kind === 'table') return cutTable(block, budget);
  return cutProse(block, budget, overlapChars);
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
  for (const kind of kinds) {
    const boundary = lastBoundary(text, kind, budget, minimumEnd, baseIndent);
    if (boundary !== null && (boundary.headEnd >= budget / 2 || kind === 'word')) return boundary;
  }
  // Nothing fits: the first word (or the whole text) is an indivisible unit.
  const pattern = boundaryPatterns.word;
  pattern.lastIndex = minimumEnd;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const restStart = match.index + match[0].length;
    if (match.index > minimumEnd && restStart < text.length && isSafeStart(text, restStart)) return { headEnd: match.index, restStart };
  }
  return null;
}

function lastBoundary(text: string, kind: BoundaryKind, budget: number, minimumEnd: number, baseIndent: number): Boundary | null {
  const pattern = boundaryPatterns[kind === 'item' ? 'line' : kind];
  pattern.lastIndex = 0;
  let best: Boundary | null = null;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const headEnd = match.index + (kind === 'sentence' ? (match[1] as string).length : 0);
    if (headEnd > budget) break;
    const restStart = match.index + match[0].length;
    if (headEnd <= minimumEnd || restStart >= text.length || !isSafeStart(text, restStart)) continue;
    if (kind === 'item' && !isListItemAt(text, restStart, match[0].length - 1, baseIndent)) continue;
    best = { headEnd, restStart };
  }
  return best;
}

function isListItemAt(text: string, position: number, indent: number, baseIndent: number): boolean {
  if (indent > baseIndent) return false;
  listMarkerAtPattern.lastIndex = position;
  return listMarkerAtPattern.test(text);
}

function cutCode(block: Extract<Block, { kind: 'code' }>, budget: number, overlapChars: number): { head: string; rest: Block | null } {
  const { lines } = block;
  let size = block.opener.length + block.closer.length + 1;
  let count = 0;
  while (count < lines.length && size + (lines[count] as string).length + 1 <= budget) {
    size += (lines[count] as string).length + 1;
    count += 1;
  }
  // Prefer ending a piece at a blank line (between functions, say) when that still fills half the budget.
  for (let index = count - 1, kept = size; count < lines.length && index > block.overlapLines && kept >= budget / 2; index -= 1) {
    kept -= (lines[index] as string).length + 1;
    if (lines[index] === '') {
      count = index;
      break;
    }
  }
  count = Math.max(count, block.overlapLines + 1);
  if (count >= lines.length) return { head: renderBlock(block), rest: null };
  const headLines = lines.slice(0, count);
  while (headLines.length > 1 && headLines[headLines.length - 1] === '') headLines.pop();
  const overlapLines = codeTail(headLines, overlapChars);
  let restStart = count;
  if (overlapLines.length === 0) while (lines[restStart] === '') restStart += 1;
  if (restStart >= lines.length) return { head: renderBlock({ ...block, lines: headLines }), rest: null };
  const rest = { ...block, lines: [...overlapLines, ...lines.slice(restStart)], overlapLines: overlapLines.length };
  return { head: renderBlock({ ...block, lines: headLines }), rest };
}

/** Splits a table between rows; every piece repeats the header so it stays a table. Rows are not repeated. */
function cutTable(block: Extract<Block, { kind: 'table' }>, budget: number): { head: string; rest: Block | null } {
  let size = block.header.reduce((total, line) => total + line.length + 1, 0);
  let count = 0;
  while (count < block.rows.length && size + (block.rows[count] as string).length + 1 <= budget) {
    size += (block.rows[count] as string).length + 1;
    count += 1;
  }
  count = Math.max(count, 1);
  if (count >= block.rows.length) return { head: renderBlock(block), rest: null };
  const head = renderBlock({ ...block, rows: block.rows.slice(0, count) });
  return { head, rest: { ...block, rows: block.rows.slice(count) } };
}
