// Picks a short excerpt of a chunk around its densest cluster of query terms, for previews and citations.
import { tokenize } from '../indexes/tokenize.js';

const ellipsis = '…';
const wordPattern = /\S+/g;
const whitespacePattern = /\s+/g;

interface Word {
  readonly start: number;
  readonly end: number;
  /** Indexes into the query terms this word matches. */
  readonly matches: readonly number[];
}

/** Whitespace-separated words; runs longer than `longest` (unspaced scripts, long URLs) are cut into pieces. */
function splitWords(text: string, longest: number): { start: number; end: number }[] {
  const words: { start: number; end: number }[] = [];
  for (const match of text.matchAll(wordPattern)) {
    const end = match.index + match[0].length;
    let start = match.index;
    while (end - start > longest) {
      let cut = start + longest;
      const code = text.charCodeAt(cut);
      if (code >= 0xdc00 && code <= 0xdfff) cut--; // never split a surrogate pair
      words.push({ start, end: cut });
      start = cut;
    }
    words.push({ start, end });
  }
  return words;
}

/** Distinct query terms (primary) and matching words (secondary) inside words[first..last]. */
function clusterScore(words: readonly Word[], first: number, last: number): number {
  const seen = new Set<number>();
  let matching = 0;
  for (let index = first; index <= last; index++) {
    const matches = (words[index] as Word).matches;
    if (matches.length > 0) matching++;
    for (const term of matches) seen.add(term);
  }
  return seen.size * 10_000 + matching;
}

/**
 * About `maxChars` characters of `text` (never more) centred on the densest cluster of words whose
 * tokens are among `terms` (tokens as made by `tokenize`), cut at word boundaries, with `…` where text
 * was left out and whitespace runs shown as single spaces. Without matches, the start of the text.
 */
export function excerptAround(text: string, terms: readonly string[], maxChars: number): string {
  const limit = Math.floor(maxChars);
  if (!(limit > 0)) return '';
  const flat = text.replace(whitespacePattern, ' ').trim();
  if (flat.length <= limit) return flat;
  // Too small for a word and an ellipsis: a hard cut.
  if (limit < 3) return flat.slice(0, limit);
  const termIndex = new Map(terms.map((term, index) => [term, index]));
  const matchesOf = new Map<string, number[]>();
  const words: Word[] = splitWords(flat, Math.min(limit - 2, Math.max(24, Math.ceil((limit - 2) / 4)))).map(({ start, end }) => {
    const word = flat.slice(start, end);
    let matches = matchesOf.get(word);
    if (matches === undefined) {
      matches = [...new Set(tokenize(word).flatMap((token) => termIndex.get(token) ?? []))];
      matchesOf.set(word, matches);
    }
    return { start, end, matches };
  });
  const span = (first: number, last: number): number => (words[last] as Word).end - (words[first] as Word).start;
  // Whether words[first..last] fit in the limit together with the ellipses they would need.
  const fits = (first: number, last: number): boolean =>
    span(first, last) + (first > 0 ? 1 : 0) + (last + 1 < words.length ? 1 : 0) <= limit;

  // Densest window of matching words that fits (two pointers over the matching words).
  const matching = words.flatMap((word, index) => (word.matches.length > 0 ? [index] : []));
  let first = 0;
  let last = 0;
  let bestScore = -1;
  for (let left = 0, right = 0; left < matching.length; left++) {
    right = Math.max(right, left);
    while (right + 1 < matching.length && fits(matching[left] as number, matching[right + 1] as number)) right++;
    const from = matching[left] as number;
    const to = matching[right] as number;
    if (!fits(from, to)) continue;
    const score = clusterScore(words, from, to);
    if (score > bestScore) [bestScore, first, last] = [score, from, to];
  }

  // Grow the window one word at a time on alternate sides, which keeps the cluster in the middle.
  for (let grew = true; grew; ) {
    grew = false;
    if (first > 0 && fits(first - 1, last)) [first, grew] = [first - 1, true];
    if (last + 1 < words.length && fits(first, last + 1)) [last, grew] = [last + 1, true];
  }
  const body = flat.slice((words[first] as Word).start, (words[last] as Word).end);
  return (first > 0 ? ellipsis : '') + body + (last + 1 < words.length ? ellipsis : '');
}
