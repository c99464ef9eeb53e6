// What inline-markup.ts writes: a stack of characters, each with flags, that its rules cut back (a construct from a
// position on goes) or change in place (a link's `[` goes, its text staying where it was), read by live position
// (skipping what went in place); the change logs it is given are rewound whenever it is cut back. Where a cut brings
// text together, a space keeps apart what would otherwise become new syntax: a longer backtick string, a closer.
import type { ChangeLog } from './change-log.js';

/** Character codes the inline rules look for. */
export const Character = {
  tab: 9,
  space: 32,
  bang: 33,
  quote: 34,
  percent: 37,
  openParen: 40,
  closeParen: 41,
  star: 42,
  dash: 45,
  slash: 47,
  less: 60,
  greater: 62,
  openBracket: 91,
  backslash: 92,
  closeBracket: 93,
  backtick: 96,
  openBrace: 123,
  closeBrace: 125,
} as const;

/** Removed in place: a link's `[` (the link's text stays where it was). */
export const DEAD = 1;
/** Inside a code span. */
export const CODE = 2;
/** A backslash that escapes the character after it. */
export const ESCAPER = 4;
export const ESCAPED = 8;
/** A link's `[` kept as a space (so that the backtick strings on either side of it stay apart). */
export const INERT = 16;

const { space, dash, star, slash, greater, backtick, closeBrace } = Character;

export class InlineOutput {
  private codes = new Uint16Array(256);
  private flagsOf = new Uint8Array(256);
  private size = 0;
  /** After a cut: the next character meets text it was not next to. */
  private seam = false;
  /** Whether anything was cut or changed in place (when nothing was, the output is the input). */
  private changedSinceReset = false;
  /** Dead positions, and a position at or after which no live position precedes them (found by `livePrevious`). */
  private readonly skips = new Map<number, number>();

  constructor(private readonly logs: readonly ChangeLog[]) {}

  get length(): number {
    return this.size;
  }

  get changed(): boolean {
    return this.changedSinceReset;
  }

  reset(): void {
    this.size = 0;
    this.seam = false;
    this.changedSinceReset = false;
    // (Clearing a map allocates a new table, even an empty one's.)
    if (this.skips.size > 0) this.skips.clear();
    for (const log of this.logs) log.clear();
    if (this.codes.length > 1 << 16) {
      this.codes = new Uint16Array(256);
      this.flagsOf = new Uint8Array(256);
    }
  }

  /** The character at `position` (0, which no rule looks for, outside the output). */
  code(position: number): number {
    return position < 0 ? 0 : (this.codes[position] ?? 0);
  }

  flags(position: number): number {
    return this.flagsOf[position] ?? 0;
  }

  append(character: number, flags: number): void {
    if (this.seam) {
      this.seam = false;
      const last = this.livePrevious(this.size - 1);
      const previous = this.code(last);
      const beforePrevious = last > 0 ? this.code(this.livePrevious(last - 1)) : 0;
      const joinsCloser =
        (previous === dash && (character === dash || (character === greater && beforePrevious === dash))) ||
        (previous === star && character === slash) ||
        (previous === slash && character === closeBrace && beforePrevious === star);
      if ((character === backtick && previous === backtick) || joinsCloser) this.append(space, 0);
    }
    if (this.size === this.codes.length) {
      const codes = new Uint16Array(this.size * 2);
      codes.set(this.codes);
      this.codes = codes;
      const flags = new Uint8Array(this.size * 2);
      flags.set(this.flagsOf);
      this.flagsOf = flags;
    }
    this.codes[this.size] = character;
    this.flagsOf[this.size] = flags;
    this.size++;
  }

  /** Cuts the output back to `length` characters: a construct from there on goes. */
  truncate(length: number): void {
    this.size = length;
    for (const log of this.logs) log.rewind(length);
    this.changedSinceReset = true;
    this.seam = true;
  }

  /** The next character meets text it was not next to (after a replacement was written). */
  markSeam(): void {
    this.seam = true;
  }

  /** Removes the character at `position` in place, or turns it into a space when `asSpace`. */
  removeInPlace(position: number, asSpace: boolean): void {
    this.changedSinceReset = true;
    if (asSpace) {
      this.codes[position] = space;
      this.flagsOf[position] = this.flags(position) | INERT;
    } else {
      this.flagsOf[position] = this.flags(position) | DEAD;
      this.skips.delete(position);
    }
  }

  /** The last live position at or before `position` (-1 when none). */
  livePrevious(position: number): number {
    if (position < 0 || (this.flags(position) & DEAD) === 0) return position;
    let cursor = position;
    const passed: number[] = [];
    while (cursor >= 0 && (this.flags(cursor) & DEAD) !== 0) {
      passed.push(cursor);
      cursor = this.skips.get(cursor) ?? cursor - 1;
    }
    for (const dead of passed) this.skips.set(dead, cursor);
    return cursor;
  }

  /** The first live position at or after `position` (the length when none). */
  liveNext(position: number): number {
    let cursor = position;
    while (cursor < this.size && (this.flags(cursor) & DEAD) !== 0) cursor++;
    return cursor;
  }

  /** The live characters from `from` up to `to`. */
  liveText(from: number, to: number): string {
    const parts: string[] = [];
    let runStart = from;
    const flush = (end: number): void => {
      for (let chunk = runStart; chunk < end; chunk += 8192) {
        parts.push(String.fromCharCode(...this.codes.subarray(chunk, Math.min(end, chunk + 8192))));
      }
    };
    for (let cursor = from; cursor < to; cursor++) {
      if ((this.flags(cursor) & DEAD) === 0) continue;
      flush(cursor);
      runStart = cursor + 1;
    }
    flush(to);
    return parts.join('');
  }

  /**
   * Where `text` starts when the live characters just before `position` spell it outside code; for an opener
   * (`escapable`), only when its first character is not escaped.
   */
  precededBy(position: number, text: string, escapable = true): number {
    let cursor = position;
    for (let index = text.length - 1; index >= 0; index--) {
      cursor = this.livePrevious(cursor - 1);
      if (cursor === -1 || this.code(cursor) !== text.charCodeAt(index) || (this.flags(cursor) & CODE) !== 0) return -1;
    }
    return !escapable || (this.flags(cursor) & ESCAPED) === 0 ? cursor : -1;
  }
}
