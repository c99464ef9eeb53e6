// Inline doc-site markup in one pass over a line: HTML and MDX tags, links and images to sibling pages (and attribute
// lists after them), MyST roles, Hugo shortcodes and comments (inline-constructs.ts says what replaces each); in a line
// of code, `[!code ...]` notations and a transcript's colours. The output is a stack: a rule is checked
// when the character that ends its syntax is pushed, against the output so far, so text that a removal joins is
// checked too, and normalising the result again changes nothing. Linear in the line: each character is pushed once, a
// rule reads a bounded window or what it removes, and what a removal rewinds to is kept in change logs.
import { ChangeLog } from './change-log.js';
import { codeSpans, type CodeSpan } from './code-context.js';
import { closingTags, isAttributeList } from './inline-syntax.js';
import {
  consoleTagReplacement,
  roleText,
  shortcodeReplacement,
  tagReplacement,
  type ConversionState,
  type TagSyntax,
} from './inline-constructs.js';
import { Character, CODE, DEAD, ESCAPED, ESCAPER, INERT, InlineOutput } from './inline-output.js';

export interface InlineOptions {
  /** Also drop the targets of relative links whose text holds code (see DocSiteMarkupOptions). */
  readonly plainCodeLinks?: boolean;
  /**
   * A line of code: only its `[!code ...]` notations go, and its presentational tags when `transcript` (the colours
   * and underlines of a terminal transcript).
   */
  readonly code?: { readonly transcript: boolean };
}

export interface InlineResult {
  readonly text: string;
  /** Whether a tab's or an aside's tag or shortcode left its label (`**npm**`) in the text. */
  readonly labelled?: boolean;
  /** A comment (`<!--` or `{/*`) the line leaves open: the text before it, and what would close it. */
  readonly openComment?: { readonly before: string; readonly closer: string };
  /** A line of code: whether a `[!code ...]` notation went. */
  readonly notations?: boolean;
}

/** States of a link destination being read, after its `(`. */
const TARGET = 1;
const AFTER_TARGET = 2;
const TITLE = 3;
const AFTER_TITLE = 4;
const { tab, space, bang, quote, percent, openParen, closeParen, star, dash, slash, less, greater } = Character;
const { openBracket, backslash, closeBracket, backtick, openBrace, closeBrace } = Character;
/** Characters a relative link target does not hold (it would not be one link). */
const notInTarget = new Set([...'()<>[]`"'].map((character) => character.charCodeAt(0)));
const isNameCharacter = (character: number): boolean => /[A-Za-z0-9._-]/.test(String.fromCharCode(character));
const isWordCharacter = (character: number): boolean => /[A-Za-z0-9_$]/.test(String.fromCharCode(character));
const maxNameLength = 64;

class InlineReducer {
  /** The last `<` that no `>` has followed. */
  private readonly openTag = new ChangeLog();
  /** The open `[` on top of the stack of brackets: a node of nodePositions and nodeBelow. */
  private readonly brackets = new ChangeLog();
  /** Each `]`: the `[` it closes; extra: 1 when code lies between them, 2 when markup does. */
  private readonly closes = new ChangeLog();
  /** The link destination being read: its `(` times 8 plus its state; extra: its text as `closes` had it. */
  private readonly destination = new ChangeLog();
  /** Where `<`, `>`, `{` and `}` are (a link text holding one stays, so no tag or role forms when it is removed). */
  private readonly markup = new ChangeLog();
  private readonly codeStarts = new ChangeLog();
  /** The start of the first open `<!--`, `{/*`, `{{<` and `{{%`. */
  private readonly comment = new ChangeLog();
  private readonly mdxComment = new ChangeLog();
  private readonly shortcode = new ChangeLog();
  private readonly percentShortcode = new ChangeLog();
  /** Where an attribute list would follow the link or image that ends just before it (`[](){#anchor}`). */
  private readonly attributesAt = new ChangeLog();
  /** The start of the attribute list being read. */
  private readonly attributes = new ChangeLog();
  /** In code, the start of the `[!code ` notation being read. */
  private readonly notation = new ChangeLog();
  private readonly output = new InlineOutput([
    this.openTag,
    this.brackets,
    this.closes,
    this.destination,
    this.markup,
    this.codeStarts,
    this.comment,
    this.mdxComment,
    this.shortcode,
    this.percentShortcode,
    this.attributesAt,
    this.attributes,
    this.notation,
  ]);
  private nodePositions = new Int32Array(64);
  private nodeBelow = new Int32Array(64);
  private nodeCount = 0;
  private options: InlineOptions = {};
  private labelled = false;
  private notationsRemoved = false;
  private inputIndex = 0;
  /** The last position of each `</name>` in the input (found when first needed), for elements that become pairs. */
  private closers: Map<string, number> | undefined;
  private input = '';
  private spans: readonly CodeSpan[] = [];
  private readonly conversions: ConversionState = { open: new Map(), linkTargets: [] };

  reduce(line: string, options: InlineOptions): InlineResult {
    this.start(line, options);
    let spanIndex = 0;
    for (let index = 0; index < line.length; ) {
      const span = this.spans[spanIndex];
      this.inputIndex = index;
      if (span !== undefined && span.start === index) {
        this.pushCodeSpan(line.slice(span.start, span.end));
        index = span.end;
        spanIndex++;
      } else this.push(line.charCodeAt(index++));
    }
    // Nothing removed or replaced: the output is the line.
    const text = this.output.changed ? this.output.liveText(0, this.output.length) : line;
    if (options.code !== undefined) return { text, notations: this.notationsRemoved };
    const html = this.comment.value;
    const mdx = this.mdxComment.value;
    if (html === -1 && mdx === -1) return this.labelled ? { text, labelled: true } : { text };
    const [start, closer] = html !== -1 && (mdx === -1 || html < mdx) ? [html, '-->'] : [mdx, '*/}'];
    return { text, labelled: this.labelled, openComment: { before: this.output.liveText(0, start), closer } };
  }

  private start(line: string, options: InlineOptions): void {
    this.options = options;
    this.input = line;
    this.spans = options.code !== undefined || !line.includes('`') ? [] : codeSpans(line);
    this.closers = undefined;
    this.labelled = false;
    this.notationsRemoved = false;
    this.nodeCount = 0;
    this.output.reset();
    if (this.conversions.open.size > 0) this.conversions.open.clear();
    this.conversions.linkTargets.length = 0;
    if (this.nodePositions.length > 1 << 16) {
      this.nodePositions = new Int32Array(64);
      this.nodeBelow = new Int32Array(64);
    }
  }

  /** Pushes what replaces a construct; a bold text longer than a pair of markers is a label. */
  private pushReplacement(text: string): void {
    if (text.length > 4 && text.startsWith('**') && text.endsWith('**')) this.labelled = true;
    this.pushString(text);
  }

  private pushString(text: string): void {
    for (let index = 0; index < text.length; index++) this.push(text.charCodeAt(index));
    this.output.markSeam();
  }

  private pushCodeSpan(span: string): void {
    const role = this.roleBefore();
    if (role !== undefined) {
      const fence = span.length - span.replace(/^`+/, '').length;
      const shown = roleText(role.name, span.slice(fence, span.length - fence));
      if (shown !== undefined) {
        this.output.truncate(role.start);
        if (!shown.code && !shown.text.includes('`')) return this.pushString(shown.text);
        span = `${span.slice(0, fence)}${shown.text}${span.slice(0, fence)}`;
      }
    }
    const position = this.output.length;
    if (this.destination.value !== -1) this.destination.set(position, -1);
    this.codeStarts.set(position, position);
    for (let index = 0; index < span.length; index++) this.output.append(span.charCodeAt(index), CODE);
  }
  private push(character: number): void {
    const position = this.output.length;
    const previous = this.output.livePrevious(position - 1);
    const code = this.options.code;
    if (code !== undefined) return this.pushCode(character, position, code.transcript);
    const escaped = previous !== -1 && (this.output.flags(previous) & ESCAPER) !== 0;
    this.output.append(character, escaped ? ESCAPED : character === backslash ? ESCAPER : 0);
    const destination = this.destination.value;
    const destinationText = this.destination.extra;
    if (destination !== -1) this.readDestination(destination, character, position, escaped);
    if (escaped) {
      // Inside a comment or a shortcode a backslash escapes nothing: `<!-- a \-->` ends there.
      if (character === greater) this.closeComment(position);
      else if (character === closeBrace && !this.closeMdxComment(position) && !this.closeShortcode(this.shortcode, position, '>}')) {
        this.closeShortcode(this.percentShortcode, position, '%}');
      }
      return;
    }
    switch (character) {
      case less:
        this.markup.set(position, position);
        this.openTag.set(position, position);
        this.openShortcode(this.shortcode, position);
        return;
      case percent:
        return this.openShortcode(this.percentShortcode, position);
      case greater:
        this.markup.set(position, position);
        if (!this.closeComment(position)) this.closeTagAt(position);
        return;
      case dash: {
        const start = this.output.precededBy(position, '<!-');
        if (start !== -1 && this.comment.value === -1) this.comment.set(position, start);
        return;
      }
      case star: {
        const start = this.output.precededBy(position, '{/');
        if (start !== -1 && this.mdxComment.value === -1) this.mdxComment.set(position, start);
        return;
      }
      case openBrace:
        this.markup.set(position, position);
        if (this.attributesAt.value === position) this.attributes.set(position, position);
        return;
      case closeBrace:
        this.markup.set(position, position);
        if (this.closeMdxComment(position) || this.closeShortcode(this.shortcode, position, '>}')) return;
        if (!this.closeShortcode(this.percentShortcode, position, '%}')) this.closeAttributes(position);
        return;
      case openBracket:
        return this.openBracket(position);
      case closeBracket:
        return this.closeBracket(position);
      case openParen:
        if (previous === position - 1 && this.closes.position === previous) {
          this.destination.set(position, position * 8 + TARGET, this.closes.value * 4 + this.closes.extra);
        }
        return;
      case closeParen:
        if (destination !== -1) this.closeLink(destination, destinationText, position);
        return;
    }
  }

  /** A character of a line of code: a `[!code ...]` notation ends at `]`; in a transcript, a tag at `>`. */
  private pushCode(character: number, position: number, transcript: boolean): void {
    this.output.append(character, 0);
    if (character === space) {
      const start = this.output.precededBy(position, '[!code', false);
      if (start !== -1) this.notation.set(position, start);
    } else if (character === closeBracket && this.notation.value !== -1) {
      this.output.truncate(this.notation.value);
      this.notationsRemoved = true;
    } else if (transcript && character === less) this.openTag.set(position, position);
    else if (transcript && character === greater) this.closeTagAt(position);
  }

  private readDestination(value: number, character: number, position: number, escaped: boolean): void {
    const state = value & 7;
    const blank = character === space || character === tab;
    let next: number;
    if (state === TARGET) next = blank ? AFTER_TARGET : escaped || !notInTarget.has(character) ? TARGET : -1;
    else if (state === AFTER_TARGET) next = blank ? AFTER_TARGET : character === quote ? TITLE : -1;
    else if (state === TITLE) next = character === quote && !escaped ? AFTER_TITLE : TITLE;
    else next = blank ? AFTER_TITLE : -1;
    if (next !== state) this.destination.set(position, next === -1 ? -1 : value - state + next, this.destination.extra);
  }

  private openBracket(position: number): void {
    if (this.nodeCount === this.nodePositions.length) {
      const positions = new Int32Array(this.nodeCount * 2);
      positions.set(this.nodePositions);
      this.nodePositions = positions;
      const below = new Int32Array(this.nodeCount * 2);
      below.set(this.nodeBelow);
      this.nodeBelow = below;
    }
    this.nodePositions[this.nodeCount] = position;
    this.nodeBelow[this.nodeCount] = this.brackets.value;
    this.brackets.set(position, this.nodeCount++);
  }

  private closeBracket(position: number): void {
    let top = this.brackets.value;
    // A `[` whose link was resolved is no longer a bracket; it stays on the stack until a `]` reaches it.
    while (top !== -1 && (this.output.flags(this.nodePositions[top] as number) & (DEAD | INERT)) !== 0) top = this.nodeBelow[top] as number;
    if (top === -1) return;
    const open = this.nodePositions[top] as number;
    this.brackets.set(position, this.nodeBelow[top] as number);
    this.closes.set(position, open, (this.codeStarts.position > open ? 1 : 0) | (this.markup.position > open ? 2 : 0));
  }

  /** At `)`: a link or an image whose destination was read; one to a sibling page goes (a link keeps its text). */
  private closeLink(destination: number, text: number, position: number): void {
    if ((destination & 7) === TITLE) return;
    const paren = (destination - (destination & 7)) / 8;
    const open = text >> 2;
    const before = this.output.livePrevious(open - 1);
    const target = this.output.liveText(paren + 1, Math.min(position, paren + 8));
    const image = before !== -1 && this.output.code(before) === bang && (this.output.flags(before) & (CODE | ESCAPED)) === 0;
    if (image || paren - 1 === open + 1) {
      // An image of the site, or a link without text (an anchor, `[](){#name}`): it shows nothing here.
      if (!image || !/^(?:https?:|data:)/.test(target)) this.output.truncate(image ? before : open);
      return this.attributesMayFollow(position);
    }
    const holdsCode = (text & 1) !== 0;
    if (/^(?:https?:|mailto:|#)/.test(target) || (text & 2) !== 0 || (holdsCode && this.options.plainCodeLinks !== true)) {
      return this.attributesMayFollow(position);
    }
    this.output.truncate(paren - 1);
    // Its `[` goes in place, or becomes a space where its going would join the text to a backtick or a `]` before it.
    const joins = before !== -1 && (this.output.code(before) === backtick || this.output.code(before) === closeBracket);
    this.output.removeInPlace(open, joins);
    this.attributesMayFollow(position);
  }

  /** After a link or an image ending at `position` (kept or gone): an attribute list may come next. */
  private attributesMayFollow(position: number): void {
    const next = Math.min(position + 1, this.output.length);
    this.attributesAt.set(next - 1, next);
  }

  /** At `}`: an attribute list after a link or an image (`{#anchor}`, `{: .class }`, `{ width="300" }`) goes. */
  private closeAttributes(position: number): void {
    const start = this.attributes.value;
    if (start !== -1 && isAttributeList(this.output.liveText(start + 1, position))) this.output.truncate(start);
  }

  private closersOfInput(): Map<string, number> {
    this.closers ??= closingTags(this.input, this.spans);
    return this.closers;
  }

  /** At `>`: the tag that the last open `<` began, when it is one that goes or becomes Markdown. */
  private closeTagAt(position: number): void {
    const open = this.openTag.value;
    this.openTag.set(position, -1);
    if (open === -1 || this.output.precededBy(open, '{{') !== -1) return;
    let cursor = this.output.liveNext(open + 1);
    const closing = cursor < position && this.output.code(cursor) === slash;
    if (closing) cursor = this.output.liveNext(cursor + 1);
    let name = '';
    while (cursor < position && name.length <= maxNameLength && isNameCharacter(this.output.code(cursor))) {
      name += String.fromCharCode(this.output.code(cursor));
      cursor = this.output.liveNext(cursor + 1);
    }
    if (!/^[A-Za-z]/.test(name) || name.length > maxNameLength) return;
    const after = this.output.code(cursor);
    if (cursor < position && after !== space && after !== tab && after !== slash) return;
    const before = this.output.livePrevious(open - 1);
    // `Ref<T>`, `List<String>`: a type's parameter, not a component.
    if (/^[A-Z]/.test(name) && before !== -1 && isWordCharacter(this.output.code(before))) return;
    const last = this.output.livePrevious(position - 1);
    const selfClosing = last >= cursor && this.output.code(last) === slash;
    const tag: TagSyntax = { name, closing, selfClosing, attributes: () => this.output.liveText(cursor, selfClosing ? last : position) };
    const replacement =
      this.options.code !== undefined
        ? consoleTagReplacement(tag)
        : tagReplacement(tag, (element) => (this.closersOfInput().get(element) ?? -1) > this.inputIndex, this.conversions);
    if (replacement === undefined) return;
    this.output.truncate(open);
    this.pushReplacement(replacement);
  }

  private closeComment(position: number): boolean {
    const start = this.comment.value;
    if (start === -1 || this.output.precededBy(position, '--', false) < start + 4) return false;
    this.output.truncate(start);
    return true;
  }

  private closeMdxComment(position: number): boolean {
    const start = this.mdxComment.value;
    if (start === -1 || this.output.precededBy(position, '*/', false) < start + 3) return false;
    this.output.truncate(start);
    return true;
  }

  /** At `<` or `%`: `{{<` or `{{%` opens a shortcode, unless one of its kind is open already. */
  private openShortcode(log: ChangeLog, position: number): void {
    const start = this.output.precededBy(position, '{{');
    if (start !== -1 && log.value === -1) log.set(position, start);
  }

  /** At `}`: `>}}` or `%}}` closes the open shortcode of its kind. */
  private closeShortcode(log: ChangeLog, position: number, closer: string): boolean {
    const start = log.value;
    const end = start === -1 ? -1 : this.output.precededBy(position, closer, false);
    if (end < start + 3) return false;
    const replacement = shortcodeReplacement(this.output.liveText(start + 3, end));
    this.output.truncate(start);
    this.pushReplacement(replacement);
    return true;
  }

  /** `{name}` at the end of the output, before a code span: a MyST role. */
  private roleBefore(): { name: string; start: number } | undefined {
    let cursor = this.output.livePrevious(this.output.length - 1);
    if (cursor === -1 || this.output.code(cursor) !== closeBrace || (this.output.flags(cursor) & (CODE | ESCAPED)) !== 0) return undefined;
    let name = '';
    for (
      cursor = this.output.livePrevious(cursor - 1);
      cursor !== -1 && name.length <= maxNameLength;
      cursor = this.output.livePrevious(cursor - 1)
    ) {
      const character = this.output.code(cursor);
      if (character === openBrace) break;
      if ((this.output.flags(cursor) & CODE) !== 0 || !/[\w:+.-]/.test(String.fromCharCode(character))) return undefined;
      name = String.fromCharCode(character) + name;
    }
    if (cursor === -1 || name.length > maxNameLength || (this.output.flags(cursor) & (CODE | ESCAPED)) !== 0) return undefined;
    const before = this.output.livePrevious(cursor - 1);
    if (before !== -1 && /[\w{}$]/.test(String.fromCharCode(this.output.code(before)))) return undefined;
    return { name, start: cursor };
  }
}

/** One reducer for every line: its buffers grow to the longest line once (and are let go after a very long one). */
const reducer = new InlineReducer();
/** What can start inline markup: a line without any of these is left as it is. */
const markupStart = /[<[{]/;

export function reduceInline(line: string, options: InlineOptions = {}): InlineResult {
  if (options.code !== undefined ? !line.includes('[!code') && !(options.code.transcript && line.includes('<')) : !markupStart.test(line)) {
    return { text: line };
  }
  return reducer.reduce(line, options);
}
