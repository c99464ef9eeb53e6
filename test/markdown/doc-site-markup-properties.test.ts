// Properties of normalizeDocSiteMarkup over generated pathological Markdown (long runs of brackets, backticks, angle
// brackets, colons; nested lists and quotes; doc-site constructs cut and mixed into them), small and about 1 MB: no
// recognised construct's syntax is left, the output is never longer than the input by more than its code labels,
// and normalising again changes nothing. No timing is asserted here (bench/markup-speed.ts measures it); the 1 MB
// documents finish only because the normalisation is linear. The seed is fixed, so a run in CI is the run here;
// FUZZ_SEED=<n> explores others.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { codeSpans } from '../../src/markdown/code-context.js';
import { closesFence, fenceOpening, type FenceOpening } from '../../src/markdown/markdown-lines.js';
import { normalizeDocSiteMarkup } from '../../src/markdown/doc-site-markup.js';

const seed = Number.parseInt(process.env.FUZZ_SEED ?? '', 10) || 20_261_127;

const runCharacters = ['[', ']', '(', ')', '*', '`', '#', '|', '>', '<', ':', '!', '{', '}', '-', '/', '~', '"', '\\', '%', '=', ' ', '\t'];
const word = fc.constantFrom('alpha', 'Beta', 'gamma_1', 'x', 'npm', 'tip', 'note', 'b', 'T', 'a.md', 'https://x.org');
/** Inline syntax, whole and in pieces, so that removals join pieces into new syntax. */
const inlinePiece = fc.constantFrom(
  '<b>',
  '</b>',
  '<code>',
  '</code>',
  '<br>',
  '<a href="https://x.org">',
  '</a>',
  '<abbr title="t">',
  '<span style="c">',
  '</span>',
  '[a](b.md)',
  '[`c`](d.md)',
  '![i](p.png)',
  '](x.md)',
  '![',
  '{ref}`t <x>`',
  '{py:class}`~a.B`',
  '`code`',
  '``',
  '{{< tab "T" >}}',
  '{{< ref "p.md" >}}',
  '{{% notice tip %}}',
  '{{<',
  '>}}',
  '<!--',
  '-->',
  '{/*',
  '*/}',
  '<TabItem value="v" label="L">',
  '</TabItem>',
  '<Badge text="b" />',
  '<CodeBlock />',
  '<',
  '>',
  '{#a}',
  '[](){#a}',
  '{: .c }',
);
const run = (maximum: number) =>
  fc.tuple(fc.constantFrom(...runCharacters), fc.integer({ min: 1, max: maximum })).map(([character, length]) => character.repeat(length));
const inline = (maximumRun: number) =>
  fc.oneof({ weight: 3, arbitrary: word }, { weight: 2, arbitrary: run(maximumRun) }, { weight: 3, arbitrary: inlinePiece });
/** What a line can start with: nothing, indentation, list markers, quotes, headings, and nestings of them. */
const linePrefix = fc
  .array(fc.constantFrom('', '  ', '    ', '- ', '* ', '1. ', '> ', '# ', '### ', '\t'), { maxLength: 4 })
  .map((parts) => parts.join(''));
const line = (maximumRun: number) =>
  fc
    .tuple(linePrefix, fc.array(inline(maximumRun), { maxLength: 8 }), fc.constantFrom('', ' '))
    .map(([prefix, parts, separator]) => prefix + parts.join(separator));
/** Block syntax, with text from `body` inside; closings may be missing. */
const construct = (body: fc.Arbitrary<string>) =>
  fc
    .tuple(
      fc.constantFrom(
        (text: string) => `::: tip\n${text}\n:::`,
        (text: string) => `:::warning Title\n${text}`,
        (text: string) => `::::note Outer\n:::tip\n${text}\n:::\n::::`,
        (text: string) => `::: code-group\n\n\`\`\`sh [npm]\n${text}\n\`\`\`\n\n:::`,
        (text: string) => `!!! note "Title"\n    ${text}\n\n    more`,
        (text: string) => `??? tip\n    ${text}`,
        (text: string) => `=== "Tab"\n\n    ${text}\n\n=== "Other"\n\n    \`\`\`python\n    ${text}\n    \`\`\``,
        (text: string) => `- item\n\n    === "Nested"\n\n        ${text}`,
        (text: string) => `/// note | Title\n\n${text}\n\n///`,
        (text: string) => `--8<-- "x.md"\n${text}`,
        (text: string) => `\`\`\`{note}\n:class: x\n${text}\n\`\`\``,
        (text: string) => `:::{tip} Title\n${text}\n:::`,
        (text: string) => `{{< tabs >}}\n{{< tab "Linux" >}}\n${text}\n{{< /tab >}}\n{{< /tabs >}}`,
        (text: string) => `{{% notice tip %}}\n${text}\n{{% /notice %}}`,
        (text: string) => `import X from './x'\n\n${text}`,
        (text: string) => `<Tabs\n  groupId="x">\n<TabItem value="a">\n\n${text}\n\n</TabItem>\n</Tabs>`,
        (text: string) => `{/*\n${text}\n*/}`,
        (text: string) => `<!--\n${text}\n-->`,
        (text: string) => `\`\`\`ts twoslash\n// @errors: 2322\n${text}\n// ---cut---\nconst a = 1 // [!code ++]\n//  ^?\n\`\`\``,
        (text: string) => `\`\`\`js{1,3} [file.js]\n${text} // [!code focus]\n\`\`\``,
        (text: string) => `<script setup>\n${text}\n</script>`,
        (text: string) => `::: mod.Class\n    options:\n      ${text}`,
      ),
      body,
    )
    .map(([template, text]) => template(text));
const document = (maximumRun: number, maximumBlocks: number) =>
  fc
    .array(fc.oneof(line(maximumRun), construct(line(maximumRun)), fc.constant('')), { maxLength: maximumBlocks })
    .map((blocks) => blocks.join('\n'));

/**
 * What the output may add: a fence with a label in its info string (`[npm]`, `title="x"`) gets a line of it above, at
 * its indentation, which the info string it comes from pays for but for five characters; and a fence cut short by
 * the end of its list item or container gets its closing line, as long as its opening line at most.
 */
const outputAllowance = (markdown: string): number =>
  markdown
    .split('\n')
    .map((text) => {
      const fence = fenceOpening(text);
      const label = fence !== undefined && /\[|title=/.test(fence.info) ? 5 + fence.indent.length : 0;
      const closing = /^\s*(?:`{3,}|~{3,})/.exec(text)?.[0].length ?? -1;
      return label + closing + 1;
    })
    .reduce((sum, added) => sum + added, 0);

/** Line syntax that must not be left outside code once recognised (these patterns mirror doc-site-lines.ts's). */
const lineSyntax = [
  /^\s*:{3,}\s*(?:(?:\{[\w:.-]+\}|[\w.-]+).*)?$/,
  /^\s*(?:!!!|\?\?\?\+?)\s*[\w-]+(?: +[\w-]+)*(?: +"[^"]*")?\s*$/,
  /^\s*===[!+]?\s+"[^"]*"\s*$/,
  /^\s*\/{3,}\s*(?:[\w-]*\s*(?:\|.*)?)?$/,
  /^\s*--8<--/,
];
/** Pairs that enclose a construct, wherever code spans fall: what an unescaped opener starts, a closer after it ends. */
const pairs = [
  ['{{<', '>}}'],
  ['{{%', '%}}'],
  ['<!--', '-->'],
  ['{/*', '*/}'],
];
/** MDX components, within text between code spans (a tag does not run across code). */
const component = /(?:^|[^\w$\\{])<\/?(?:Tabs?|TabItem|Admonition|Badge|CodeBlock)(?:[\s/][^<>]*)?>/;
const codeSyntax = [
  /^\s*\/\/\s*---cut(?:-before|-after|-start|-end)?---\s*$/,
  /^\s*\/\/\s*\^+[?|]?\s*$/,
  /^\s*\/\/\s*@errors(?::.*|\s*)$/,
  /\[!code [^\]]*\]/,
];

const escaped = (text: string, index: number): boolean => {
  let backslashes = 0;
  while (text.charAt(index - backslashes - 1) === '\\') backslashes++;
  return backslashes % 2 === 1;
};

/** Checks the properties on one document; throws an assertion error naming what failed. */
function checkProperties(markdown: string): void {
  const once = normalizeDocSiteMarkup(markdown);
  assert.ok(once.length <= markdown.length + outputAllowance(markdown) + 2, `grew from ${markdown.length} to ${once.length}`);
  assert.ok(normalizeDocSiteMarkup(once) === once, 'normalising twice differs from normalising once');
  let fence: FenceOpening | undefined;
  for (const text of once.split('\n')) {
    if (fence !== undefined) {
      if (closesFence(text, fence)) fence = undefined;
      // (A line that would close the block once its notation went keeps it: a block's lines never close it.)
      else if (!/^\s*(?:`{3,}|~{3,})/.test(text)) for (const pattern of codeSyntax) assert.doesNotMatch(text, pattern);
      continue;
    }
    fence = fenceOpening(text);
    if (fence !== undefined) {
      assert.doesNotMatch(fence.info, /\stwoslash|[{[]/, text);
      continue;
    }
    for (const pattern of lineSyntax) assert.doesNotMatch(text, pattern);
    const segments: string[] = [];
    let from = 0;
    for (const span of codeSpans(text)) {
      segments.push(text.slice(from, span.start));
      from = span.end;
    }
    segments.push(text.slice(from));
    for (const segment of segments) assert.doesNotMatch(segment, component, text);
    const outside = segments.join(' ');
    for (const [opener, closer] of pairs as [string, string][]) {
      let open = outside.indexOf(opener);
      while (open !== -1 && escaped(outside, open)) open = outside.indexOf(opener, open + 1);
      assert.ok(open === -1 || outside.indexOf(closer, open + opener.length) === -1, `${opener} ... ${closer} left: ${text.slice(0, 200)}`);
    }
  }
}

describe('normalizeDocSiteMarkup properties', () => {
  it('small generated documents: no recognised syntax left, bounded length, idempotent', () => {
    fc.assert(fc.property(document(40, 30), checkProperties), { seed, numRuns: 400 });
  });

  it('generated documents of about 1 MB, with runs up to the whole document, complete with the same properties', () => {
    const large = fc.tuple(document(300_000, 60), fc.integer({ min: 1, max: 20 })).map(([text, copies]) => {
      const unit = text === '' ? '[' : text;
      // Repeated to about 1 MB: the runs and constructs stay, and lines grow as long as the input.
      return unit
        .repeat(Math.max(1, Math.ceil(1_000_000 / (unit.length * copies))))
        .repeat(copies)
        .slice(0, 1_100_000);
    });
    fc.assert(fc.property(large, checkProperties), { seed, numRuns: 12 });
  });

  it('about 1 MB of each run alone, and of nested lists and quotes, completes with the same properties', () => {
    for (const character of runCharacters) checkProperties(`# B\n${character.repeat(1_000_000)}`);
    const nested = Array.from(
      { length: 20_000 },
      (_, index) => `${'> '.repeat(index % 30)}${'  '.repeat(index % 7)}- [a](b.md) <b>x</b> \`y\``,
    );
    checkProperties(nested.join('\n'));
  });
});
