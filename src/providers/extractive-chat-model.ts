// An answer model that needs no provider: it quotes the passage of the retrieved snippets that best answers the
// question (a paragraph or list with the code block that shows how), led by its first sentence, each part with its
// [n] citation, and adds up to two further passages that cover the question nearly as well and add to it.
// Grounded by construction; used with KNOWLEDGE_AGENT_MODEL=extractive.
import { normalizeDocSiteMarkup } from '../markdown/doc-site-markup.js';
import { markdownBlocks, type MarkdownBlock } from '../markdown/markdown-blocks.js';
import { queryTerms, tokenize } from '../indexes/tokenize.js';
import type { ChatModel, ChatRequest, ChatStreamPart, GroundingSnippet } from './chat-model.js';

export const extractiveModelId = 'extractive';

export const noAnswer = 'The documentation found does not answer this directly.';

/** Characters of prose quoted from one passage, and of one code block. */
const maxProseChars = 700;
const maxCodeChars = 1500;
/** A further passage is quoted when it scores at least this share of the best one. */
const furtherPassageShare = 0.4;
/** How much a snippet's rank lowers its passages' scores, per rank. */
const rankPenalty = 0.04;
const headingWeight = 0.3;
/** Bonuses for how-to questions: a code block right after, inline code, an instruction with inline code ("use `x`"). */
const codeBlockBonus = 0.12;
const inlineCodeBonus = 0.1;
const instructionBonus = 0.2;
const maxPassages = 3;
const instruction = /\b(use|using|import|declare|add|set|pass|create|call|install|run|return|raise|put|define|include|mount|override|configure)\b/i;
const howToQuestion = /\b(how|way|example|set ?up|configure|create|add|use|make|write|declare|define|return|run|test|enable|disable|install|deploy)\b/i;

interface Candidate {
  readonly snippet: GroundingSnippet;
  readonly rank: number;
  readonly blocks: readonly MarkdownBlock[];
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

const isProse = (block: MarkdownBlock | undefined): boolean => block !== undefined && (block.kind === 'paragraph' || block.kind === 'list' || block.kind === 'quote');

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

function candidates(request: ChatRequest): Candidate[] {
  const grounding = request.grounding;
  if (grounding === undefined) return [];
  const question = queryTerms(grounding.query);
  if (question.length === 0) return [];
  const parsed = grounding.snippets.map((snippet, rank) => {
    const blocks = markdownBlocks(normalizeDocSiteMarkup(snippet.text));
    return { snippet, rank, blocks, terms: blocks.map((block) => new Set(tokenize(block.text))) };
  });
  const weights = termWeights(question, parsed.flatMap((entry) => entry.terms));
  const wantsCode = howToQuestion.test(grounding.query);
  return parsed.flatMap(({ snippet, rank, blocks, terms }) => {
    let heading = new Set(tokenize([snippet.title ?? '', ...(snippet.headingPath ?? [])].join(' ')));
    return blocks.flatMap((block, index) => {
      if (block.kind === 'heading') heading = new Set(tokenize(block.text));
      if (!isProse(block)) return [];
      const hasInlineCode = /`[^`]+`/.test(block.text);
      const blockTerms = terms[index] as Set<string>;
      const codeFollows = blocks.slice(index + 1, index + 3).some((next) => next.kind === 'code');
      const blockCoverage = coverage(weights, blockTerms);
      const headingCoverage = coverage(weights, heading);
      if (blockCoverage === 0 && !(codeFollows && headingCoverage > 0)) return [];
      const howTo = wantsCode ? (codeFollows ? codeBlockBonus : 0) + (hasInlineCode ? inlineCodeBonus : 0) : 0;
      const score =
        blockCoverage + headingWeight * headingCoverage + howTo + (hasInlineCode && instruction.test(block.text) ? instructionBonus : 0) - rankPenalty * rank;
      // A sentence that introduces what the snippet cut off ("In short:" at its end) says nothing on its own.
      if (index === blocks.length - 1 && block.text.trimEnd().endsWith(':')) return [];
      return [{ snippet, rank, blocks, start: index, terms: new Set([...blockTerms, ...heading]), blockTerms, score }];
    });
  });
}

/** The first sentence of a paragraph and the rest of it. */
function splitLead(text: string): { lead: string; rest: string } {
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  const match = /^.{12,240}?[.!?:](?=\s+[A-Z0-9*`"'(\[]|$)/.exec(flat);
  if (match === null) return { lead: flat, rest: '' };
  return { lead: match[0], rest: flat.slice(match[0].length).trim() };
}

function cite(text: string, number: number): string {
  const trimmed = text.trimEnd();
  // The citation goes before the final stop, as a writer would put it; a colon introducing what follows stays last.
  const stop = /[.!?]$/.exec(trimmed)?.[0] ?? (trimmed.endsWith(':') ? '' : '.');
  const body = stop === '' ? trimmed : trimmed.replace(/[.!?]$/, '');
  return trimmed.endsWith(':') ? `${body.slice(0, -1)} [${number}]:` : `${body} [${number}]${stop}`;
}

/** A passage from its prose block: the prose that follows it and the first code block within reach. */
function passage(candidate: Candidate, withCode: boolean): { text: string; hasCode: boolean } {
  const { blocks, start, snippet } = candidate;
  const parts: string[] = [];
  let prose = 0;
  let hasCode = false;
  // A list is introduced by the sentence before it ("The middleware function receives:").
  const previous = blocks[start - 1];
  const first = start > 0 && blocks[start]?.kind === 'list' && previous?.kind === 'paragraph' && previous.text.trimEnd().endsWith(':') ? start - 1 : start;
  for (let index = first; index < blocks.length; index++) {
    const block = blocks[index] as MarkdownBlock;
    if (block.kind === 'heading') break;
    if (block.kind === 'code') {
      if (withCode && !hasCode && block.text.length <= maxCodeChars) {
        parts.push(block.text);
        hasCode = true;
      }
      break;
    }
    if (block.kind === 'table' || (prose > 0 && prose + block.text.length > maxProseChars)) break;
    if (parts.length === 0 && block.kind === 'paragraph') {
      const { lead, rest } = splitLead(block.text);
      parts.push(rest === '' ? cite(lead, snippet.number) : `${cite(lead, snippet.number)} ${cite(rest, snippet.number)}`);
    } else {
      parts.push(cite(block.text, snippet.number));
    }
    prose += block.text.length;
    // A sentence ending in a colon introduces what follows; otherwise the passage goes on only to reach a code block.
    const introduces = block.text.trimEnd().endsWith(':');
    if (!introduces && !(withCode && blocks.slice(index + 1, index + 3).some((next) => next.kind === 'code'))) break;
  }
  return { text: parts.join('\n\n'), hasCode };
}

export function extractiveAnswer(request: ChatRequest): string {
  const ranked = candidates(request).sort((left, right) => right.score - left.score || left.rank - right.rank);
  const best = ranked[0];
  if (best === undefined) return noAnswer;
  const first = passage(best, true);
  const answer = [first.text];
  let hasCode = first.hasCode;
  const chosen: Candidate[] = [best];
  // Further passages (of any snippet, but not next to one already quoted) that score nearly as well and add words.
  for (const candidate of ranked) {
    if (chosen.length >= maxPassages || candidate.score < furtherPassageShare * best.score) break;
    if (chosen.some((kept) => kept.snippet.number === candidate.snippet.number && Math.abs(kept.start - candidate.start) <= 1)) continue;
    if (chosen.some((kept) => overlap(kept.blockTerms, candidate.blockTerms) >= duplicateOverlap)) continue;
    const known = new Set(chosen.flatMap((kept) => [...kept.terms]));
    if (![...candidate.terms].some((term) => !known.has(term))) continue;
    const next = passage(candidate, !hasCode);
    if (answer.includes(next.text)) continue;
    answer.push(next.text);
    hasCode ||= next.hasCode;
    chosen.push(candidate);
  }
  return answer.join('\n\n');
}

export function createExtractiveChatModel(): ChatModel {
  return {
    id: extractiveModelId,
    async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
      const text = extractiveAnswer(request);
      // Streamed word by word, like a model would, so both stream formats behave the same.
      for (const piece of text.match(/\s*\S+\s*/g) ?? []) {
        if (request.signal?.aborted) return;
        yield { type: 'text-delta', delta: piece };
      }
      yield { type: 'finish', reason: 'stop' };
    },
  };
}
