// A group's label: the words its questions use most (each question counted as often as it was asked), question words
// and stopwords left out, in the order they are most used.
import { stopwords } from '../indexes/tokenize.js';

/** Words that every question uses and that say nothing of its topic. */
const questionWords: ReadonlySet<string> = new Set([
  'what',
  'how',
  'why',
  'when',
  'where',
  'which',
  'who',
  'whom',
  'whose',
  'can',
  'could',
  'should',
  'would',
  'does',
  'do',
  'did',
  'i',
  'me',
  'my',
  'we',
  'our',
  'you',
  'your',
  'is',
  'are',
  'was',
  'were',
  'there',
  'any',
  'way',
  'get',
  'use',
  'using',
  'possible',
  'need',
  'want',
  'make',
  'with',
  'from',
  'about',
  'this',
  'these',
  'those',
  'some',
  'all',
]);

const labelWords = 3;

export function topicLabel(questions: readonly { readonly text: string; readonly count: number }[]): string {
  const counts = new Map<string, number>();
  for (const question of questions) {
    const words = new Set(question.text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_.-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu) ?? []);
    for (const word of words) {
      if (stopwords.has(word) || questionWords.has(word) || word.length < 2) continue;
      counts.set(word, (counts.get(word) ?? 0) + question.count);
    }
  }
  const top = [...counts].sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0])).slice(0, labelWords);
  return top.length === 0 ? (questions[0]?.text ?? '') : top.map(([word]) => word).join(' ');
}
