// Streaming filter over model answer deltas: drops citations to snippets that do not exist and the model's own Sources footer.
import { CodeContextTracker } from '../markdown/code-context.js';

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
  readonly text: string;
  readonly numbers: readonly number[];
  readonly spaceBefore: boolean;
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
  return new StreamingCitationFilter(snippetCount);
}

/**
 * The filtered text not handed out yet. Whitespace waits until more text follows, so that the space before a dropped
 * citation and the whitespace ending the answer can be taken back.
 */
class PendingOutput {
  private text = '';
  private readonly heldWhitespace: string[] = [];

  append(character: string): void {
    if (isWhitespace(character)) {
      this.heldWhitespace.push(character);
      return;
    }
    if (this.heldWhitespace.length > 0) {
      this.text += this.heldWhitespace.join('');
      this.heldWhitespace.length = 0;
    }
    this.text += character;
  }

  /** Takes back a space or tab just written (the one before a citation that was dropped). */
  dropHeldSpace(): void {
    const last = this.heldWhitespace[this.heldWhitespace.length - 1];
    if (last === ' ' || last === '\t') this.heldWhitespace.pop();
  }

  /** The text ready to go out, whitespace still held back. */
  take(): string {
    let text = this.text;
    this.text = '';
    // Half of a surrogate pair would reach the client as U+FFFD, so it waits for its other half.
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.text = text.slice(-1);
      text = text.slice(0, -1);
    }
    return text;
  }

  /** Everything left, without the whitespace held at the end. */
  takeRest(): string {
    this.heldWhitespace.length = 0;
    const text = this.text;
    this.text = '';
    return text;
  }
}

class StreamingCitationFilter implements CitationFilter {
  /** Valid numbers cited, in order of first citation. */
  private readonly cited = new Set<number>();
  /** Follows the filtered text, so that code spans and fences pass through untouched. */
  private readonly code = new CodeContextTracker();
  private readonly output = new PendingOutput();
  /** The start of the current line, held while it may still become a Sources label; undefined once it cannot. */
  private labelCandidate: string | undefined = '';
  /** Set at the model's own Sources line: everything from there on is dropped. */
  private droppingRest = false;
  private finished = false;
  private previousCharacter = '';
  /** `[` and what followed it, while it may still become a citation group. */
  private openGroup: { text: string; spaceBefore: boolean } | undefined;
  /** A complete group, waiting for the next character: `(` makes it a link's text instead of a citation. */
  private closedGroup: CitationGroup | undefined;
  /** After a citation dropped at a line's start, the space that followed it goes too. */
  private skipNextSpace = false;

  constructor(private readonly snippetCount: number) {}

  get citedNumbers(): readonly number[] {
    return [...this.cited];
  }

  push(delta: string): string {
    if (this.finished) throw new Error('push after finish');
    for (let index = 0; index < delta.length; index++) this.step(delta.charAt(index));
    return this.output.take();
  }

  finish(): string {
    if (this.finished) return '';
    this.finished = true;
    if (!this.droppingRest && this.code.current === 'text' && this.labelCandidate !== undefined && this.labelCandidate !== '') {
      if (classifyLineStart(this.labelCandidate, true) === 'label') {
        this.droppingRest = true;
      } else {
        const held = this.labelCandidate;
        this.labelCandidate = undefined;
        for (let index = 0; index < held.length; index++) this.stepOutsideLabel(held.charAt(index));
      }
    }
    if (!this.droppingRest && this.code.current === 'text') {
      if (this.openGroup !== undefined) this.emit(this.openGroup.text);
      if (this.closedGroup !== undefined) this.applyCitation(this.closedGroup);
      this.openGroup = undefined;
      this.closedGroup = undefined;
    }
    // Only whitespace at the very end of the answer is dropped, so the caller can append "\n\nSources: ...".
    return this.output.takeRest();
  }

  private emit(text: string): void {
    for (let index = 0; index < text.length; index++) {
      const character = text.charAt(index);
      this.code.consume(character);
      this.output.append(character);
    }
  }

  private step(character: string): void {
    if (this.droppingRest) return;
    if (this.labelCandidate === undefined || this.code.contextOf(character) !== 'text') return this.stepOutsideLabel(character);
    const candidate = this.labelCandidate + character;
    const decision = classifyLineStart(candidate, false);
    if (decision === 'label') {
      this.droppingRest = true;
    } else if (decision === 'undecided' && candidate.length <= maximumLabelLineLength) {
      this.labelCandidate = candidate;
    } else {
      this.labelCandidate = undefined;
      for (let index = 0; index < candidate.length; index++) this.stepOutsideLabel(candidate.charAt(index));
    }
  }

  /** A character the label check has let through: code passes untouched, text is checked for citations. */
  private stepOutsideLabel(character: string): void {
    if (this.code.contextOf(character) === 'text') return this.stepText(character);
    this.previousCharacter = character;
    this.emit(character);
    // When this newline closes a fence, the next line may be a Sources line again.
    if (character === '\n') this.labelCandidate = '';
  }

  private stepText(character: string): void {
    const previous = this.previousCharacter;
    this.previousCharacter = character;
    if (this.openGroup !== undefined) {
      const group = this.openGroup;
      if (character === ']') {
        const numbers = parseCitationGroup(group.text.slice(1), this.snippetCount);
        if (numbers === undefined) this.emit(group.text + character);
        else this.closedGroup = { text: group.text + character, numbers, spaceBefore: group.spaceBefore };
        this.openGroup = undefined;
        return;
      }
      if (groupCharacterPattern.test(character) && group.text.length <= maximumGroupContentLength) {
        group.text += character;
        return;
      }
      this.emit(group.text);
      this.openGroup = undefined;
    }
    if (this.closedGroup !== undefined) {
      // `[1](https://...)` is a link whose text happens to be a number, not a citation.
      if (character === '(') this.emit(this.closedGroup.text);
      else this.applyCitation(this.closedGroup);
      this.closedGroup = undefined;
    }
    const skip = this.skipNextSpace && character === ' ';
    this.skipNextSpace = false;
    if (skip) return;
    if (character === '[') {
      this.openGroup = { text: character, spaceBefore: previous === ' ' || previous === '\t' };
    } else {
      this.emit(character);
      if (character === '\n') this.labelCandidate = '';
    }
  }

  private applyCitation(group: CitationGroup): void {
    if (group.numbers.length > 0) {
      for (const number of group.numbers) this.cited.add(number);
      this.emit(group.numbers.map((number) => `[${number}]`).join(''));
    } else if (!this.code.lineStarted) {
      // At the start of a line the space after the citation goes, so indentation stays as written.
      this.skipNextSpace = true;
    } else if (group.spaceBefore) {
      this.output.dropHeldSpace();
    }
  }
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
