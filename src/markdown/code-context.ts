// Where Markdown is code: fenced blocks (``` or ~~~) and code spans (`...`). A tracker for text that arrives a character
// at a time (a model's answer), built on markdown-lines.ts's line rules, and the code spans of a line.
import { closesFence, endsFenceItem, MarkdownLineClassifier, type FenceOpening } from './markdown-lines.js';

export type CodeContext = 'text' | 'code-span' | 'fence';

/**
 * Follows a text character by character and tells whether each one is code. A fence opens with a run of three or
 * more backticks or tildes before any other text of its line, and closes at a line `closesFence` accepts; its opening
 * line counts as code until its end shows whether it opened one (as markdown-lines.ts reads it, in the list item it is
 * in). A code span opens with any other run of backticks and closes at a run as long, or at the end of its line, so an
 * unpaired backtick hides at most the rest of one line.
 */
export class CodeContextTracker {
  private context: CodeContext = 'text';
  /** The current line as fed so far. */
  private line = '';
  /** Whether the current line holds anything but whitespace outside code (a fence opens only before that). */
  private lineHasText = false;
  /** A run of backticks or tildes read in text, whose end decides whether it opens code. */
  private run = { character: '', length: 0, atLineStart: false };
  /** The backtick run that opened the current code span. */
  private spanOpeningLength = 0;
  /** Backticks read in a code span since its last other character. */
  private spanClosingLength = 0;
  /** The current fence's opening, known at the end of its opening line (undefined while on that line). */
  private fence: FenceOpening | undefined;
  /** Reads the lines outside fences, for the list items that a fence's indentation counts from. */
  private readonly lines = new MarkdownLineClassifier();

  /** The context of the text fed so far (a run not yet ended counts as text). */
  get current(): CodeContext {
    return this.context;
  }

  /** Whether the current line holds text outside code yet: false at a line's start and after only whitespace. */
  get lineStarted(): boolean {
    return this.lineHasText;
  }

  /**
   * The context `character` falls in when it comes next. It settles what the characters before it left open (a run
   * ends, a code span closes), so call it before `consume(character)`; calling it again changes nothing.
   */
  contextOf(character: string): CodeContext {
    if (this.context === 'text' && this.run.length > 0 && character !== this.run.character) this.endRun();
    else if (this.context === 'code-span' && character !== '`' && (this.spanClosingLength === this.spanOpeningLength || character === '\n'))
      this.context = 'text';
    return this.context;
  }

  /** Moves past `character`. */
  consume(character: string): void {
    const context = this.contextOf(character);
    if (character === '\n') return this.endLine();
    this.line += character;
    if (context === 'code-span') {
      this.spanClosingLength = character === '`' ? this.spanClosingLength + 1 : 0;
    } else if (context === 'text') {
      if (character === '`' || (character === '~' && (this.run.length > 0 || !this.lineHasText))) {
        if (this.run.length === 0) this.run = { character, length: 0, atLineStart: !this.lineHasText };
        this.run.length += 1;
      }
      if (!/\s/.test(character)) this.lineHasText = true;
    }
  }

  feed(text: string): void {
    for (let index = 0; index < text.length; index++) this.consume(text.charAt(index));
  }

  /** The marker that closes the fence the text fed so far ends inside, or undefined when it ends outside a fence. */
  unclosedFence(): string | undefined {
    const opensFence = this.context === 'text' && this.run.atLineStart && this.run.length >= 3;
    if (opensFence || (this.context === 'fence' && this.fence === undefined)) {
      const line = this.lines.peek(this.line);
      return line.kind === 'fence' ? line.fence.marker : undefined;
    }
    if (this.context !== 'fence' || this.fence === undefined) return undefined;
    return closesFence(this.line, this.fence) ? undefined : this.fence.marker;
  }

  private endRun(): void {
    const opensFence = this.run.atLineStart && this.run.length >= 3;
    if (opensFence) {
      this.context = 'fence';
      this.fence = undefined;
    } else if (this.run.character === '`') {
      this.context = 'code-span';
      this.spanOpeningLength = this.run.length;
      this.spanClosingLength = 0;
    }
    this.run = { character: '', length: 0, atLineStart: false };
  }

  private endLine(): void {
    if (this.context !== 'fence') this.lines.classify(this.line);
    else {
      if (this.fence === undefined) {
        const line = this.lines.classify(this.line);
        this.fence = line.kind === 'fence' ? line.fence : undefined;
      } else if (endsFenceItem(this.line, this.fence)) {
        // The list item the fence was in ended at this line, and the fence with it: the line is read outside code.
        this.fence = undefined;
        this.lines.classify(this.line);
      } else if (closesFence(this.line, this.fence)) this.fence = undefined;
      if (this.fence === undefined) this.context = 'text';
    }
    this.line = '';
    this.lineHasText = false;
  }
}

/** The marker that closes the fence `markdown` ends inside, or undefined (to close an answer cut off in a code block). */
export function unclosedFence(markdown: string): string | undefined {
  const tracker = new CodeContextTracker();
  tracker.feed(markdown);
  return tracker.unclosedFence();
}

/** A code span of one line: `start` is its opening backtick, `end` is just past its closing one. */
export interface CodeSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * Whether a code span cuts into the bracketed construct at line[start, end) whose text is line[textStart, textEnd): a
 * span that overlaps it must lie inside its text (`[`Literal`][typing.Literal]`), or the construct is not one.
 */
export function cutByCodeSpan(spans: readonly CodeSpan[], start: number, end: number, textStart: number, textEnd: number): boolean {
  return spans.some((span) => span.start < end && span.end > start && (span.start < textStart || span.end > textEnd));
}

/**
 * The code spans of one line as CommonMark pairs them: a backtick string opens a span that the next string of the
 * same length closes, and one that no such string follows is literal text, as is a backtick after a backslash.
 * (`CodeContextTracker` closes an unpaired span at the end of its line instead: a stream cannot look ahead.) Linear:
 * each string is paired through a table of the next string of each length.
 */
export function codeSpans(line: string): CodeSpan[] {
  const runs: { start: number; length: number; escaped: boolean }[] = [];
  for (let index = line.indexOf('`'); index !== -1; index = line.indexOf('`', index)) {
    const start = index;
    while (line.charCodeAt(index) === 96) index++;
    let backslashes = 0;
    while (line.charCodeAt(start - backslashes - 1) === 92) backslashes++;
    runs.push({ start, length: index - start, escaped: backslashes % 2 === 1 });
  }
  // For each string, the index of the next string as long as it (an escaped one opens with one backtick fewer).
  const next = new Array<number>(runs.length);
  const nextOfLength = new Map<number, number>();
  for (let index = runs.length - 1; index >= 0; index--) {
    const run = runs[index] as (typeof runs)[number];
    next[index] = nextOfLength.get(run.escaped ? run.length - 1 : run.length) ?? -1;
    nextOfLength.set(run.length, index);
  }
  const spans: CodeSpan[] = [];
  for (let index = 0; index < runs.length; index++) {
    const run = runs[index] as (typeof runs)[number];
    const close = run.escaped && run.length === 1 ? -1 : (next[index] as number);
    if (close === -1) continue;
    const closing = runs[close] as (typeof runs)[number];
    spans.push({ start: run.escaped ? run.start + 1 : run.start, end: closing.start + closing.length });
    index = close;
  }
  return spans;
}
