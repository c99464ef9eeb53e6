// The lines normalizeDocSiteMarkup writes (doc-site-markup.ts): blank lines written empty, labels set apart as
// paragraphs of their own (one can wait for its block to close before it shows), and what removed lines leave behind
// (runs of blank lines, blank lines at either end) tidied when the text is taken.
import { isBlank } from './markdown-lines.js';

/** A label that waits for its block to close: its line, and the output line it will take. */
export interface WaitingLabel {
  readonly line: string;
  readonly index: number;
}

export class OutputLines {
  readonly lines: string[] = [];

  push(line: string): number {
    this.lines.push(isBlank(line) ? '' : line);
    return this.lines.length - 1;
  }

  /**
   * `text` as a bold label line set apart from the text before it (and after it, unless a code block follows). One
   * that waits takes an empty line, which `show` fills.
   */
  label(text: string, indent: string, options: { waits: boolean; blankAfter: boolean }): WaitingLabel | undefined {
    if (text === '') return undefined;
    const line = `${indent}**${text}**`;
    if ((this.lines.at(-1) ?? '') !== '') this.push('');
    const index = this.push(options.waits ? '' : line);
    if (options.blankAfter) this.push('');
    return { line, index };
  }

  show(label: WaitingLabel | undefined): void {
    if (label !== undefined) this.lines[label.index] = label.line;
  }

  /** The text: runs of blank lines become one, none is left at the start and at most one at the end. */
  toString(): string {
    let start = 0;
    while (start < this.lines.length - 1 && this.lines[start] === '') start++;
    let end = this.lines.length;
    while (end - start > 1 && this.lines[end - 1] === '' && this.lines[end - 2] === '') end--;
    return this.lines
      .slice(start, end)
      .join('\n')
      .replace(/\n{3,}/g, '\n\n');
  }
}
