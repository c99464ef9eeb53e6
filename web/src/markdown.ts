// A small Markdown reader for answers: the blocks and inline marks answers use (paragraphs, headings, fenced code,
// lists, quotes, rules; code spans, bold, italics, links, [n] citations), as plain data. It never produces HTML:
// markup in the text stays text, and only http(s) and mailto links become links. No DOM here (unit-tested under Node).

export type Inline =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'code'; readonly text: string }
  | { readonly kind: 'strong'; readonly children: readonly Inline[] }
  | { readonly kind: 'emphasis'; readonly children: readonly Inline[] }
  | { readonly kind: 'link'; readonly href: string; readonly children: readonly Inline[] }
  | { readonly kind: 'citation'; readonly number: number };

export type Block =
  | { readonly kind: 'paragraph'; readonly inlines: readonly Inline[] }
  | { readonly kind: 'heading'; readonly level: number; readonly inlines: readonly Inline[] }
  | { readonly kind: 'code'; readonly language: string; readonly text: string }
  | { readonly kind: 'list'; readonly ordered: boolean; readonly start: number; readonly items: readonly (readonly Inline[])[] }
  | { readonly kind: 'quote'; readonly inlines: readonly Inline[] }
  | { readonly kind: 'rule' };

const fencePattern = /^\s{0,3}(```+|~~~+)\s*([\w+#.-]*)/;
const headingPattern = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const rulePattern = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const itemPattern = /^\s{0,3}(?:([-*+])|(\d{1,9})[.)])\s+(.*)$/;
const quotePattern = /^\s{0,3}>\s?(.*)$/;

/** A link target the page may follow: http(s) and mailto only (never javascript:, data: or relative paths). */
export function safeHref(target: string): string | undefined {
  const trimmed = target.trim();
  if (!/^(https?:\/\/|mailto:)/i.test(trimmed)) return undefined;
  try {
    return new URL(trimmed).href;
  } catch {
    return undefined;
  }
}

/** Inline marks of one block's text; `[n]` up to `snippetCount` is a citation. */
export function parseInlines(text: string, snippetCount: number): Inline[] {
  const inlines: Inline[] = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') inlines.push({ kind: 'text', text: plain });
    plain = '';
  };
  let index = 0;
  while (index < text.length) {
    const rest = text.slice(index);
    const character = text[index] as string;
    let match: RegExpExecArray | null;
    if (character === '`' && (match = /^(`+)([\s\S]*?[^`])\1(?!`)/.exec(rest)) !== null) {
      flush();
      inlines.push({ kind: 'code', text: (match[2] as string).replace(/^ (.*) $/, '$1') });
      index += match[0].length;
    } else if (
      character === '[' &&
      (match = /^\[(\d{1,3})\]/.exec(rest)) !== null &&
      Number(match[1]) >= 1 &&
      Number(match[1]) <= snippetCount
    ) {
      flush();
      inlines.push({ kind: 'citation', number: Number(match[1]) });
      index += match[0].length;
    } else if (character === '[' && (match = /^\[([^\]\n]+)\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)/.exec(rest)) !== null) {
      const href = safeHref(match[2] as string);
      flush();
      const label = parseInlines(match[1] as string, snippetCount);
      if (href === undefined) inlines.push(...label);
      else inlines.push({ kind: 'link', href, children: label });
      index += match[0].length;
    } else if (
      (character === '<' && (match = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(rest)) !== null) ||
      ((character === 'h' || character === 'H') &&
        /[^\w/]$|^$/.test(text.slice(Math.max(0, index - 1), index)) &&
        (match = /^https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"*_\]]/i.exec(rest)) !== null)
    ) {
      const target = match[1] ?? match[0];
      const href = safeHref(target);
      flush();
      inlines.push(
        href === undefined ? { kind: 'text', text: match[0] } : { kind: 'link', href, children: [{ kind: 'text', text: target }] },
      );
      index += match[0].length;
    } else if ((character === '*' || character === '_') && (match = strongOrEmphasis(text, index)) !== null) {
      flush();
      const children = parseInlines(match[2] as string, snippetCount);
      inlines.push((match[1] as string).length === 2 ? { kind: 'strong', children } : { kind: 'emphasis', children });
      index += match[0].length;
    } else if (character === '\\' && index + 1 < text.length && /[\\`*_[\]()#+\-.!<>]/.test(text[index + 1] as string)) {
      plain += text[index + 1];
      index += 2;
    } else {
      plain += character;
      index += 1;
    }
  }
  flush();
  return inlines;
}

/** `**x**`, `__x__`, `*x*` or `_x_` starting at `index`; underscores only at word edges, so snake_case stays text. */
function strongOrEmphasis(text: string, index: number): RegExpExecArray | null {
  const before = index === 0 ? ' ' : (text[index - 1] as string);
  const marker = text[index] as string;
  if (marker === '_' && /\w/.test(before)) return null;
  const pattern = marker === '*' ? /^(\*\*|\*)(?!\s)([\s\S]*?[^\s*])\1(?!\*)/ : /^(__|_)(?!\s)([\s\S]*?[^\s_])\1(?![\w_])/;
  return pattern.exec(text.slice(index));
}

/** The blocks of an answer (or of the part of it streamed so far: an unclosed fence runs to the end). */
export function parseMarkdown(text: string, snippetCount: number): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const inline = (value: string) => parseInlines(value, snippetCount);
  const endParagraph = () => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', inlines: inline(paragraph.join('\n')) });
    paragraph = [];
  };

  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const fence = fencePattern.exec(line);
    if (fence !== null) {
      endParagraph();
      const marker = fence[1] as string;
      const body: string[] = [];
      index++;
      while (
        index < lines.length &&
        !new RegExp(`^\\s{0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`).test(lines[index] as string)
      ) {
        body.push(lines[index] as string);
        index++;
      }
      blocks.push({ kind: 'code', language: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    if (line.trim() === '') {
      endParagraph();
      continue;
    }
    const heading = headingPattern.exec(line);
    if (heading !== null) {
      endParagraph();
      blocks.push({ kind: 'heading', level: (heading[1] as string).length, inlines: inline(heading[2] as string) });
      continue;
    }
    if (rulePattern.test(line)) {
      endParagraph();
      blocks.push({ kind: 'rule' });
      continue;
    }
    const item = itemPattern.exec(line);
    if (item !== null) {
      endParagraph();
      const ordered = item[2] !== undefined;
      const items: string[] = [item[3] as string];
      // Further items of the same kind, and indented continuation lines of the last one.
      while (index + 1 < lines.length) {
        const next = lines[index + 1] as string;
        const nextItem = itemPattern.exec(next);
        if (nextItem !== null && (nextItem[2] !== undefined) === ordered) items.push(nextItem[3] as string);
        else if (/^\s{2,}\S/.test(next) && nextItem === null) items[items.length - 1] += `\n${next.trim()}`;
        else break;
        index++;
      }
      blocks.push({ kind: 'list', ordered, start: ordered ? Number(item[2]) : 1, items: items.map(inline) });
      continue;
    }
    const quote = quotePattern.exec(line);
    if (quote !== null) {
      endParagraph();
      const quoted: string[] = [quote[1] as string];
      while (index + 1 < lines.length && quotePattern.test(lines[index + 1] as string)) {
        quoted.push(quotePattern.exec(lines[index + 1] as string)?.[1] ?? '');
        index++;
      }
      blocks.push({ kind: 'quote', inlines: inline(quoted.join('\n')) });
      continue;
    }
    paragraph.push(line);
  }
  endParagraph();
  return blocks;
}
