// Splits Markdown into its top-level blocks (headings, paragraphs, lists, quotes, tables, code blocks, rules), so a passage
// can be quoted whole: a code block is never cut, a list keeps its items together. Lines are read by markdown-lines.ts,
// as the chunker reads them.
import { closesFence, MarkdownLineClassifier, type MarkdownLine } from './markdown-lines.js';

/** `rule` is a thematic break (`---`, `***`): it separates parts and says nothing. */
export type BlockKind = 'heading' | 'paragraph' | 'list' | 'quote' | 'table' | 'code' | 'rule';

export interface MarkdownBlock {
  readonly kind: BlockKind;
  /** The block as written, without surrounding blank lines. */
  readonly text: string;
}

const blockKinds: Partial<Record<MarkdownLine['kind'], Exclude<BlockKind, 'code'>>> = {
  heading: 'heading',
  'thematic-break': 'rule',
  'list-item': 'list',
  quote: 'quote',
  'table-row': 'table',
};

/**
 * The blocks of `markdown`. `context` is the text just before it in its document (a neighbouring chunk's): it is read
 * for the list items open where `markdown` starts, and none of its blocks are returned, so a chunk that starts with a
 * list item's indented code (`    ```python` under `* item:` of the chunk before) is code, not paragraphs of code lines.
 * A context that ends inside a fenced block is not used: it may itself start inside one (a long block cut into chunks)
 * and read its fences the wrong way round.
 */
export function markdownBlocks(markdown: string, context?: string): MarkdownBlock[] {
  const lines = markdown.split('\n');
  if (context === undefined) return blocksOf(lines, 0) as MarkdownBlock[];
  // The context ends a block where `markdown` starts (a blank line).
  const contextLines = [...context.split('\n'), ''];
  return blocksOf([...contextLines, ...lines], contextLines.length) ?? (blocksOf(lines, 0) as MarkdownBlock[]);
}

/** The blocks from line `own` on, the lines before it read as context; undefined when a fence runs from one into the other. */
function blocksOf(lines: readonly string[], own: number): MarkdownBlock[] | undefined {
  const blocks: MarkdownBlock[] = [];
  let current: { kind: BlockKind; lines: string[] } | undefined;
  let index = 0;
  const close = (): void => {
    if (current !== undefined && index >= own) blocks.push({ kind: current.kind, text: current.lines.join('\n').trimEnd() });
    current = undefined;
  };
  const classifier = new MarkdownLineClassifier();
  // The index of the next line with text after each line, found from the end so that blank lines cost nothing more.
  const nextText = new Array<number>(lines.length);
  for (let line = lines.length - 1, next = -1; line >= 0; line--) {
    nextText[line] = next;
    if ((lines[line] as string).trim() !== '') next = line;
  }
  for (; index < lines.length; index++) {
    // What the context left open is not returned.
    if (index === own) current = undefined;
    const line = lines[index] as string;
    const classified = classifier.classify(line);
    if (classified.kind === 'fence') {
      close();
      const opened = index;
      const code = [line];
      let closed = false;
      while (!closed && ++index < lines.length) {
        const inner = lines[index] as string;
        code.push(inner);
        closed = closesFence(inner, classified.fence);
      }
      if (opened < own) {
        if (index >= own) return undefined;
        continue;
      }
      // A fence cut off by the end of a chunk is closed, so a quoted block is always valid Markdown.
      if (!closed) code.push(`${classified.fence.indent}${classified.fence.marker}`);
      blocks.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    if (classified.kind === 'blank') {
      // A blank line ends a block, except between the items of one list (or inside an item).
      const next = lines[nextText[index] as number];
      if (current?.kind === 'list' && next !== undefined && (/^\s{2,}\S/.test(next) || classifier.peek(next).kind === 'list-item')) {
        current.lines.push('');
        continue;
      }
      close();
      continue;
    }
    const kind = blockKinds[classified.kind] ?? 'paragraph';
    // Whatever is indented under a list item (a rule or a heading too) is part of its list: the blocks are top-level ones.
    const continues =
      current !== undefined &&
      ((current.kind === 'list' && /^\s/.test(line)) ||
        (kind !== 'heading' &&
          kind !== 'rule' &&
          current.kind !== 'heading' &&
          current.kind !== 'rule' &&
          (kind === current.kind ||
            (current.kind === 'list' && kind === 'paragraph') ||
            (current.kind === 'paragraph' && kind === 'paragraph'))));
    if (!continues) {
      close();
      current = { kind, lines: [] };
    }
    (current as { lines: string[] }).lines.push(line);
  }
  close();
  return blocks;
}
