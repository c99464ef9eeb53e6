// Documentation sites write Markdown with their generator's own syntax: admonitions and tabs (MkDocs `!!! tip`,
// `=== "Tab"`, pymdownx `/// tip`, VitePress and Docusaurus `::: tip`, MyST directives), includes, MDX imports and
// components, Hugo shortcodes, twoslash and VitePress notations in code, inline HTML, links to sibling pages. Readers,
// rankers and answers see none of it: this turns such Markdown into plain CommonMark, keeping the words it frames (an
// aside's title becomes a bold label line, a tab its label, a code block's tab or file name a label above it).
// Idempotent: normalising the result again changes nothing. Linear in the input. CommonMark's lines (fences, headings)
// are read by markdown-lines.ts, as the chunker reads them; doc-site-lines.ts classifies the generators' block syntax,
// inline-markup.ts the inline syntax, doc-site-code.ts code.
import { codeBlockLines, codeInfo, type CodeInfo } from './doc-site-code.js';
import {
  blockMarker,
  codeDirectives,
  hiddenDirectives,
  highlightOpening,
  isAsideKind,
  isDirectiveOption,
  isLabelLine,
  isModuleStatement,
  leadingWhitespace,
  mystDirective,
  rawHtmlBlock,
  tagOverLines,
  withoutHeadingAttributes,
  type BlockMarker,
} from './doc-site-lines.js';
import { labelText, titleCase } from './inline-constructs.js';
import { withoutAutorefTargets } from './autorefs.js';
import { reduceInline } from './inline-markup.js';
import {
  closesFence,
  endsFenceItem,
  dedent,
  indentWidth,
  isBlank,
  isYamlDelimiter,
  MarkdownLineClassifier,
  type FenceOpening,
  type MarkdownLine,
} from './markdown-lines.js';
import { OutputLines, type WaitingLabel } from './output-lines.js';

export interface DocSiteMarkupOptions {
  /**
   * Also drop the targets of relative links whose text is code. For text that is quoted to a reader (answers); an
   * ingested page keeps them, because the words of the target (a page, an anchor) help ranking it.
   */
  readonly plainCodeLinks?: boolean;
}

/** A code block being read: it is written when it closes, since twoslash's `---cut---` removes the lines above it. */
interface OpenCode {
  readonly indent: string;
  readonly marker: string;
  readonly info: CodeInfo;
  readonly closes: (line: string) => boolean;
  /** Whether a line ends the list item the block's fence is in, and so the block (a fence in a list item only). */
  readonly endsWithItem?: (line: string) => boolean;
  /** What closes it in the output: its own closing line, or a fence for a Hugo `{{< highlight >}}` block. */
  readonly closing: ((line: string) => string) | undefined;
  readonly lines: string[];
  /** A MyST directive: options at the top (`:linenos:`), or nothing to show (```{toctree}). */
  readonly myst: boolean;
  readonly hidden: boolean;
}

/** A block closed by a line of its own: `:::` and `///` containers, MyST's ```{note} directive. */
interface Container {
  readonly family: 'colon' | 'slash' | 'backtick';
  readonly length: number;
  readonly opening: FenceOpening | undefined;
  /** Its label, waiting in the output: a label shows only when its block closes (and so has a body). */
  readonly label: WaitingLabel | undefined;
}

/** Lines that are read without being Markdown: a comment, a script, an import, API directive options, includes. */
type Skip =
  | { readonly kind: 'raw' | 'comment'; readonly closer: string }
  | { readonly kind: 'module' | 'api' | 'includes' | 'yaml' }
  | { readonly kind: 'options'; readonly first: boolean };

class DocSiteNormalizer {
  private readonly lines: string[];
  private readonly output = new OutputLines();
  private index = 0;
  /** Where the next line starts in the input. */
  private nextOffset = 0;
  /** The indentation (columns) of the markers of the indented blocks the line is in. */
  private readonly frames: number[] = [];
  private readonly containers: Container[] = [];
  /** Reads the Markdown lines (outside code and skipped lines), for the list items a fence's indentation counts from. */
  private readonly classifier = new MarkdownLineClassifier();
  private readonly backtickContainers: number[] = [];
  private code: OpenCode | undefined;
  private skip: Skip | undefined;
  /** The last line of colons alone (found when first needed): a `::: name` after it closes nowhere. */
  private lastBareColons: number | undefined;
  /** Where each closer last appears, to tell a comment or script that closes from one that never does. */
  private readonly lastCloser = new Map<string, number>();

  constructor(
    private readonly markdown: string,
    private readonly options: DocSiteMarkupOptions,
  ) {
    this.lines = markdown.split('\n');
  }

  run(): string {
    for (this.index = 0; this.index < this.lines.length; this.index++) {
      const line = this.lines[this.index] as string;
      this.nextOffset += line.length + 1;
      this.line(line);
    }
    if (this.code !== undefined) this.writeCode(undefined);
    return this.output.toString();
  }

  private closerFollows(closer: string): boolean {
    let last = this.lastCloser.get(closer);
    if (last === undefined) this.lastCloser.set(closer, (last = this.markdown.lastIndexOf(closer)));
    return last >= this.nextOffset;
  }

  private line(raw: string): void {
    if (this.code !== undefined) return this.codeLine(raw);
    if (this.skip !== undefined && !this.skipLine(raw)) return;
    if (isBlank(raw)) {
      this.classifier.classify(raw);
      this.output.push('');
      return;
    }
    const width = indentWidth(raw);
    while (this.frames.length > 0 && width < (this.frames.at(-1) as number) + 4) this.frames.pop();
    const line = this.frames.length === 0 ? raw : dedent(raw, 4 * this.frames.length);
    if (!this.handledAsConstruct(line, width, this.classifier.classify(line))) this.prose(line);
  }

  /**
   * `construct`, and a trace of it in the output: a blank line at least, so that the text on either side of it does
   * not become one paragraph (which the next normalisation would read differently).
   */
  private handledAsConstruct(line: string, width: number, classified: MarkdownLine): boolean {
    const written = this.output.lines.length;
    if (!this.construct(line, width, classified.kind === 'fence' ? classified.fence : undefined)) return false;
    if (this.output.lines.length === written && this.code === undefined) this.output.push('');
    return true;
  }

  /** Reads a line that a skip covers; true when the line is Markdown after all (the skip ended before it). */
  private skipLine(raw: string): boolean {
    const skip = this.skip as Skip;
    const text = raw.trim();
    switch (skip.kind) {
      case 'comment': {
        const end = raw.indexOf(skip.closer);
        if (end === -1) return false;
        // What follows the closer is read as the next line, as it is once the comment has gone.
        this.skip = undefined;
        const rest = raw.slice(end + skip.closer.length).trimStart();
        if (rest !== '') this.line(rest);
        return false;
      }
      case 'raw':
        if (raw.toLowerCase().includes(skip.closer)) this.skip = undefined;
        return false;
      case 'module':
        if (text !== '') return false;
        break;
      case 'api':
        if (text === '' || /^\s/.test(raw)) return false;
        break;
      case 'includes':
        if (text === '--8<--') this.skip = undefined;
        return false;
      case 'yaml':
        if (isYamlDelimiter(text)) this.skip = undefined;
        return false;
      case 'options':
        if (skip.first && isYamlDelimiter(text)) {
          this.skip = { kind: 'yaml' };
          return false;
        }
        if (isDirectiveOption(raw)) {
          this.skip = { kind: 'options', first: false };
          return false;
        }
        break;
    }
    this.skip = undefined;
    return true;
  }

  /** Handles `line` when it is block syntax (`fence`, a container, an include...); false when it is text. */
  private construct(line: string, width: number, fence: FenceOpening | undefined): boolean {
    // The first character rules out most syntax, which keeps a line of text cheap.
    const first = line.charAt(line.length - line.trimStart().length);
    if (first === '`' || first === '~') {
      const innermost = this.containers[this.backtickContainers.at(-1) ?? -1];
      if (innermost?.opening !== undefined && closesFence(line, innermost.opening)) {
        this.closeContainer(this.backtickContainers.at(-1) as number);
        return true;
      }
      if (fence !== undefined) {
        this.openFence(fence);
        return true;
      }
    }
    if (!'{!?=:/-<[ie'.includes(first)) return false;
    const highlight = first !== '{' ? null : highlightOpening.exec(line);
    if (highlight !== null) {
      const language = /^\s*(?:lang=)?["']?([\w+#-]*)/.exec(highlight[1] as string)?.[1] ?? '';
      this.openCode({
        indent: leadingWhitespace(line),
        marker: '```',
        info: { language, label: undefined, twoslash: false },
        closes: (candidate) => /^\s*\{\{[<%]\s*\/\s*(?:highlight|code)\s*[>%]\}\}\s*$/.test(candidate),
        closing: () => `${leadingWhitespace(line)}\`\`\``,
        myst: false,
        hidden: false,
      });
      return true;
    }
    const marker = blockMarker(line);
    if (marker !== undefined && this.blockMarker(marker, line, width)) return true;
    const rawBlock = rawHtmlBlock(line);
    if (rawBlock !== undefined) {
      const closer = `</${rawBlock}`;
      if (line.toLowerCase().includes(closer)) return true;
      if (this.closerFollows(closer)) {
        this.skip = { kind: 'raw', closer };
        return true;
      }
    }
    // At the start of the line as it is written out (a block's indentation is gone there, as in the next pass).
    if (isModuleStatement(line)) {
      this.skip = { kind: 'module' };
      return true;
    }
    return false;
  }

  private blockMarker(marker: BlockMarker, line: string, width: number): boolean {
    const indent = leadingWhitespace(line);
    switch (marker.kind) {
      case 'hidden':
        return true;
      case 'include-block':
        this.skip = { kind: 'includes' };
        return true;
      case 'indented':
        // A label shows when content follows, indented into the block.
        if (marker.label !== undefined && this.bodyFollows(width)) {
          this.output.label(this.label(marker.label), indent, { waits: false, blankAfter: true });
        }
        this.frames.push(width);
        return true;
      case 'close': {
        const top = this.containers.at(-1);
        if (top !== undefined && top.family === marker.family && top.length <= marker.length)
          this.closeContainer(this.containers.length - 1);
        return true;
      }
      case 'open': {
        if (marker.family === 'colon' && !marker.myst && this.isApiDirective(marker.name, marker.title)) {
          this.skip = { kind: 'api' };
          return true;
        }
        const kindLabel =
          marker.family === 'slash'
            ? marker.name === '' || marker.name === 'tab' || marker.name === 'html'
              ? undefined
              : titleCase(marker.name)
            : isAsideKind(marker.name)
              ? titleCase(marker.name)
              : undefined;
        this.openContainer(marker.family, marker.length, undefined, marker.title ?? kindLabel, indent);
        if (marker.myst) this.skip = { kind: 'options', first: true };
        return true;
      }
    }
  }

  /** mkdocstrings' `::: package.module.Class`: a name with a dot, or one no closing `:::` line follows. */
  private isApiDirective(name: string, title: string | undefined): boolean {
    if (title !== undefined) return false;
    if (name.includes('.')) return true;
    if (isAsideKind(name) || ['code-group', 'v-pre', 'raw'].includes(name)) return false;
    this.lastBareColons ??= this.lines.findLastIndex((line) => line.includes(':::') && /^\s*:{3,}\s*$/.test(line));
    return this.index > this.lastBareColons;
  }

  /** Whether the next line with text is indented into a block whose marker is indented `width` columns. */
  private bodyFollows(width: number): boolean {
    for (let next = this.index + 1; next < this.lines.length; next++) {
      const line = this.lines[next] as string;
      if (line.trim() !== '') return indentWidth(line) >= width + 4;
    }
    return false;
  }

  /** A title as a label's text: its markup goes, and so does a comment it opens (a label line never opens one). */
  private label(title: string): string {
    const result = reduceInline(title, this.options);
    return labelText(result.openComment?.before ?? result.text);
  }

  private openContainer(
    family: Container['family'],
    length: number,
    opening: FenceOpening | undefined,
    title: string | undefined,
    indent: string,
  ): void {
    const label = title === undefined ? undefined : this.output.label(this.label(title), indent, { waits: true, blankAfter: true });
    this.containers.push({ family, length, opening, label });
    if (family === 'backtick') this.backtickContainers.push(this.containers.length - 1);
  }

  private closeContainer(index: number): void {
    this.output.show(this.containers[index]?.label);
    this.containers.length = index;
    while ((this.backtickContainers.at(-1) ?? -1) >= index) this.backtickContainers.pop();
  }

  private openFence(opening: FenceOpening): void {
    const directive = mystDirective(opening.info);
    const closes = (line: string): boolean => closesFence(line, opening);
    const endsWithItem = (line: string): boolean => endsFenceItem(line, opening);
    const code = { indent: opening.indent, marker: opening.marker, closes, endsWithItem, closing: (line: string) => line };
    if (directive === undefined) return this.openCode({ ...code, info: codeInfo(opening.info), myst: false, hidden: false });
    const { name, argument } = directive;
    if (codeDirectives.has(name) || hiddenDirectives.has(name)) {
      const language = name.startsWith('code') || name === 'sourcecode' ? (argument.split(/\s/)[0] ?? '') : name;
      return this.openCode({
        ...code,
        info: { language, label: undefined, twoslash: false },
        myst: true,
        hidden: hiddenDirectives.has(name),
      });
    }
    const title = argument !== '' ? argument : isAsideKind(name) ? titleCase(name) : undefined;
    this.openContainer('backtick', opening.marker.length, opening, title, opening.indent);
    this.skip = { kind: 'options', first: true };
  }

  private openCode(code: Omit<OpenCode, 'lines'>): void {
    this.code = { ...code, lines: [] };
  }

  private codeLine(raw: string): void {
    const code = this.code as OpenCode;
    const line = dedent(raw, 4 * this.frames.length);
    if (code.endsWithItem?.(line)) {
      // The list item the fence was in ended here: the fence ends with it, closed in the output, and the line is read.
      this.writeCode(`${code.indent}${code.marker}`);
      return this.line(raw);
    }
    if (code.closes(line)) this.writeCode(line);
    else code.lines.push(line);
  }

  /** Writes the code block read so far; `closingLine` is the line that closed it (none at the end of the input). */
  private writeCode(closingLine: string | undefined): void {
    const code = this.code as OpenCode;
    this.code = undefined;
    const { lines, caption } = codeBlockLines(code.lines, code.info, code.closes, code.myst);
    // A block of includes and markers only shows nothing (but a blank line, as other removed blocks).
    if (code.hidden || (lines.every((line) => line.trim() === '') && code.lines.some((line) => line.trim() !== ''))) {
      this.output.push('');
      return;
    }
    const label = caption ?? code.info.label;
    if (label !== undefined) this.output.label(this.label(label), code.indent, { waits: false, blankAfter: false });
    // A language that starts with the fence's character (`~~~ ~`) stays apart from it, or the fence would grow.
    const separator = code.info.language.startsWith(code.marker.charAt(0)) ? ' ' : '';
    this.output.push(`${code.indent}${code.marker}${separator}${code.info.language}`);
    for (const line of lines) this.output.push(line);
    if (closingLine !== undefined && code.closing !== undefined) this.output.push(code.closing(closingLine));
  }

  /**
   * A line of text: its inline markup goes. What that leaves can be block syntax (`<b></b>::: tip`), or a label
   * (`<TabItem label="npm">`), handled as such; a comment that the line starts and does not close hides the lines up
   * to its closer (an HTML block), when one follows; a tag it starts and does not close can end on a later line.
   */
  private prose(line: string): void {
    let result = reduceInline(line, this.options);
    const comment = result.openComment;
    if (comment !== undefined && isBlank(comment.before) && this.closerFollows(comment.closer)) {
      this.skip = { kind: 'comment', closer: comment.closer };
      this.output.push('');
      return;
    }
    const tag = tagOverLines(result.text, this.lines, this.index, this.options);
    if (tag !== undefined) {
      for (; this.index < tag.lastLine; this.index++) this.nextOffset += (this.lines[this.index + 1] as string).length + 1;
      result = reduceInline(tag.text, this.options);
    }
    // Text quoted to a reader reads an autoref as its text.
    const text = this.options.plainCodeLinks === true ? withoutAutorefTargets(result.text) : result.text;
    if (text !== line) {
      if (isBlank(text)) {
        this.output.push('');
        return;
      }
      const read = this.classifier.peek(text);
      // A fence that only the markup's removal made (`<b>```) is text: escaped, it stays text when read again.
      if (read.kind === 'fence') {
        this.output.push(text.replace(/^(\s*)([`~])/, '$1\\$2'));
        return;
      }
      if (this.handledAsConstruct(text, indentWidth(text) + 4 * this.frames.length, read)) return;
      if (result.labelled === true && isLabelLine(text)) {
        this.output.label(text.trim().slice(2, -2), leadingWhitespace(text), { waits: false, blankAfter: true });
        return;
      }
    }
    this.output.push(withoutHeadingAttributes(text));
  }
}

export function normalizeDocSiteMarkup(markdown: string, options: DocSiteMarkupOptions = {}): string {
  return new DocSiteNormalizer(markdown, options).run();
}
