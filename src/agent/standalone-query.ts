// Turns a follow-up ("and how do I test it?") into a search query that stands on its own, from the conversation:
// a language model is asked to rewrite it; without one (the extractive model), the earlier question's key words are
// carried over. A question that does not lean on the conversation is searched as it is.
import type { ChatMessage, ChatModel } from '../providers/chat-model.js';
import { stopwords } from '../indexes/tokenize.js';

/** Earlier user questions whose words a chain of follow-ups carries. */
const maxCarriedQuestions = 3;
const maxQueryLength = 300;
/** Characters of each earlier message shown to the model for the rewrite. */
const maxContextChars = 1_000;

const leadingConnective = /^\s*(and|also|but|so|then|ok(ay)?|what about|how about|what if|same for|and if|or)\b/i;
const reference = /\b(it|its|this|that|these|those|them|they|there)\b/i;

function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}_.-]+/gu) ?? [])
    .map((word) => word.replace(/^[.-]+|[.-]+$/g, ''))
    .filter((word) => word.length > 1 && !stopwords.has(word));
}

/** Whether `question` needs the conversation to be understood: it starts like a continuation, points back, or is very short. */
export function looksLikeFollowUp(question: string): boolean {
  return leadingConnective.test(question) || reference.test(question) || contentWords(question).length <= 2;
}

/** The follow-up with the key words of the earlier questions it continues (newest first) that it does not already hold. */
export function carryEarlierTerms(question: string, earlierQuestions: readonly string[]): string {
  const present = new Set(contentWords(question));
  const carried: string[] = [];
  // A chain of follow-ups carries words back to the question that started it.
  for (const earlier of [...earlierQuestions].reverse().slice(0, maxCarriedQuestions)) {
    for (const word of contentWords(earlier)) {
      if (!present.has(word)) {
        present.add(word);
        carried.push(word);
      }
    }
    if (!looksLikeFollowUp(earlier)) break;
  }
  return `${question.trim()} ${carried.join(' ')}`.trim().slice(0, maxQueryLength);
}

const rewriteInstructions = [
  'Rewrite the last user question of the conversation below as one standalone search query for the documentation.',
  'Resolve words such as "it", "that" or "and" using the conversation, keep names and code identifiers exactly, add nothing else.',
  'Reply with the query alone, on one line, without quotes.',
].join(' ');

/** Asks `chat` for the standalone query; undefined when it gives nothing usable. */
export async function rewriteWithModel(
  chat: ChatModel,
  history: readonly ChatMessage[],
  question: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const conversation = history
    .flatMap((message) =>
      message.role === 'user' || (message.role === 'assistant' && message.content !== '')
        ? [`${message.role}: ${message.content.slice(0, maxContextChars)}`]
        : [],
    )
    .join('\n');
  let text = '';
  for await (const part of chat.stream({
    messages: [
      { role: 'system', content: rewriteInstructions },
      { role: 'user', content: `${conversation}\n\nLast question: ${question}` },
    ],
    tools: [],
    signal,
  })) {
    if (part.type === 'text-delta') text += part.delta;
  }
  const query =
    text
      .trim()
      .split('\n')[0]
      ?.replace(/^["'`]+|["'`]+$/g, '')
      .trim() ?? '';
  return query === '' ? undefined : query.slice(0, maxQueryLength);
}
