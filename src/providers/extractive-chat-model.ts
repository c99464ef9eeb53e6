// An answer model that needs no provider: it quotes the passage of the retrieved snippets that best answers the
// question, by the question's words it holds and, with an embedding model, by its meaning (a paragraph or list with
// the code block that shows how, led by the sentence that says how), starting with its first sentence, each part with
// its [n] citation, and adds up to three further passages that cover the question nearly as well and add to it (each
// with its own code block: "To upgrade one package:" shows its command even after another passage showed code),
// preferring pages not quoted yet. A passage may run into the text either side of its snippet (its neighbouring
// chunks, cited under the snippet's number), where a chunk boundary cut it. Grounded by construction; used with
// KNOWLEDGE_AGENT_MODEL=extractive.
import { cosineSimilarity } from '../indexes/cosine.js';
import { queryTerms, tokenize } from '../indexes/tokenize.js';
import { atxHeading } from '../markdown/markdown-lines.js';
import type { ChatModel, ChatRequest, ChatStreamPart, GroundingSnippet } from './chat-model.js';
import type { EmbeddingModel } from './embedding-model.js';
import {
  blocksAhead,
  chosenTab,
  continuesSentence,
  introduces,
  instructs,
  isBareLink,
  isIntroducedTable,
  isLabel,
  isProse,
  leansOnPrevious,
  namesPrevious,
  listItems,
  listItemStart,
  listMarker,
  snippetBlocks,
  tableRows,
  type SnippetBlock,
} from './extractive-blocks.js';

export const extractiveModelId = 'extractive';

export const noAnswer = 'The documentation found does not answer this directly.';

/** Characters of prose quoted from one passage, and of one code block. */
const maxProseChars = 700;
const maxCodeChars = 1500;
/** A further passage is quoted when it scores at least this share of the best one. */
const furtherPassageShare = 0.4;
/** How much a snippet's rank lowers its passages' scores, per rank. */
const rankPenalty = 0.03;
/** How much lower a passage of the text next to a snippet scores than one of the snippet itself. */
const neighbourPenalty = 0.1;
const headingWeight = 0.3;
/** For a passage of a document more than one snippet comes from: the retrieval found that page twice. */
const documentBonus = 0.05;
/** Bonuses for how-to questions: a code block right after, inline code, an instruction with inline code ("use `x`"). */
const codeBlockBonus = 0.12;
const inlineCodeBonus = 0.1;
const instructionBonus = 0.2;
/** What a word of the question counts when only the comments of the code a paragraph introduces hold it. */
const commentWeight = 0.75;
/** What it counts when only the rest of that code holds it (a name: `check_passwords_match`). */
const codeWeight = 0.25;
const maxPassages = 4;
/**
 * How much lower a further passage scores when its page is already quoted: the answer draws on more of the pages found
 * when their passages are about as good, a tie-breaker that does not outweigh what a passage covers (a manual in one
 * PDF is one page, so every passage after the first would pay it).
 */
const quotedPagePenalty = 0.01;
/** How many blocks ahead a passage looks for the code or instruction it goes on to. */
const reach = 2;
/** How many paragraphs back a passage goes for the ones it leans on ("But if you need..."). */
const maxLeanBack = 2;
/** How many blocks back a passage that describes a case looks for the sentence that says how. */
const reachBack = 4;
/** How many blocks after a passage that has not said how it looks for the sentence that does (across a heading). */
const crossReach = 6;
const howToQuestion =
  /\b(how|way|example|set ?up|configure|create|add|use|make|write|declare|define|return|run|test|enable|disable|install|deploy)\b/i;

interface Candidate {
  readonly snippet: GroundingSnippet;
  readonly rank: number;
  readonly blocks: readonly SnippetBlock[];
  /** Index in `blocks` of the prose block the passage starts from. */
  readonly start: number;
  /** The words of the passage's block and of its heading. */
  readonly terms: ReadonlySet<string>;
  /** The words of the passage's block alone. */
  readonly blockTerms: ReadonlySet<string>;
  readonly score: number;
}

/** Share of two word sets that they have in common (Jaccard). */
function overlap(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  let shared = 0;
  for (const term of left) if (right.has(term)) shared++;
  return shared / Math.max(1, left.size + right.size - shared);
}

/** Passages this similar are the same text (a tip repeated on two pages) and are quoted once. */
const duplicateOverlap = 0.6;

/** Inverse document frequency of each query term over the candidate blocks: rare words of the question count most. */
function termWeights(terms: readonly string[], blockTerms: readonly ReadonlySet<string>[]): Map<string, number> {
  return new Map(
    terms.map((term) => {
      const frequency = blockTerms.filter((set) => set.has(term)).length;
      return [term, Math.log(1 + (blockTerms.length + 1) / (frequency + 0.5))];
    }),
  );
}

function coverage(weights: ReadonlyMap<string, number>, terms: ReadonlySet<string>): number {
  let total = 0;
  let covered = 0;
  for (const [term, weight] of weights) {
    total += weight;
    if (terms.has(term)) covered += weight;
  }
  return total === 0 ? 0 : covered / total;
}

/** A comment line of code: `# ...`, `// ...`, `<!-- ... -->`, or a line of a block comment; not a `#!` line. */
const commentLine = /^\s*(?:#(?![![])|\/\/|<!--|\/\*+|\*(?!\/))\s?(.*?)(?:\s*(?:-->|\*\/))?\s*$/;

/** Code without the output a docs page prints under it (`#> {'number': 5}` lines): what it shows, not what it does. */
const withoutOutput = (code: string): string => code.replace(/^\s*#>.*$/gm, '');

/** The text of a code block's comments, one line each. */
function codeComments(code: string): string {
  return code
    .split('\n')
    .flatMap((line) => commentLine.exec(line)?.[1] ?? [])
    .join('\n');
}

function candidates(request: ChatRequest, question: readonly string[]): Candidate[] {
  const grounding = request.grounding;
  if (grounding === undefined || question.length === 0) return [];
  const parsed = grounding.snippets.map((snippet, rank) => {
    const blocks = snippetBlocks(snippet);
    return { snippet, rank, blocks, terms: blocks.map((block) => new Set(tokenize(block.text))) };
  });
  const weights = termWeights(
    question,
    parsed.flatMap((entry) => entry.terms),
  );
  const wantsCode = howToQuestion.test(grounding.query);
  return parsed.flatMap(({ snippet, rank, blocks, terms }) => {
    const sameDocument = grounding.snippets.filter((other) => other.title === snippet.title).length - 1;
    return blocks.flatMap((block, index) => {
      if (!(isProse(block) || isIntroducedTable(blocks, index)) || isLabel(block) || isBareLink(block) || continuesSentence(block))
        return [];
      const hasInlineCode = /`[^`]+`/.test(block.text);
      const blockTerms = terms[index] as Set<string>;
      const code = blocksAhead(blocks, index, reach).find((next) => next.kind === 'code');
      const codeFollows = code !== undefined;
      // The code a paragraph introduces shows what it is about: its comments say it in prose ("only call `submit` when
      // the key is `Enter`"), its names in code (`check_passwords_match`). The words they add count for the paragraph,
      // less than its own, the comments' more than the code's.
      const ownCoverage = coverage(weights, blockTerms);
      let blockCoverage = ownCoverage;
      if (code !== undefined) {
        const shown = withoutOutput(code.text);
        const withComments = coverage(weights, new Set([...blockTerms, ...tokenize(codeComments(shown))]));
        // The comments are part of the code: what its words add beyond the comments is its names'.
        const withCode = coverage(weights, new Set([...blockTerms, ...tokenize(shown)]));
        blockCoverage += commentWeight * (withComments - ownCoverage) + codeWeight * (withCode - withComments);
      }
      const headingCoverage = coverage(weights, block.heading);
      const instructsHow = instructs(block);
      if (blockCoverage === 0 && !((codeFollows || instructsHow) && headingCoverage > 0)) return [];
      const howTo = wantsCode ? (codeFollows ? codeBlockBonus : 0) + (hasInlineCode ? inlineCodeBonus : 0) : 0;
      const score =
        blockCoverage +
        headingWeight * headingCoverage +
        howTo +
        (instructsHow ? instructionBonus : 0) +
        documentBonus * Math.min(1, sameDocument) -
        rankPenalty * rank -
        (block.inSnippet ? 0 : neighbourPenalty);
      return [{ snippet, rank, blocks, start: index, terms: new Set([...blockTerms, ...block.heading]), blockTerms, score }];
    });
  });
}

/** The first sentence of a paragraph and the rest of it. */
function splitLead(text: string): { lead: string; rest: string } {
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  const match = /^.{12,240}?[.!?:](?=\s+[A-Z0-9*`"'([]|$)/.exec(flat);
  if (match === null) return { lead: flat, rest: '' };
  return { lead: match[0], rest: flat.slice(match[0].length).trim() };
}

/** The last line of a list when it is an item's bold label alone, with the line break before it. */
const trailingLabelItem = new RegExp(String.raw`(?:^|\n)[^\S\n]*${listMarker}[^\S\n]+\*\*[^*\n]+\*\*:?[^\S\n]*$`);

function cite(text: string, number: number): string {
  const trimmed = text.trimEnd();
  // A list that ends in an item's label alone ("- **Example**", its code next) is cited where its prose ends: the
  // label says nothing to cite, and a citation would read "- **Example** [2]."
  const label = trailingLabelItem.exec(trimmed);
  if (label !== null) {
    const before = trimmed.slice(0, label.index);
    const prose = before.trimEnd();
    return prose === '' ? trimmed : `${cite(prose, number)}${before.slice(prose.length)}${label[0]}`;
  }
  // The citation goes before the final stop, as a writer would put it; a colon introducing what follows stays last.
  const stop = /[.!?]$/.exec(trimmed)?.[0] ?? (trimmed.endsWith(':') ? '' : '.');
  const body = stop === '' ? trimmed : trimmed.replace(/[.!?]$/, '');
  return trimmed.endsWith(':') ? `${body.slice(0, -1)} [${number}]:` : `${body} [${number}]${stop}`;
}

/**
 * A passage from its prose block: the prose that follows it and the first code block within reach, led by the sentence
 * of its section that says how when that comes shortly before it. Blocks in `quoted` (already in the answer) are not
 * quoted again. Empty when the passage would say nothing new.
 */
function passage(candidate: Candidate, question: ReadonlySet<string>, quoted: Set<string>): string {
  const { blocks, start, snippet } = candidate;
  const parts: string[] = [];
  let prose = 0;
  let hasCode = false;
  let shown = false;
  let lastIntroduces = false;
  let lastIndex = start;
  const quote = (block: SnippetBlock): void => {
    if (parts.length === 0 && block.kind === 'paragraph') {
      const { lead, rest } = splitLead(block.text);
      parts.push(rest === '' ? cite(lead, snippet.number) : `${cite(lead, snippet.number)} ${cite(rest, snippet.number)}`);
    } else {
      parts.push(cite(block.text, snippet.number));
    }
    quoted.add(block.text);
    prose += block.text.length;
    shown ||= instructs(block);
    lastIntroduces = block.text.trimEnd().endsWith(':');
    lastIndex = blocks.indexOf(block);
  };
  // A list or table is introduced by the sentence before it ("The middleware function receives:").
  let first = (blocks[start]?.kind === 'list' || blocks[start]?.kind === 'table') && introduces(blocks[start - 1]) ? start - 1 : start;
  // A paragraph that leans on the one before it ("But if you need...", "This is useful...") starts with that one.
  while (first > 0 && leansOnPrevious(blocks[first] as SnippetBlock)) {
    const previous = blocks[first - 1] as SnippetBlock;
    // Naming what a code block showed ("This setting makes PyPI reject..."), it leans on the code and the sentence that
    // introduced it; a contrast after code ("However, ...") goes on without them.
    const introduced = blocks[first - 2];
    const namesTheCode = namesPrevious.test((blocks[first] as SnippetBlock).text);
    if (
      previous.kind === 'code' &&
      namesTheCode &&
      first === start &&
      introduces(introduced) &&
      !quoted.has((introduced as SnippetBlock).text)
    ) {
      first -= 2;
      break;
    }
    // A fragment the snippet's edge cut ("the original client request and...") is not a start either.
    if (
      previous.kind !== 'paragraph' ||
      isLabel(previous) ||
      continuesSentence(previous) ||
      quoted.has(previous.text) ||
      first <= start - maxLeanBack
    )
      break;
    first--;
  }
  if (quoted.has((blocks[first] as SnippetBlock).text)) return '';
  // A passage that describes the case is led by the sentence of its section that says how, when that comes shortly
  // before it ("In these cases you can use `root_path`.", and then what the cases are).
  if (!instructs(blocks[start] as SnippetBlock)) {
    for (let index = first - 1; index >= Math.max(0, first - reachBack); index--) {
      const block = blocks[index] as SnippetBlock;
      if (block.kind === 'heading' || !isProse(block)) break;
      if (instructs(block) && !continuesSentence(block) && !block.text.trimEnd().endsWith(':')) {
        if (!quoted.has(block.text)) quote(block);
        break;
      }
    }
  }
  for (let index = first; index < blocks.length; index++) {
    const block = blocks[index] as SnippetBlock;
    if (block.kind === 'heading' || block.kind === 'rule' || quoted.has(block.text)) break;
    // A label right before a code block is the tab or caption of that code ("**Python 3.10+**"); before prose it titles
    // an aside, which the passage does not run into.
    if (isLabel(block)) {
      const tab = hasCode ? undefined : chosenTab(blocks, index, question);
      if (tab === undefined) break;
      // Of a run of tabs, the one the question names ("in zsh") is shown, under its label when it is not the first.
      if (tab > index) parts.push((blocks[tab] as SnippetBlock).text);
      index = tab;
      continue;
    }
    if (block.kind === 'code') {
      if (!hasCode && block.text.length <= maxCodeChars) {
        parts.push(block.text);
        quoted.add(block.text);
        hasCode = true;
        lastIntroduces = false;
        // Code the passage's own block leans on comes before that block, which is still to be quoted.
        if (index < start) continue;
      }
      break;
    }
    if (block.kind === 'table') {
      if (lastIntroduces) {
        parts.push(tableRows(block.text, question));
        quoted.add(block.text);
        lastIntroduces = false;
      }
      break;
    }
    if (prose > 0 && prose + block.text.length > maxProseChars) {
      // A long list the passage runs into is quoted in part (its items that the question names), not dropped with the
      // sentence that introduces it.
      if (block.kind === 'list') {
        const items = listItems(block.text, question, maxProseChars - prose);
        parts.push(cite(items, snippet.number));
        quoted.add(block.text);
        shown ||= instructs({ ...block, text: items });
        lastIntroduces = false;
        lastIndex = index;
      }
      break;
    }
    quote(block);
    // A sentence ending in a colon introduces what follows; otherwise the passage goes on to reach the code block or,
    // when it has not said how yet, the instruction ("use `x`") that follows what it describes.
    const ahead = blocksAhead(blocks, index, reach);
    const showsHowAhead = ahead.some((next) => next.kind === 'code' || (!shown && isProse(next) && instructs(next)));
    if (index >= start && !lastIntroduces && !showsHowAhead) break;
  }
  if (lastIntroduces) {
    // What the last sentence introduces is not quoted (a code block already shown, or one the site's markup included
    // from elsewhere): it ends as a statement when it names code, and goes when it says nothing on its own ("In short:")
    // or when the text ends right after it (what it introduces was cut off).
    const last = parts.pop() as string;
    if (lastIndex < blocks.length - 1 && (parts.length > 0 || /`[^`]+`/.test(last))) parts.push(`${last.slice(0, -1)}.`);
  }
  // A passage that has not said how yet is followed by the sentence that does, when one comes soon after it, even
  // under the next heading (an introduction, then "## Using `BackgroundTasks`": "First, import `BackgroundTasks`").
  if (!shown && parts.length > 0) {
    const howIndex = blocks.findIndex(
      (block, index) =>
        index > lastIndex &&
        index <= lastIndex + crossReach &&
        isProse(block) &&
        instructs(block) &&
        !continuesSentence(block) &&
        !quoted.has(block.text),
    );
    const how = blocks[howIndex];
    if (how !== undefined) {
      const code = blocks[howIndex + 1];
      const showsCode = !hasCode && code?.kind === 'code' && code.text.length <= maxCodeChars;
      parts.push(
        how.text.trimEnd().endsWith(':') && !showsCode ? `${cite(how.text, snippet.number).slice(0, -1)}.` : cite(how.text, snippet.number),
      );
      quoted.add(how.text);
      if (showsCode) {
        parts.push(code.text);
        quoted.add(code.text);
      }
    }
  }
  // A passage that opens a section is led by the section's title when that names what the passage does not say
  // ("`FileResponse`", then "Asynchronously streams a file as the response."); a page's own title is not repeated.
  const heading = blocks[first - 1];
  const title = heading?.kind === 'heading' ? atxHeading(heading.text) : undefined;
  if (parts.length > 0 && heading !== undefined && title !== undefined && title.level > 1 && !quoted.has(heading.text)) {
    const section = title.text;
    const said = new Set(tokenize(parts.join(' ')));
    if (tokenize(section).some((term) => !said.has(term))) parts.unshift(`**${section}**`);
    quoted.add(heading.text);
  }
  return withoutEmptyIntroductions(parts).join('\n\n');
}

/** What a sentence ending in a colon can introduce besides a list: code, a table, a quote, or a tab's label before its code. */
const introducedPart = /^(?: {4}|\s*(?:```|~~~|\||>|\*\*))/;

/** A sentence that introduces whatever follows it, prose too ("Options have the following meanings:"). */
const introducesProse = /\b(?:following|follows)\b[^.!?]*:$/;

/**
 * The parts, a sentence that introduces what is not there ending as a statement: "you could have a file `config.py`
 * with:" and then prose, where the docs showed code the site's markup included from elsewhere, or an image.
 */
function withoutEmptyIntroductions(parts: readonly string[]): string[] {
  return parts.map((part, index) => {
    const next = parts[index + 1];
    const introducesNothing =
      next !== undefined && part.endsWith(':') && !introducedPart.test(next) && !listItemStart.test(next) && !introducesProse.test(part);
    return introducesNothing ? `${part.slice(0, -1)}.` : part;
  });
}

/**
 * What the cosine similarity of a passage's embedding (its section's title and its block) to the question's adds to
 * the passage's score: the words a passage shares with the question do not tell which of several passages on the same
 * subject answers it ("can pydantic validate the arguments of a plain function?": `@validate_call`, not field
 * validators), its meaning often does. 0.5, chosen leave-one-site-out on the five development sites (bench:answers;
 * every held-out site chose it): good answers 307 -> 322 of 427, no site lower.
 */
const similarityWeight = 0.5;
/**
 * Only the passages best by their words are embedded, each from its first characters: a question has 26 candidate
 * passages on average, and the local model takes 15 to 20 ms a passage on 2 cores. The best 10 and 500 characters
 * gave the same figures on every site as all of them whole; the best 6 lost 4 good answers.
 */
const similarityCandidates = 10;
const similarityChars = 500;

/** The text of a passage as its embedding reads it: the title of its section (or page) and its block. */
function passageText(candidate: Candidate): string {
  const { blocks, start, snippet } = candidate;
  const heading = blocks
    .slice(0, start)
    .reverse()
    .find((block) => block.kind === 'heading');
  const title = heading === undefined ? (snippet.headingPath?.at(-1) ?? snippet.title ?? '') : (atxHeading(heading.text)?.text ?? '');
  return `${title}\n${(blocks[start] as SnippetBlock).text}`.slice(0, similarityChars);
}

/**
 * The candidates with the similarity of the best ones' passages to the question added to their scores, when
 * `embeddings` can embed them; as they were when it fails (a provider that is down costs the answer that signal, not
 * the answer).
 */
async function withSimilarity(found: Candidate[], query: string, embeddings: EmbeddingModel, signal?: AbortSignal): Promise<Candidate[]> {
  if (found.length === 0) return found;
  const ranked = [...found].sort((left, right) => right.score - left.score).slice(0, similarityCandidates);
  let vectors: Float32Array[];
  try {
    vectors = await embeddings.embed([query, ...ranked.map(passageText)], signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    return found;
  }
  const [question, ...passages] = vectors;
  if (question === undefined || passages.length !== ranked.length) return found;
  return found.map((candidate) => {
    const index = ranked.indexOf(candidate);
    return index < 0
      ? candidate
      : { ...candidate, score: candidate.score + similarityWeight * cosineSimilarity(question, passages[index] as Float32Array) };
  });
}

/** The answer to the request's question from its snippets; with `embeddings`, passages are also ranked by their meaning. */
export async function extractiveAnswer(request: ChatRequest, embeddings?: EmbeddingModel): Promise<string> {
  const questionTerms = queryTerms(request.grounding?.query ?? '');
  const question = new Set(questionTerms);
  const found = candidates(request, questionTerms);
  const remaining =
    embeddings === undefined ? found : await withSimilarity(found, request.grounding?.query ?? '', embeddings, request.signal);
  const answer: string[] = [];
  const quoted = new Set<string>();
  const chosen: Candidate[] = [];
  const page = (candidate: Candidate): string | number => candidate.snippet.title ?? candidate.snippet.number;
  const adjusted = (candidate: Candidate): number =>
    candidate.score - (chosen.some((kept) => page(kept) === page(candidate)) ? quotedPagePenalty : 0);
  // Ordered again only when a passage is chosen: that is all `adjusted` depends on.
  const order = () => remaining.sort((left, right) => adjusted(right) - adjusted(left) || left.rank - right.rank);
  order();
  // The best passage, then further passages (of any snippet, but not next to one already quoted) that score nearly as
  // well and add words.
  while (chosen.length < maxPassages && remaining.length > 0) {
    const candidate = remaining.shift() as Candidate;
    const best = chosen[0];
    if (best !== undefined) {
      if (adjusted(candidate) < furtherPassageShare * best.score) break;
      if (chosen.some((kept) => kept.snippet.number === candidate.snippet.number && Math.abs(kept.start - candidate.start) <= 1)) continue;
      if (chosen.some((kept) => overlap(kept.blockTerms, candidate.blockTerms) >= duplicateOverlap)) continue;
      const known = new Set(chosen.flatMap((kept) => [...kept.terms]));
      if (![...candidate.terms].some((term) => !known.has(term))) continue;
    }
    const next = passage(candidate, question, quoted);
    if (next === '') continue;
    answer.push(next);
    chosen.push(candidate);
    order();
  }
  // The answer opens with a sentence: a passage that is a bare list goes after the first one that starts with prose.
  const lead = answer.findIndex((text) => !listItemStart.test(text));
  if (lead > 0) answer.unshift(...answer.splice(lead, 1));
  return answer.length === 0 ? noAnswer : answer.join('\n\n');
}

/**
 * The extractive model; `embeddings` (the service's, when it has one: one that remembers recent texts, see
 * selectModels) ranks its passages by meaning too.
 */
export function createExtractiveChatModel(embeddings?: EmbeddingModel): ChatModel {
  return {
    id: extractiveModelId,
    async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
      const text = await extractiveAnswer(request, embeddings);
      // Streamed word by word, like a model would, so both stream formats behave the same.
      for (const piece of text.match(/\s*\S+\s*/g) ?? []) {
        if (request.signal?.aborted) return;
        yield { type: 'text-delta', delta: piece };
      }
      yield { type: 'finish', reason: 'stop' };
    },
  };
}
