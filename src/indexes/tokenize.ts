// Turns text into lexical index terms: Unicode words, code identifiers (whole and in parts), CJK bigrams, Porter stems.
import { stemmer } from 'stemmer';

/**
 * English stopwords dropped from prose: Lucene's classic 33-word list plus pronouns, auxiliaries and
 * question words that only dilute queries ("what is the …", "how do I …"). Whole identifiers keep them.
 */
export const stopwords: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'for',
  'if',
  'in',
  'into',
  'is',
  'it',
  'no',
  'not',
  'of',
  'on',
  'or',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'will',
  'with',
  'am',
  'been',
  'being',
  'can',
  'could',
  'did',
  'do',
  'does',
  'from',
  'had',
  'has',
  'have',
  'he',
  'her',
  'his',
  'how',
  'i',
  'its',
  'me',
  'my',
  'our',
  'she',
  'so',
  'than',
  'them',
  'those',
  'us',
  'we',
  'were',
  'what',
  'when',
  'where',
  'which',
  'who',
  'whom',
  'why',
  'would',
  'you',
  'your',
]);

/** Terms longer than this (hashes, base64, minified code) are not indexed. */
const maximumTermLength = 64;

const wordCharacterPattern = /[\p{L}\p{M}\p{N}]/u;
const joinerSplitPattern = /_+|::|[.\-/]/;
const remainingJoinerPattern = /[_:.\-/]/;
const apostrophePattern = /['\u2019]/g;
const possessivePattern = /['\u2019]s$/i;
const camelBoundaryPattern = /[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;
// "URLs" and "APIs" stay one piece; otherwise split before each capital and between acronym and word.
const camelPiecePattern = /\p{Lu}{2,}s(?!\p{Ll})|\p{Lu}+(?!\p{Ll})|\p{Lu}?[\p{Ll}\p{M}\p{N}]+|[\p{L}\p{M}\p{N}]/gu;
const latinWithMarksPattern = /([a-z])[\u0300-\u036f]+/g;
// Hiragana, katakana, CJK ideographs (and extension A, compatibility) and half-width katakana.
const cjkPattern = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]/;
const cjkRunPattern =
  /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+|[^\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+/g;
const asciiLettersPattern = /^[a-z]+$/;

const wordCharacter = 1;
const notWordCharacter = 2;
// Classification of BMP code units, filled lazily: 0 unknown, 1 letter/mark/digit, 2 anything else.
const characterClass = new Uint8Array(0x10000);
for (let code = 0; code < 0x80; code++) {
  const isAlphanumeric = (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  characterClass[code] = isAlphanumeric ? wordCharacter : notWordCharacter;
}

/** Length in code units of the word character at `index` (2 for an astral letter), or 0 if it is not one. */
function wordCharacterLength(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code >= 0xd800 && code <= 0xdbff) {
    const point = text.codePointAt(index) as number;
    return point > 0xffff && wordCharacterPattern.test(String.fromCodePoint(point)) ? 2 : 0;
  }
  let known = characterClass[code] as number;
  if (known === 0) {
    known = wordCharacterPattern.test(String.fromCharCode(code)) ? wordCharacter : notWordCharacter;
    characterClass[code] = known;
  }
  return known === wordCharacter ? 1 : 0;
}

/** Code units taken by identifier joiners at `index` (`_`s, `::`, `.`, `-`, `/`, apostrophes), else 0. */
function joinerLength(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code === 95) {
    let end = index + 1;
    while (text.charCodeAt(end) === 95) end++;
    return end - index;
  }
  if (code === 46 || code === 45 || code === 47 || code === 39 || code === 0x2019) return 1;
  if (code === 58 && text.charCodeAt(index + 1) === 58) return 2;
  return 0;
}

// Stems, with '' for stopwords, so each plain word costs one map lookup.
const wordCache = new Map<string, string>();
const wordCacheLimit = 100_000;

/** Porter stem of a lowercase word; words that are not plain ASCII letters are returned unchanged. */
export function stem(word: string): string {
  return word.length > 2 && asciiLettersPattern.test(word) ? stemmer(word) : word;
}

function pushWord(terms: string[], folded: string): void {
  let term = wordCache.get(folded);
  if (term === undefined) {
    term = folded.length > maximumTermLength || stopwords.has(folded) ? '' : stem(folded);
    // The cache only saves repeated work; clearing it when full keeps memory bounded on huge vocabularies.
    if (wordCache.size >= wordCacheLimit) wordCache.clear();
    wordCache.set(folded, term);
  }
  if (term !== '') terms.push(term);
}

/** NFKC, lowercase and, for Latin letters only, no diacritics ("Café" -> "cafe"; Cyrillic "й" is kept). */
function foldUnicode(word: string): string {
  return word.normalize('NFKD').toLowerCase().replace(latinWithMarksPattern, '$1').normalize('NFC');
}

function fold(word: string, hasNonAscii: boolean): string {
  return hasNonAscii ? foldUnicode(word) : word.toLowerCase();
}

/** Overlapping character bigrams, the usual way to index scripts written without spaces. */
function pushCjk(terms: string[], token: string): void {
  for (const run of token.match(cjkRunPattern) ?? []) {
    if (!cjkPattern.test(run)) {
      tokenizeInto(terms, run);
    } else if (run.length === 1) {
      terms.push(run);
    } else {
      for (let index = 0; index + 1 < run.length; index++) terms.push(run.slice(index, index + 2));
    }
  }
}

function hasAsciiCamelBoundary(token: string): boolean {
  for (let index = 1; index < token.length; index++) {
    const current = token.charCodeAt(index);
    const previous = token.charCodeAt(index - 1);
    const currentIsUpper = current >= 65 && current <= 90;
    const previousIsUpper = previous >= 65 && previous <= 90;
    if (currentIsUpper && !previousIsUpper) return true;
    if (previousIsUpper && current >= 97 && current <= 122 && index >= 2) {
      const beforePrevious = token.charCodeAt(index - 2);
      if (beforePrevious >= 65 && beforePrevious <= 90) return true;
    }
  }
  return false;
}

function camelPieces(segment: string): string[] {
  if (!camelBoundaryPattern.test(segment)) return [segment];
  return segment.match(camelPiecePattern) ?? [segment];
}

function pushIdentifier(terms: string[], token: string, hasNonAscii: boolean): void {
  const segments = token.split(joinerSplitPattern).filter((segment) => segment !== '');
  const whole = fold(token, hasNonAscii);
  if (whole.length <= maximumTermLength) terms.push(whole);
  for (const segment of segments) {
    const pieces = camelPieces(segment);
    if (pieces.length > 1 && segments.length > 1) {
      const folded = fold(segment, hasNonAscii);
      if (folded.length <= maximumTermLength) terms.push(folded);
    }
    for (const piece of pieces) pushWord(terms, fold(piece, hasNonAscii));
  }
}

/** One scanned word: plain words are stemmed; identifiers give their whole form plus their parts. */
function pushToken(terms: string[], raw: string, hasUpper: boolean, hasNonAscii: boolean, hasJoiner: boolean): void {
  let token = raw;
  if (hasNonAscii && cjkPattern.test(token)) return pushCjk(terms, token.normalize('NFKC'));
  if (hasJoiner) {
    token = token.replace(possessivePattern, '').replace(apostrophePattern, '');
    hasJoiner = remainingJoinerPattern.test(token);
  }
  if (!hasJoiner) {
    const maybeCamel = hasNonAscii ? camelBoundaryPattern.test(token) : hasUpper && hasAsciiCamelBoundary(token);
    if (!maybeCamel || camelPieces(token).length === 1) return pushWord(terms, fold(token, hasNonAscii));
  }
  pushIdentifier(terms, token, hasNonAscii);
}

/** Scans words (runs of letters, marks, digits joined by identifier joiners) and adds their terms. */
function tokenizeInto(terms: string[], text: string): void {
  const length = text.length;
  let index = 0;
  while (index < length) {
    let step = wordCharacterLength(text, index);
    if (step === 0) {
      index++;
      continue;
    }
    const start = index;
    let hasUpper = false;
    let hasNonAscii = false;
    let hasJoiner = false;
    for (;;) {
      while (step > 0) {
        const code = text.charCodeAt(index);
        if (code >= 65 && code <= 90) hasUpper = true;
        else if (code >= 0x80) hasNonAscii = true;
        index += step;
        step = index < length ? wordCharacterLength(text, index) : 0;
      }
      // A joiner only counts between two word characters, so sentence punctuation never joins words.
      const joiner = index < length ? joinerLength(text, index) : 0;
      if (joiner === 0 || index + joiner >= length) break;
      step = wordCharacterLength(text, index + joiner);
      if (step === 0) break;
      hasJoiner = true;
      if (text.charCodeAt(index) === 0x2019) hasNonAscii = true;
      index += joiner;
    }
    pushToken(terms, text.slice(start, index), hasUpper, hasNonAscii, hasJoiner);
  }
}

/**
 * Index terms of `text`, in order and with repeats. Used for chunks at ingest and for queries alike,
 * so `read_file`, `readFile` and `read file` all meet on the parts `read` and `file`.
 */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  tokenizeInto(terms, text);
  return terms;
}

/** The distinct terms of a query, in first-seen order. */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query))];
}
