// Splits Markdown into its top-level blocks (headings, paragraphs, lists, quotes, tables, code blocks, rules), so a passage
// can be quoted whole: a code block is never cut, a list keeps its items together. Fences follow code-context.ts's
// rules, the chunker's.
import { closesFence, fenceOpening } from './code-context.js';

/** `rule` is a thematic break (`---`, `***`): it separates parts and says nothing. */
export type BlockKind = 'heading' | 'paragraph' | 'list' | 'quote' | 'table' | 'code' | 'rule';

export interface MarkdownBlock {
  readonly kind: BlockKind;
  /** The block as written, without surrounding blank lines. */
  readonly text: string;
}

const listItem = /^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+/;
const thematicBreak = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;

function kindOfLine(line: string): Exclude<BlockKind, 'code'> {
  if (/^\s{0,3}#{1,6}(\s|$)/.test(line)) return 'heading';
  if (thematicBreak.test(line)) return 'rule';
  if (listItem.test(line)) return 'list';
  if (/^\s{0,3}>/.test(line)) return 'quote';
  if (/^\s{0,3}\|/.test(line)) return 'table';
  return 'paragraph';
}

export function markdownBlocks(markdown: string): MarkdownBlock[] {
  const blocks: MarkdownBlock[] = [];
  const lines = markdown.split('\n');
  let current: { kind: BlockKind; lines: string[] } | undefined;
  const close = (): void => {
    if (current !== undefined) blocks.push({ kind: current.kind, text: current.lines.join('\n').trimEnd() });
    current = undefined;
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const fence = fenceOpening(line);
    if (fence !== undefined) {
      close();
      const code = [line];
      let closed = false;
      while (!closed && ++index < lines.length) {
        const inner = lines[index] as string;
        code.push(inner);
        closed = closesFence(inner, fence);
      }
      // A fence cut off by the end of a chunk is closed, so a quoted block is always valid Markdown.
      if (!closed) code.push(`${fence.indent}${fence.marker}`);
      blocks.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    if (line.trim() === '') {
      // A blank line ends a block, except between the items of one list (or inside an item).
      const next = lines.slice(index + 1).find((candidate) => candidate.trim() !== '');
      if (current?.kind === 'list' && next !== undefined && (listItem.test(next) || /^\s{2,}\S/.test(next))) {
        current.lines.push('');
        continue;
      }
      close();
      continue;
    }
    const kind = kindOfLine(line);
    const continues =
      current !== undefined &&
      kind !== 'heading' &&
      kind !== 'rule' &&
      current.kind !== 'heading' &&
      current.kind !== 'rule' &&
      (kind === current.kind ||
        (current.kind === 'list' && (kind === 'paragraph' || /^\s+/.test(line))) ||
        (current.kind === 'paragraph' && kind === 'paragraph'));
    if (!continues) {
      close();
      current = { kind, lines: [] };
    }
    (current as { lines: string[] }).lines.push(line);
  }
  close();
  return blocks;
}
