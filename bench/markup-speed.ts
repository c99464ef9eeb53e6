// Speed of doc-site markup normalisation (src/markdown/doc-site-markup.ts), and of the whole path a Markdown upload
// takes in a conversion worker (src/ingest/prepare-document.ts: front matter, normalisation, title, hash, chunks), on
// pathological Markdown: each pattern repeated to the input size (6 MB, the largest source the service accepts), in a
// child process of its own so that a pattern that takes too long is stopped and reported rather than waited for.
// Prints ms per MB of each, and the most characters in one chunk (the chunker's bound is 1,200).
// Run: npx tsx bench/markup-speed.ts [--megabytes 6] [--limit-seconds 60] [--module path/to/doc-site-markup.ts]
// (--module times another version of the module, for instance the previous commit's, copied out with git show.)
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { prepareDocument } from '../src/ingest/prepare-document.js';
import { sharedDataDirectory } from './shared-data.js';

const argument = (name: string, fallback: string): string => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : (process.argv[index + 1] ?? fallback);
};
const megabytes = Number(argument('megabytes', '6'));
const limitSeconds = Number(argument('limit-seconds', '60'));
const modulePath = resolve(argument('module', fileURLToPath(new URL('../src/markdown/doc-site-markup.ts', import.meta.url))));

/** Real pages (MkDocs Material), for a figure on ordinary input beside the pathological ones. */
function realPages(): string {
  const directory = `${sharedDataDirectory}/docs-pydantic`;
  const files = (path: string): string[] =>
    statSync(path).isDirectory() ? readdirSync(path).flatMap((name) => files(join(path, name))) : path.endsWith('.md') ? [path] : [];
  return files(directory)
    .map((path) => readFileSync(path, 'utf8'))
    .join('\n\n');
}

/** Each pattern: the text repeated to fill the input (a prefix written once before it). */
const patterns: Record<string, { prefix?: string; unit: () => string }> = {
  'run of [ (one line)': { prefix: '# B\n', unit: () => '[' },
  'run of ( (one line)': { unit: () => '(' },
  'run of * (one line)': { unit: () => '*' },
  'run of backticks (one line)': { prefix: 'x ', unit: () => '`' },
  'run of # (one line)': { unit: () => '#' },
  'run of | (one line)': { unit: () => '|' },
  'run of > (one line)': { unit: () => '>' },
  'run of < (one line)': { prefix: 'x ', unit: () => '<' },
  'run of : (one line)': { unit: () => ':' },
  'run of ! (one line)': { unit: () => '!' },
  'run of { (one line)': { unit: () => '{' },
  'run of spaces then x': { prefix: '#', unit: () => ' ' },
  '[a]( without )': { unit: () => '[a](' },
  '![ without ]': { unit: () => '![' },
  '<b unclosed tags': { unit: () => '<b ' },
  '<a href= unclosed': { unit: () => '<a href="https://x">' },
  'backtick strings of growing length': {
    unit: (() => {
      let length = 0;
      return () => `${'`'.repeat((length = (length % 40) + 1))}x`;
    })(),
  },
  '{{< unclosed shortcodes': { unit: () => '{{< tab "x" ' },
  '<!-- unclosed comments': { unit: () => '<!-- ' },
  '{/* unclosed comments': { unit: () => '{/* ' },
  '{role} before code': { unit: () => '{ref}`x` ' },
  'nested links [[[a](b)': { unit: () => '[' },
  'heading attributes { #a } x': { prefix: '# T', unit: () => ' { #a } x' },
  'lines of ::: name': { unit: () => '::: tip\n' },
  'lines of !!! note, indented deeper': {
    unit: (() => {
      let depth = 0;
      return () => `${'    '.repeat((depth = (depth + 1) % 50))}!!! note\n`;
    })(),
  },
  'lines of <Tabs (unclosed tags)': { unit: () => '<Tabs\n' },
  'nested lists and quotes': {
    unit: (() => {
      let depth = 0;
      return () => `${'> '.repeat((depth = (depth + 1) % 30))}${'  '.repeat(depth)}- item [a](b.md) <b>x</b>\n`;
    })(),
  },
  'fences with twoslash lines': { unit: () => '```ts twoslash\n// @errors: 2322\nconst a = 1 // [!code ++]\n// ---cut---\n//  ^?\n```\n' },
  'real pages (docs-pydantic)': { unit: realPages },
};

function input(name: string, bytes: number): string {
  const pattern = patterns[name] as (typeof patterns)[string];
  const parts = [pattern.prefix ?? ''];
  let length = parts[0]?.length ?? 0;
  while (length < bytes) {
    const unit = pattern.unit();
    parts.push(unit);
    length += unit.length;
  }
  return parts.join('').slice(0, bytes);
}

const childIndex = process.argv.indexOf('--child');
if (childIndex !== -1) {
  const name = process.argv[childIndex + 1] as string;
  const { normalizeDocSiteMarkup } = (await import(pathToFileURL(modulePath).href)) as {
    normalizeDocSiteMarkup: (markdown: string) => string;
  };
  const prepare = (text: string) => prepareDocument({ format: 'markdown', bytes: Buffer.from(text), url: undefined });
  normalizeDocSiteMarkup(input(name, 20_000));
  await prepare(input(name, 20_000));
  const text = input(name, Math.round(megabytes * 1_000_000));
  let started = performance.now();
  const output = normalizeDocSiteMarkup(text);
  const milliseconds = performance.now() - started;
  started = performance.now();
  const prepared = await prepare(text);
  const preparedMilliseconds = performance.now() - started;
  const longestChunk = prepared.chunks.reduce((longest, chunk) => Math.max(longest, chunk.text.length), 0);
  console.log(JSON.stringify({ milliseconds, preparedMilliseconds, longestChunk, inputLength: text.length, outputLength: output.length }));
} else {
  console.log(`normalizeDocSiteMarkup, ${megabytes} MB per pattern, ${modulePath}`);
  console.log(
    'pattern'.padEnd(40),
    'ms per MB'.padStart(12),
    'total ms'.padStart(12),
    'output/input'.padStart(14),
    'prepare ms/MB'.padStart(14),
    'longest chunk'.padStart(14),
  );
  for (const name of Object.keys(patterns)) {
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2), '--child', name],
      {
        encoding: 'utf8',
        timeout: limitSeconds * 1000,
        maxBuffer: 1 << 20,
      },
    );
    if (child.status !== 0) {
      const reason =
        child.error !== undefined || child.signal !== null ? `over ${limitSeconds} s` : `failed: ${child.stderr.trim().split('\n').at(-1)}`;
      console.log(name.padEnd(40), reason.padStart(12));
      continue;
    }
    const { milliseconds, preparedMilliseconds, longestChunk, inputLength, outputLength } = JSON.parse(child.stdout) as {
      milliseconds: number;
      preparedMilliseconds: number;
      longestChunk: number;
      inputLength: number;
      outputLength: number;
    };
    const perMegabyte = (total: number) => (total / (inputLength / 1_000_000)).toFixed(1);
    console.log(
      name.padEnd(40),
      perMegabyte(milliseconds).padStart(12),
      milliseconds.toFixed(0).padStart(12),
      (outputLength / inputLength).toFixed(3).padStart(14),
      perMegabyte(preparedMilliseconds).padStart(14),
      String(longestChunk).padStart(14),
    );
  }
}
