// Code blocks as doc sites write them, as readers see them: the fence's info string reduced to its language (line
// highlights `js{1,3}`, `hl_lines`, `twoslash`, attribute lists `{ .python .annotate }` go; a tab or file label `[npm]`
// or `title="main.py"` becomes a label line), and the lines the generator acts on removed: twoslash's cuts, queries
// and compiler flags, VitePress's `// [!code ++]` notations, unresolved `--8<--` includes. Linear in the block.
import { reduceInline } from './inline-markup.js';

export interface CodeInfo {
  readonly language: string;
  /** The tab or file the block is labelled with (`[npm]`, `title="main.py"`, MyST's `:caption:`). */
  readonly label: string | undefined;
  readonly twoslash: boolean;
}

const consoleLanguages = new Set(['', 'console', 'bash', 'sh', 'shell', 'shell-session', 'text', 'txt']);
/** Twoslash's own flags (`// @errors: 2322`); in a block marked twoslash, compiler options (`// @strict: true`) too. */
const twoslashFlags = new Set(
  'errors noErrors noErrorValidation noErrorsCutted filename showEmit showEmittedFile keepNotations noStaticSemanticInfo log warn'.split(
    ' ',
  ),
);

/** The language, label and twoslash mark of a fence's info string. */
export function codeInfo(info: string): CodeInfo {
  const text = info.trim();
  let language: string;
  let label: string | undefined;
  let index = 0;
  if (text.startsWith('{')) {
    // `{ .dockerfile .annotate hl_lines="3" }`: the first class is the language.
    const end = text.indexOf('}');
    const attributes = text.slice(1, end === -1 ? text.length : end);
    language = /(?:^|\s)\.([\w+#-]+)/.exec(attributes)?.[1] ?? '';
    label = quotedValue(attributes, 'title');
    index = end === -1 ? text.length : end + 1;
  } else {
    while (index < text.length && !/[\s{[:]/.test(text.charAt(index))) index++;
    language = text.slice(0, index);
  }
  const rest = text.slice(index);
  const bracket = rest.indexOf('[');
  const bracketEnd = bracket === -1 ? -1 : rest.indexOf(']', bracket);
  // `[npm]`, `[vite.config.js]` (but not a `[!code ...]` notation).
  if (bracketEnd !== -1 && rest.charAt(bracket + 1) !== '!') label = rest.slice(bracket + 1, bracketEnd).trim() || label;
  label ??= quotedValue(rest, 'title');
  return { language, label, twoslash: /(?:^|\s)twoslash(?:\s|$)/.test(rest) };
}

/** The value of `name="value"` (or single quotes) in `text`. */
function quotedValue(text: string, name: string): string | undefined {
  const start = text.indexOf(`${name}=`);
  if (start === -1 || (start > 0 && !/\s|\{/.test(text.charAt(start - 1)))) return undefined;
  const quote = text.charAt(start + name.length + 1);
  if (quote !== '"' && quote !== "'") return undefined;
  const end = text.indexOf(quote, start + name.length + 2);
  const value = text.slice(start + name.length + 2, end === -1 ? text.length : end).trim();
  return value === '' ? undefined : value;
}

/** `// ---cut---` and its kinds, in any block (twoslash's marker is never code a reader needs). */
function cutMarker(line: string): string | undefined {
  const match = /^\s*\/\/\s*---(cut(?:-before|-after|-start|-end)?)---\s*$/.exec(line);
  return match?.[1];
}

/** `// ^?`, `// ^|`, `//   ^^^ highlight`: twoslash's queries and highlights under the line they point at. */
function isQuery(line: string): boolean {
  const text = line.trimStart();
  if (!text.startsWith('//')) return false;
  const rest = text.slice(2).trimStart();
  let carets = 0;
  while (rest.charAt(carets) === '^') carets++;
  if (carets === 0) return false;
  const after = rest.slice(carets);
  return after.trim() === '' || ((after.charAt(0) === '?' || after.charAt(0) === '|') && after.slice(1).trim() === '') || /^\s/.test(after);
}

/** `// @errors: 2322`, `// @noErrors`, `// @filename: a.ts` (any `// @name` in a twoslash block, but `@ts-` directives). */
function isFlag(line: string, twoslash: boolean): boolean {
  const match = /^\s*\/\/\s*@([A-Za-z][\w-]*)(?::.*|\s*)$/.exec(line);
  if (match === null) return false;
  const name = match[1] as string;
  return twoslashFlags.has(name) || (twoslash && !name.startsWith('ts-'));
}

/** Comments a notation sits in: their opener, and their closer when they have one. */
const comments: readonly (readonly [string, string])[] = [
  ['{/*', '*/}'],
  ['<!--', '-->'],
  ['/*', '*/'],
  ['//', ''],
  ['--', ''],
  ['#', ''],
  [';', ''],
  ["'", ''],
  ['%', ''],
];

/**
 * A code line as a reader sees it: without its `[!code ...]` notations and the comment that held nothing else, and in
 * a terminal transcript without its colours (one pass of inline-markup.ts, so that what one removal completes goes
 * too). A line that this would turn into one closing the block (```` ``` // [!code focus] ````) keeps its comment, or
 * if that is not enough, stays as it is: a code block's lines never close it.
 */
function codeLine(line: string, transcript: boolean, closes: (line: string) => boolean): string {
  const result = reduceInline(line, { code: { transcript } });
  if (result.text === line) return line;
  const text = result.text.trimEnd();
  if (closes(text)) return line;
  if (result.notations !== true) return result.text;
  for (const [opener, closer] of comments) {
    if (!text.endsWith(closer)) continue;
    const inside = text.slice(0, text.length - closer.length).trimEnd();
    if (!inside.endsWith(opener)) continue;
    const before = inside.slice(0, inside.length - opener.length);
    if ((before === '' || /\s$/.test(before)) && !closes(before.trimEnd())) return before.trimEnd();
  }
  return text;
}

/**
 * The lines of a code block (between its fences) as a reader sees them; `closes` tells a line that would close the
 * block. With `myst`, the options a MyST directive starts with (`:linenos:`) go, and their `:caption:` is returned.
 */
export function codeBlockLines(
  lines: readonly string[],
  info: CodeInfo,
  closes: (line: string) => boolean,
  myst = false,
): { lines: string[]; caption?: string } {
  const transcript = consoleLanguages.has(info.language.toLowerCase());
  let body = lines.map((line) => codeLine(line, transcript, closes));
  let caption: string | undefined;
  if (myst) {
    let start = 0;
    for (; start < body.length; start++) {
      const option = /^\s*:([\w-]+):(.*)$/.exec(body[start] as string);
      if (option === null) break;
      if (option[1] === 'caption') caption = (option[2] as string).trim();
    }
    body = body.slice(start);
  }
  const kept: string[] = [];
  let skipping = false;
  for (const line of body) {
    const marker = cutMarker(line);
    if (marker === 'cut' || marker === 'cut-before') kept.length = 0;
    else if (marker === 'cut-after') break;
    else if (marker === 'cut-start') skipping = true;
    else if (marker === 'cut-end') skipping = false;
    else if (!skipping && !isQuery(line) && !isFlag(line, info.twoslash) && !/^\s*-{2}8<-{2}/.test(line)) kept.push(line);
  }
  return caption === undefined ? { lines: kept } : { lines: kept, caption };
}
