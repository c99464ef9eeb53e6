// The blocks of a retrieved snippet as the extractive answer model reads them (src/providers/extractive-chat-model.ts):
// its text and its neighbouring chunks split into Markdown blocks, each with the words of its headings, and what a
// block is to a passage (an admonition's label, an instruction that names code, a paragraph that leans on the one
// before it, a table a sentence introduces).
import { normalizeDocSiteMarkup } from '../markdown/doc-site-markup.js';
import { markdownBlocks, type MarkdownBlock } from '../markdown/markdown-blocks.js';
import { tokenize } from '../indexes/tokenize.js';
import type { GroundingSnippet } from './chat-model.js';

const instruction =
  /\b(use|using|import|declare|add|set|pass|create|call|install|run|return|raise|put|define|include|mount|override|configure)\b/i;
const instructionWithCode = new RegExp(instruction.source + '[^.!?\\n`]{0,40}`[A-Za-z_@.][^`]*`', 'i');

/** A block of a snippet, or of the text next to it, with the words of the headings it sits under. */
export interface SnippetBlock extends MarkdownBlock {
  readonly heading: ReadonlySet<string>;
  /** False for the neighbouring text the snippet's edges cut. */
  readonly inSnippet: boolean;
}

/** An admonition's title (`**Tip**`) on a line of its own: it labels the aside that follows and says nothing itself. */
export const isLabel = (block: MarkdownBlock): boolean => block.kind === 'paragraph' && /^\*\*[^*\n]+\*\*$/.test(block.text.trim());

/** A paragraph that is a link alone ("[Try it in the Playground](https://...)"): it points, and says nothing. */
export const isBareLink = (block: MarkdownBlock): boolean =>
  block.kind === 'paragraph' && /^\[[^\]\n]*\]\([^)\s]*\)\.?$/.test(block.text.trim());

/**
 * An instruction that names the code it is about ("use `root_path`", "import `BackgroundTasks` and declare"): a verb
 * of doing followed in the same sentence by inline code that names something (not a path or URL).
 */
export const instructs = (block: MarkdownBlock): boolean => instructionWithCode.test(block.text);

/** A paragraph that goes on with a sentence begun before it ("would mean:", "...and pass it"): no passage starts there. */
export const continuesSentence = (block: MarkdownBlock): boolean =>
  block.kind === 'paragraph' && /^(?:\.\.\.|…)?\s*\p{Ll}/u.test(block.text);

/**
 * A clause whose subject is what the paragraph before named: "When enabled, uv will query..." after the option and its
 * code.
 */
export const namesPrevious =
  /^(?:This|That|These|Those|It|(?:When|If|Once) (?:enabled|disabled|set|used|specified|installed|configured)\b)/;

/** Words that open a paragraph which goes on from the one before it: a contrast, a consequence, a pronoun for it. */
export const leansOnPrevious = (block: MarkdownBlock): boolean =>
  block.kind === 'paragraph' &&
  (/^(?:But|And|Or|So|However|Instead|Also|Still|Otherwise|They)\b/.test(block.text) || namesPrevious.test(block.text));

export const isProse = (block: MarkdownBlock | undefined): boolean =>
  block !== undefined && (block.kind === 'paragraph' || block.kind === 'list' || block.kind === 'quote');

/**
 * The `count` blocks after `index`, not counting the labels that title a code block (a tab's or a file's name,
 * "**greet**"): they belong to the code, which is as near as the block before them.
 */
export function blocksAhead(blocks: readonly MarkdownBlock[], index: number, count: number): MarkdownBlock[] {
  const ahead: MarkdownBlock[] = [];
  for (let next = index + 1; next < blocks.length && ahead.length < count; next++) {
    const block = blocks[next] as MarkdownBlock;
    if (!(isLabel(block) && blocks[next + 1]?.kind === 'code')) ahead.push(block);
  }
  return ahead;
}

/**
 * Of the code blocks a run of tabs shows at `index` (a label, its code, the next label, its code: "**Bash**", "**Zsh**"),
 * the index of the label that names most words of the question the other labels do not all share ("in zsh", "in
 * pyproject.toml" beside "mypy.ini"), or of the first when none does. Undefined when `index` does not start a labelled
 * code block.
 */
export function chosenTab(blocks: readonly MarkdownBlock[], index: number, question: ReadonlySet<string>): number | undefined {
  const labelled = (at: number) => blocks[at] !== undefined && isLabel(blocks[at]) && blocks[at + 1]?.kind === 'code';
  if (!labelled(index)) return undefined;
  const tabs: { at: number; named: string[] }[] = [];
  for (let at = index; labelled(at); at += 2)
    tabs.push({ at, named: tokenize((blocks[at] as MarkdownBlock).text).filter((term) => question.has(term)) });
  const distinct = (term: string) => !tabs.every((tab) => tab.named.includes(term));
  let chosen = tabs[0] as { at: number; named: string[] };
  for (const tab of tabs) if (tab.named.filter(distinct).length > chosen.named.filter(distinct).length) chosen = tab;
  return chosen.at;
}

/** A sentence ending in a colon introduces the block after it ("You can set the following fields:"). */
export const introduces = (block: MarkdownBlock | undefined): boolean => block?.kind === 'paragraph' && block.text.trimEnd().endsWith(':');

/** A table is quoted only after the sentence that introduces it, which carries its citation. */
export const isIntroducedTable = (blocks: readonly MarkdownBlock[], index: number): boolean =>
  blocks[index]?.kind === 'table' && introduces(blocks[index - 1]);

/** Most rows of a table quoted: the ones that hold words of the question, or the first ones when none do. */
const maxTableRows = 8;

/**
 * A table with its header and the rows whose first cell (what the row is about: a parameter, a field) holds a word of
 * the question; the first rows when none does.
 */
export function tableRows(table: string, question: ReadonlySet<string>): string {
  const [header = '', separator = '', ...rows] = table.split('\n');
  const matching = rows.filter((row) => tokenize(row.split('|')[1] ?? '').some((term) => question.has(term)));
  return [header, separator, ...(matching.length > 0 ? matching : rows).slice(0, maxTableRows)].join('\n');
}

/** A list item's marker: a bullet, or a number and its delimiter. */
export const listMarker = String.raw`(?:[-*+]|\d{1,9}[.)])`;
/** The first line of a list item. */
export const listItemStart = new RegExp(String.raw`^\s{0,3}${listMarker}\s`);

/**
 * The items of a list too long to quote whole, cut at item boundaries to about `budget` characters: those that name
 * the most words of the question first (in the list's order when quoted), or the first ones when none does; at least
 * one.
 */
export function listItems(list: string, question: ReadonlySet<string>, budget: number): string {
  const items: string[] = [];
  for (const line of list.split('\n')) {
    if (items.length === 0 || listItemStart.test(line)) items.push(line);
    else items[items.length - 1] += `\n${line}`;
  }
  const named = items.map((item, position) => ({
    item: item.trimEnd(),
    position,
    words: new Set(tokenize(item).filter((term) => question.has(term))).size,
  }));
  const matching = named.filter((entry) => entry.words > 0);
  const candidates =
    matching.length > 0 ? [...matching].sort((left, right) => right.words - left.words || left.position - right.position) : named;
  const kept: typeof named = [];
  let length = 0;
  for (const entry of candidates) {
    if (kept.length > 0 && length + entry.item.length > budget) continue;
    kept.push(entry);
    length += entry.item.length;
  }
  return kept
    .sort((left, right) => left.position - right.position)
    .map((entry) => entry.item)
    .join('\n');
}

/**
 * The blocks of a snippet's text and of the text before and after it, each with the words of its headings. Where a
 * neighbour's chunk was cut inside a block, the two halves are one block again, so no passage starts mid-sentence.
 */
export function snippetBlocks(snippet: GroundingSnippet): SnippetBlock[] {
  const title = snippet.title ?? '';
  const parts = [
    ...(snippet.before === undefined ? [] : [{ ...snippet.before, inSnippet: false }]),
    { text: snippet.text, headingPath: snippet.headingPath ?? [], inSnippet: true },
    ...(snippet.after === undefined ? [] : [{ ...snippet.after, inSnippet: false }]),
  ];
  const blocks: SnippetBlock[] = [];
  // Each part is read after the one before it: a chunk may start inside a list item of the one before (its code, say).
  let context: string | undefined;
  for (const [position, part] of parts.entries()) {
    let heading = new Set(tokenize([title, ...part.headingPath].join(' ')));
    const text = normalizeDocSiteMarkup(part.text, { plainCodeLinks: true });
    const partBlocks = markdownBlocks(text, context).map((block) => {
      if (block.kind === 'heading') heading = new Set(tokenize(`${title} ${block.text}`));
      return { ...block, heading, inSnippet: part.inSnippet };
    });
    // The cut lies between this part and the one before it: the snippet's after `before`, `after`'s after the snippet.
    const separator = position === 0 ? undefined : part.inSnippet ? snippet.before?.splitBlock : snippet.after?.splitBlock;
    const last = blocks[blocks.length - 1];
    const first = partBlocks[0];
    if (separator !== undefined && last !== undefined && first !== undefined && last.kind === first.kind && isProse(first)) {
      blocks[blocks.length - 1] = { ...last, text: `${last.text}${separator}${first.text}`, inSnippet: true };
      partBlocks.shift();
    }
    blocks.push(...partBlocks);
    context = text;
  }
  return blocks;
}
