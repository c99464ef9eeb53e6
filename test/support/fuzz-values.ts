// Building blocks for fuzzing the HTTP routes: strange field values, raw JSON fragments, and the scrubbing that
// keeps every generated URL on a closed loopback port, so no fuzz run ever reaches the network.
import fc from 'fast-check';

/**
 * A string value `@@RAW:<n>@@` is replaced, after JSON.stringify, by `rawFragments[n]` written as raw JSON text:
 * numbers JSON.parse turns into Infinity or rounds, and nesting far deeper than any generator builds.
 */
const rawMarker = /"@@RAW:(\d+)@@"/g;
const rawFragments: readonly string[] = [
  '1e999',
  '-1e999',
  '123456789012345678901234567890',
  '-0',
  '1E+400',
  '0.000000000000000000000000000001',
  '-9007199254740993',
  `${'['.repeat(64)}${']'.repeat(64)}`,
  `${'['.repeat(5_000)}"deep"${']'.repeat(5_000)}`,
  `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
  `${'['.repeat(40_000)}${']'.repeat(40_000)}`,
  `${'{"content":['.repeat(2_000)}{"type":"text","text":"deep part"}${']}'.repeat(2_000)}`,
];

export const rawJsonValue: fc.Arbitrary<string> = fc.nat({ max: rawFragments.length - 1 }).map((index) => `@@RAW:${index}@@`);

/** JSON text of a generated value, with raw fragments put in place. */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.replace(rawMarker, (_match, index: string) => rawFragments[Number(index)] ?? 'null');
}

/** Where URL and file sources may point: a loopback port nothing listens on, and the test's own folders. */
export interface FuzzTargets {
  /** `http://127.0.0.1:<closed port>` */
  readonly closedBaseUrl: string;
  readonly storageRoot: string;
  /** A folder of small files (and links) the file sources may read. */
  readonly filesRoot: string;
  /** The service's limit for one file; uploads one byte over it are generated. */
  readonly maxFileBytes: number;
}

/** Invalid or refused URLs that never open a connection (kept as they are by the scrubber). */
export const harmlessUrls: readonly string[] = [
  'http://',
  'https://',
  'http://[::1',
  'http:// spaced.invalid/',
  'http://%zz/',
  'ftp://127.0.0.1/file.txt',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'data:text/html,<h1>hi</h1>',
  'mailto:someone@example.invalid',
  'gopher://127.0.0.1:70/',
  'ws://127.0.0.1:1/',
];

/**
 * Any string that could parse as an http(s) URL (the URL parser drops tabs and newlines, ignores case and
 * accepts `http:host`) becomes a URL on the closed port, unless it already is one or is a harmless constant.
 */
export function scrubText(text: string, targets: FuzzTargets): string {
  if (harmlessUrls.includes(text) || text.startsWith(`${targets.closedBaseUrl}/`)) return text;
  const squeezed = text.replace(/[\t\n\r]/g, '').toLowerCase();
  return squeezed.includes('http') ? `${targets.closedBaseUrl}/scrubbed` : text;
}

/** Applies `scrubText` to every string value (not key) of a JSON-like value. */
export function scrubValue<T>(value: T, targets: FuzzTargets): T {
  if (typeof value === 'string') return scrubText(value, targets) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => scrubValue(item, targets)) as T;
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(copy, key, { value: scrubValue(item, targets), enumerable: true, writable: true, configurable: true });
    }
    return copy as T;
  }
  return value;
}

const controlText = fc.string({
  unit: fc.constantFrom(
    '\u0000',
    '\u0001',
    '\u0007',
    '\b',
    '\t',
    '\n',
    '\r',
    '\u000b',
    '\u001b',
    '\u007f',
    '\u0085',
    '\u200b',
    '\u2028',
    '\u2029',
    '\ufeff',
    '\ud800',
    '\udfff',
    'a',
    ' ',
    '"',
    '\\',
    '/',
  ),
  maxLength: 30,
});

const trickyText = fc.constantFrom(
  '',
  ' ',
  '\n',
  '..',
  '../',
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '/',
  '//',
  '%2e%2e%2f',
  '%00',
  'NaN',
  '-NaN',
  'Infinity',
  '-Infinity',
  'undefined',
  'null',
  'true',
  '0x1f',
  '1e309',
  '-1',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '{"a":1}',
  '[1,2',
  '<script>alert(1)</script>',
  '${process.env.LLM_API_KEY}',
  '{{7*7}}',
  '@knowledge',
  '@KNOWLEDGE what is this?',
  'Sources: none',
  '[1] [2] [99]',
  '\u202eevil',
  '𝕏𝕐',
  '👩‍👩‍👧‍👦',
  'ﷺ',
  'Ω≈ç√',
  '.tmp-index.json',
  'index.json',
  'CON',
  'a'.repeat(5_000),
  '-'.repeat(80),
);

/** Strings: Unicode graphemes, lone surrogates, control characters, path tricks, and long runs. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  controlText,
  trickyText,
);

/** Printable ASCII only: what fetch lets through as a header value. */
export const headerText: fc.Arbitrary<string> = fc
  .string({ unit: 'grapheme-ascii', maxLength: 40 })
  .map((text) => text.replace(/[\u0000-\u001f\u007f]/g, ''));

const strangeNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(-1, 0, -0, 0.5, 1.5, 2 ** 31, 2 ** 53 + 2, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE),
  rawJsonValue,
);

const nestedArrays = fc.array(fc.array(fc.array(fc.oneof(fc.integer(), anyText, fc.constant(null)), { maxLength: 3 }), { maxLength: 3 }), {
  maxLength: 3,
});

/** A value of the wrong type for most fields. */
export const strangeValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: anyText, weight: 3 },
  { arbitrary: strangeNumber, weight: 2 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
  { arbitrary: nestedArrays, weight: 1 },
  { arbitrary: fc.dictionary(anyText, anyText, { maxKeys: 3 }), weight: 1 },
);

/** Mostly the right kind of value, sometimes a strange one. */
export function mostly<T>(valid: fc.Arbitrary<T>, validWeight = 4): fc.Arbitrary<T | unknown> {
  return fc.oneof({ arbitrary: valid, weight: validWeight }, { arbitrary: strangeValue, weight: 1 });
}

/** An object of the given fields (the `required` ones always, the others or not), plus a few stray keys (`__proto__` included). */
export function looseRecord(
  fields: Record<string, fc.Arbitrary<unknown>>,
  required: readonly string[] = [],
): fc.Arbitrary<Record<string, unknown>> {
  const strayKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'extra', ''), anyText);
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [...required] }),
      fc.option(fc.dictionary(strayKey, strangeValue, { maxKeys: 2 }), { freq: 4 }),
    )
    .map(([known, stray]) => {
      const result: Record<string, unknown> = {};
      for (const [key, value] of [...Object.entries(stray ?? {}), ...Object.entries(known)]) {
        Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return result;
    });
}

export const namespaceValue: fc.Arbitrary<unknown> = mostly(
  fc.oneof(
    { arbitrary: fc.constantFrom('docs', 'fuzz', 'fuzz-b', 'Fuzz_C', 'handmade'), weight: 4 },
    {
      arbitrary: fc.constantFrom('../..', '../../etc', '..%2f..', '', ' ', '.tmp-x', 'index.json', 'a'.repeat(300), 'ns/../../x', 'é-ü-ß'),
      weight: 2,
    },
    { arbitrary: anyText, weight: 1 },
  ),
);

export const titleValue: fc.Arbitrary<unknown> = mostly(
  fc.oneof(anyText, fc.constantFrom('Title', '../../escape', '.tmp-title', 'index', 'x'.repeat(501), '---\ninjected: true\n---')),
);

const markdownPiece = fc.oneof(
  fc.constantFrom(
    '# Title',
    '## Section',
    '```js\nconsole.log("code")\n```',
    '```\nunclosed fence',
    '| a | b |\n|---|---|\n| 1 | 2 |',
    '---\ntitle: injected\n---',
    '- item',
    '> quote',
    '',
    '\r\n',
    '\u0000',
    '<script>x()</script>',
    '[link](javascript:alert(1))',
  ),
  fc.lorem({ maxCount: 12 }),
);

/** Document bodies: text, Markdown-ish pieces, control characters, and one over the 200 kB snippet limit. */
export const documentText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 400 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 200 }), weight: 2 },
  { arbitrary: fc.array(markdownPiece, { maxLength: 12 }).map((pieces) => pieces.join('\n')), weight: 4 },
  { arbitrary: anyText, weight: 2 },
  { arbitrary: fc.constant('x'.repeat(200_001)), weight: 1 },
);

export function urlValue(targets: FuzzTargets): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.webPath().map((path) => `${targets.closedBaseUrl}/${path.replace(/^\/+/, '')}`), weight: 3 },
    { arbitrary: fc.constantFrom(...harmlessUrls, `http://user:secret@${targets.closedBaseUrl.slice('http://'.length)}/x`), weight: 3 },
    { arbitrary: anyText.map((text) => scrubText(text, targets)), weight: 2 },
  );
}

export function filePath(targets: FuzzTargets): fc.Arbitrary<string> {
  const under = (root: string) =>
    fc
      .tuple(
        fc.constantFrom('', 'docs', 'fuzz', 'handmade', 'nope', '..', '../..'),
        fc.constantFrom(
          'index.json',
          'a.md',
          'missing.md',
          '.tmp-x',
          '',
          'notes.md',
          'page.html',
          'broken.pdf',
          'empty.txt',
          'binary.txt',
          'link-out.md',
          'link-in.md',
          'folder.md',
          'notes.MD',
        ),
      )
      .map(([folder, name]) => [root, folder, name].filter((part) => part !== '').join('/'));
  return fc.oneof(
    { arbitrary: under(targets.filesRoot), weight: 4 },
    { arbitrary: under(targets.storageRoot), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        '/nonexistent/file.md',
        'relative/path.md',
        '.',
        '',
        '/',
        '/etc/passwd',
        '/dev/null',
        '/proc/self/environ',
        `${targets.storageRoot}\u0000x.md`,
        '~/x.md',
        `${targets.filesRoot}/notes.md/`,
      ),
      weight: 2,
    },
    { arbitrary: anyText.map((text) => scrubText(text, targets)), weight: 1 },
  );
}
