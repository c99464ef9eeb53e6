// An answer model that needs no provider: it quotes the sentences of the retrieved snippets that best match
// the question, each with its [n] citation. Grounded by construction; used with KNOWLEDGE_AGENT_MODEL=extractive.
import { tokenize } from '../search/tokenize.js';
import type { ChatModel, ChatRequest, ChatStreamPart } from './chat-model.js';

export const extractiveModelId = 'extractive';

const maxQuotedSentences = 3;
const maxSentencesPerSnippet = 2;
const maxSentenceLength = 400;

interface Candidate {
  readonly sentence: string;
  readonly snippetNumber: number;
  readonly score: number;
}

/** Prose sentences of a Markdown snippet: code blocks, tables and headings are left out. */
export function proseSentences(markdown: string): string[] {
  const prose: string[] = [];
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence || /^\s*(#|\|)/.test(line)) continue;
    prose.push(line.replace(/^\s*([-*+]|\d+[.)]|>)\s+/, '').trim());
  }
  return prose
    .join('\n')
    .split(/\n\s*\n|(?<=[.!?])\s+(?=[A-Z0-9"'`(\[])|\n(?=[A-Z])/)
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => sentence.length >= 12 && sentence.length <= maxSentenceLength && /[\p{L}]/u.test(sentence));
}

function choose(request: ChatRequest): Candidate[] {
  const grounding = request.grounding;
  if (grounding === undefined) return [];
  const queryTerms = new Set(tokenize(grounding.query));
  if (queryTerms.size === 0) return [];
  const candidates: Candidate[] = [];
  grounding.snippets.forEach((snippet, rank) => {
    for (const sentence of proseSentences(snippet.text)) {
      const terms = new Set(tokenize(sentence));
      const overlap = [...queryTerms].filter((term) => terms.has(term)).length;
      if (overlap === 0) continue;
      // Coverage of the question first; earlier (better-ranked) snippets break ties.
      candidates.push({ sentence, snippetNumber: snippet.number, score: overlap / queryTerms.size - rank * 0.01 });
    }
  });
  candidates.sort((left, right) => right.score - left.score);
  const chosen: Candidate[] = [];
  const perSnippet = new Map<number, number>();
  for (const candidate of candidates) {
    if (chosen.length === maxQuotedSentences) break;
    if ((perSnippet.get(candidate.snippetNumber) ?? 0) >= maxSentencesPerSnippet) continue;
    if (chosen.some((kept) => kept.sentence === candidate.sentence)) continue;
    chosen.push(candidate);
    perSnippet.set(candidate.snippetNumber, (perSnippet.get(candidate.snippetNumber) ?? 0) + 1);
  }
  return chosen;
}

function quote(sentence: string, snippetNumber: number): string {
  const withoutStop = sentence.replace(/[.!?:;,]+$/, '');
  return `${withoutStop} [${snippetNumber}].`;
}

export function createExtractiveChatModel(): ChatModel {
  return {
    id: extractiveModelId,
    async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
      const chosen = choose(request);
      const text =
        chosen.length === 0
          ? 'The documentation found does not answer this directly.'
          : `From the documentation:\n\n${chosen.map((candidate) => `- ${quote(candidate.sentence, candidate.snippetNumber)}`).join('\n')}`;
      // Streamed word by word, like a model would, so both stream formats behave the same.
      for (const piece of text.match(/\S+\s*/g) ?? []) {
        if (request.signal?.aborted) return;
        yield { type: 'text-delta', delta: piece };
      }
      yield { type: 'finish', reason: 'stop' };
    },
  };
}
