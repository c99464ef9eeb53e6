// Streaming filter over model answer deltas: drops citations to snippets that do not exist and the model's own Sources footer.

export interface CitationFilter {
  /** Feeds one model delta; returns the text that is safe to emit now (may be ''). */
  push(delta: string): string;
  /** Ends the stream; returns the text still held back (never the model's own Sources line). */
  finish(): string;
  /** Valid snippet numbers cited so far, in order of first citation, without duplicates. */
  readonly citedNumbers: readonly number[];
}

// Longest text accepted between `[` and `]` of a citation group before the `[` is taken as plain text.
const maximumGroupContentLength = 20;
// Longest line start held while it may still become a sources label (decoration included).
const maximumLabelLineLength = 48;
const sourcesLabels = ['sources', 'source', 'references', 'reference'];
// A label alone on its line (a heading before a list) counts only in the plural: "## Reference" can head real content.
const standaloneLabels = ['sources', 'references'];
const groupCharacterPattern = /[\d ,;\-\u2013]/;
const groupPattern = /^ *\d+(?: *[-\u2013] *\d+)?(?: *[,;] *\d+(?: *[-\u2013] *\d+)?)* *$/;

type LineStart = 'label' | 'text' | 'undecided';

interface CitationGroup {
  text: string;
  numbers: number[];
  spaceBefore: boolean;
}

/**
 * Creates the filter for one answer over snippets numbered 1..snippetCount. Brackets of digits are citations even
 * right after a word (`arr[1]`): code belongs in code spans, which are never altered, and letting `word[9]` through
 * would break the promise that unknown numbers never reach the client. `[n](url)` is a link and is left alone.
 */
export function createCitationFilter(snippetCount: number): CitationFilter {
  if (!Number.isInteger(snippetCount) || snippetCount < 0) {
    throw new RangeError(`snippetCount must be a non-negative integer, got ${snippetCount}`);
  }
  const citedNumbers: number[] = [];
  const citedSet = new Set<number>();

  let mode: 'prose' | 'code-span' | 'fence' | 'dropped' = 'prose';
  let finished = false;
  let emitted = '';
  const heldWhitespace: string[] = [];

  // Prose state.
  let lineHasContent = false;
  let lineStart: string | undefined = '';
  let previousCharacter = '';
  let skipNextSpace = false;
  let groupText: string | undefined;
  let groupSpaceBefore = false;
  let pendingGroup: CitationGroup | undefined;
  let runCharacter = '';
  let runLength = 0;
  let runAtLineStart = false;

  // Code state: the opening run of the current span or fence.
  let codeCharacter = '';
  let codeLength = 0;
  let closingRunLength = 0;
  let fenceLine: 'info' | 'leading' | 'run' | 'trailing' | 'other' = 'info';

  function emit(text: string): void {
    for (let index = 0; index < text.length; index++) {
      const character = text.charAt(index);
      if (isWhitespace(character)) {
        heldWhitespace.push(character);
        continue;
      }
      if (heldWhitespace.length > 0) {
        emitted += heldWhitespace.join('');
        heldWhitespace.length = 0;
      }
      emitted += character;
      if (mode === 'prose') lineHasContent = true;
    }
  }

  function startLine(): void {
    lineHasContent = false;
    lineStart = '';
  }

  function step(character: string): void {
    if (mode === 'dropped') return;
    if (mode === 'code-span') return stepCodeSpan(character);
    if (mode === 'fence') return stepFence(character);
    if (lineStart === undefined) return stepProse(character);
    const candidate = lineStart + character;
    const decision = classifyLineStart(candidate, false);
    if (decision === 'label') {
      mode = 'dropped';
    } else if (decision === 'undecided' && candidate.length <= maximumLabelLineLength) {
      lineStart = candidate;
    } else {
      lineStart = undefined;
      for (let index = 0; index < candidate.length; index++) stepProse(candidate.charAt(index));
    }
  }

  function stepProse(character: string): void {
    const previous = previousCharacter;
    previousCharacter = character;
    if (groupText !== undefined) {
      if (character === ']') {
        const numbers = parseCitationGroup(groupText.slice(1), snippetCount);
        if (numbers === undefined) emit(groupText + character);
        else pendingGroup = { text: groupText + character, numbers, spaceBefore: groupSpaceBefore };
        groupText = undefined;
        return;
      }
      if (groupCharacterPattern.test(character) && groupText.length <= maximumGroupContentLength) {
        groupText += character;
        return;
      }
      emit(groupText);
      groupText = undefined;
    }
    if (pendingGroup !== undefined) {
      // `[1](https://...)` is a link whose text happens to be a number, not a citation.
      if (character === '(') emit(pendingGroup.text);
      else applyCitation(pendingGroup);
      pendingGroup = undefined;
    }
    if (runLength > 0 && character !== runCharacter) {
      const opensFence = runAtLineStart && runLength >= 3;
      if (opensFence || runCharacter === '`') {
        mode = opensFence ? 'fence' : 'code-span';
        codeCharacter = runCharacter;
        codeLength = runLength;
        closingRunLength = 0;
        fenceLine = 'info';
      }
      runLength = 0;
      if (mode === 'fence') return stepFence(character);
      if (mode === 'code-span') return stepCodeSpan(character);
    }
    const skip = skipNextSpace && character === ' ';
    skipNextSpace = false;
    if (skip) return;
    if (character === '`' || (character === '~' && (runLength > 0 || !lineHasContent))) {
      if (runLength === 0) {
        runCharacter = character;
        runAtLineStart = !lineHasContent;
      }
      runLength += 1;
      emit(character);
    } else if (character === '[') {
      groupText = character;
      groupSpaceBefore = previous === ' ' || previous === '\t';
    } else {
      emit(character);
      if (character === '\n') startLine();
    }
  }

  function applyCitation(group: CitationGroup): void {
    if (group.numbers.length > 0) {
      for (const number of group.numbers) {
        if (!citedSet.has(number)) {
          citedSet.add(number);
          citedNumbers.push(number);
        }
      }
      emit(group.numbers.map((number) => `[${number}]`).join(''));
    } else if (!lineHasContent) {
      // At the start of a line the space after the citation goes, so indentation stays as written.
      skipNextSpace = true;
    } else if (group.spaceBefore) {
      const last = heldWhitespace[heldWhitespace.length - 1];
      if (last === ' ' || last === '\t') heldWhitespace.pop();
    }
  }

  function stepCodeSpan(character: string): void {
    previousCharacter = character;
    if (character === '`') {
      closingRunLength += 1;
      emit(character);
      return;
    }
    // An unpaired backtick protects only the rest of its line, so it cannot hide the remaining answer.
    const closes = closingRunLength === codeLength || character === '\n';
    closingRunLength = 0;
    if (closes) {
      mode = 'prose';
      return stepProse(character);
    }
    emit(character);
  }

  function stepFence(character: string): void {
    previousCharacter = character;
    emit(character);
    if (character === '\n') {
      const closes = fenceLine === 'trailing' || (fenceLine === 'run' && closingRunLength >= codeLength);
      fenceLine = 'leading';
      closingRunLength = 0;
      if (closes) {
        mode = 'prose';
        startLine();
      }
      return;
    }
    if (fenceLine === 'leading') {
      if (character === codeCharacter) {
        fenceLine = 'run';
        closingRunLength = 1;
      } else if (!isWhitespace(character)) {
        fenceLine = 'other';
      }
    } else if (fenceLine === 'run') {
      if (character === codeCharacter) closingRunLength += 1;
      else fenceLine = isWhitespace(character) && closingRunLength >= codeLength ? 'trailing' : 'other';
    } else if (fenceLine === 'trailing' && !isWhitespace(character)) {
      fenceLine = 'other';
    }
  }

  function takeEmitted(): string {
    let text = emitted;
    emitted = '';
    // Half of a surrogate pair would reach the client as U+FFFD, so it waits for its other half.
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      emitted = text.slice(-1);
      text = text.slice(0, -1);
    }
    return text;
  }

  return {
    push(delta: string): string {
      if (finished) throw new Error('push after finish');
      for (let index = 0; index < delta.length; index++) step(delta.charAt(index));
      return takeEmitted();
    },
    finish(): string {
      if (finished) return '';
      finished = true;
      if (mode === 'prose' && lineStart !== undefined && lineStart !== '') {
        if (classifyLineStart(lineStart, true) === 'label') {
          mode = 'dropped';
        } else {
          const held = lineStart;
          lineStart = undefined;
          for (let index = 0; index < held.length; index++) stepProse(held.charAt(index));
        }
      }
      if (mode === 'prose') {
        if (groupText !== undefined) emit(groupText);
        if (pendingGroup !== undefined) applyCitation(pendingGroup);
        groupText = undefined;
        pendingGroup = undefined;
      }
      // Only whitespace at the very end of the answer is dropped, so the caller can append "\n\nSources: ...".
      heldWhitespace.length = 0;
      const text = emitted;
      emitted = '';
      return text;
    },
    get citedNumbers(): readonly number[] {
      return citedNumbers.slice();
    },
  };
}

export function formatSourcesLine(titles: readonly string[]): string {
  // Titles are folded to one line each: a line break inside one would end the Sources line early.
  const unique = new Set(titles.map((title) => title.replace(/\s+/g, ' ').trim()).filter((title) => title !== ''));
  return `Sources: ${unique.size === 0 ? 'none' : [...unique].join(', ')}`;
}

/** The valid snippet numbers of a group's inner text, or undefined when the text is not a citation group. */
function parseCitationGroup(content: string, snippetCount: number): number[] | undefined {
  if (!groupPattern.test(content)) return undefined;
  const numbers = new Set<number>();
  for (const item of content.split(/[,;]/)) {
    const [first = 0, last = first] = item.split(/[-\u2013]/).map((part) => Number.parseInt(part, 10));
    const high = Math.min(snippetCount, Math.max(first, last));
    for (let number = Math.max(1, Math.min(first, last)); number <= high; number++) numbers.add(number);
  }
  return [...numbers];
}

/** Whether a line start (decoration, a word, a separator) is, may become, or cannot be a sources label. */
function classifyLineStart(text: string, ended: boolean): LineStart {
  const match = /^[ \t\r>*_#]*([a-z]*)([ \t\r*_]*)([^]?)([^]?)/i.exec(text);
  const label = (match?.[1] ?? '').toLowerCase();
  const separator = match?.[3] ?? '';
  const next = match?.[4] ?? '';
  if (match?.[2] === '' && separator === '' && !ended) {
    return sourcesLabels.some((candidate) => candidate.startsWith(label)) ? 'undecided' : 'text';
  }
  if (!sourcesLabels.includes(label)) return 'text';
  if (separator === ':') return 'label';
  if (separator === '-' || separator === '\u2013' || separator === '\u2014') {
    if (next === '') return ended ? 'label' : 'undecided';
    return isWhitespace(next) ? 'label' : 'text';
  }
  if (separator === '' && !ended) return 'undecided';
  if (separator === '' || separator === '\n') return standaloneLabels.includes(label) ? 'label' : 'text';
  return 'text';
}

function isWhitespace(character: string): boolean {
  return character === ' ' || character === '\n' || character === '\t' || character === '\r' || /\s/.test(character);
}
