// Documentation-site syntax turned into plain Markdown: what readers, rankers and answers see.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { closesFence, fenceOpening, type FenceOpening } from '../../src/markdown/markdown-lines.js';
import { normalizeDocSiteMarkup } from '../../src/markdown/doc-site-markup.js';
import { fixturesDirectory } from '../support/fixtures.js';

describe('normalizeDocSiteMarkup', () => {
  const cases: { name: string; input: string; expected: string }[] = [
    { name: 'heading attributes go', input: '## Origin { #origin }\n\nText.', expected: '## Origin\n\nText.' },
    { name: 'attribute lists with classes go too', input: '# Title {: .big #top }', expected: '# Title' },
    { name: 'include directives go', input: 'Before.\n\n{* ../../docs_src/app.py hl[3] *}\n\nAfter.', expected: 'Before.\n\nAfter.' },
    {
      name: 'a line that starts like a fence but holds backticks in its info string opens none (the chunker agrees)',
      input: '```js``` is inline code.\n\n{* ../../docs_src/app.py *}\n\nAfter.',
      expected: '```js``` is inline code.\n\nAfter.',
    },
    {
      name: 'an admonition fence becomes its kind in bold, the content stays',
      input: '/// tip\n\nUse it.\n\n///',
      expected: '**Tip**\n\nUse it.\n',
    },
    {
      name: 'a titled admonition keeps its title in bold',
      input: '/// note | Technical Details\n\nDetails.\n\n///',
      expected: '**Technical Details**\n\nDetails.\n',
    },
    {
      name: 'tabs (four slashes) keep their label',
      input: '//// tab | Python 3.10+\n\nCode.\n\n////',
      expected: '**Python 3.10+**\n\nCode.\n',
    },
    {
      name: 'Python-Markdown admonitions are dedented',
      input: '!!! warning "Careful"\n    Indented text.\n\nNext.',
      expected: '**Careful**\n\nIndented text.\n\nNext.',
    },
    {
      name: 'API reference directives go with their options',
      input: '::: fastapi.Request\n    options:\n      show: true\n\nProse.',
      expected: 'Prose.',
    },
    { name: 'abbreviations keep their text', input: 'Use an <abbr title="Object-Relational Mapper">ORM</abbr>.', expected: 'Use an ORM.' },
    {
      name: 'HTML emphasis and code become Markdown',
      input: 'A <b>bold</b> and <code>x</code> and <kbd>Ctrl</kbd>.',
      expected: 'A **bold** and `x` and `Ctrl`.',
    },
    {
      name: 'absolute HTML links become Markdown links',
      input: 'See <a href="https://example.com/x">here</a>.',
      expected: 'See [here](https://example.com/x).',
    },
    {
      name: 'relative links keep their text',
      input: 'See [Background Tasks](background-tasks.md#caveat).',
      expected: 'See Background Tasks.',
    },
    {
      name: 'absolute links stay',
      input: 'See [MDN](https://developer.mozilla.org/).',
      expected: 'See [MDN](https://developer.mozilla.org/).',
    },
    { name: 'relative images go', input: 'Look: ![diagram](/img/a.svg) done.', expected: 'Look:  done.' },
    {
      name: 'placeholders that are not HTML stay',
      input: 'Send <your-token> as the header.',
      expected: 'Send <your-token> as the header.',
    },
    { name: 'inline code is left alone', input: 'Write `<b>` and `{ #x }` literally.', expected: 'Write `<b>` and `{ #x }` literally.' },
    {
      name: 'code blocks are left alone, except colour tags in terminal transcripts',
      input: '```html\n<span>kept</span>\n```\n\n```console\n<span style="color: green;">INFO</span>: ok\n```',
      expected: '```html\n<span>kept</span>\n```\n\n```console\nINFO: ok\n```',
    },
    {
      name: 'plain Markdown passes unchanged',
      input: '# Title\n\nText with `code` and [a link](https://a.b).\n\n- item',
      expected: '# Title\n\nText with `code` and [a link](https://a.b).\n\n- item',
    },
  ];
  for (const { name, input, expected } of cases) {
    it(name, () => assert.equal(normalizeDocSiteMarkup(input), expected));
  }

  it('drops the targets of relative links whose text is code only when asked (for quoted text)', () => {
    const input = 'Use the provided [`GzipMiddleware`](../advanced/middleware.md#gzip) or [the `Request`](request.md), not `[a](b.md)`.';
    assert.equal(normalizeDocSiteMarkup(input), input);
    assert.equal(
      normalizeDocSiteMarkup(input, { plainCodeLinks: true }),
      'Use the provided `GzipMiddleware` or the `Request`, not `[a](b.md)`.',
    );
    assert.equal(normalizeDocSiteMarkup('See [`Query`](https://x.dev/q).', { plainCodeLinks: true }), 'See [`Query`](https://x.dev/q).');
  });

  it('is idempotent', () => {
    const input = '## A { #a }\n\n/// tip\n\nSee [B](b.md) and <abbr title="t">C</abbr>.\n\n///\n';
    const once = normalizeDocSiteMarkup(input);
    assert.equal(normalizeDocSiteMarkup(once), once);
  });
});

/** Each generator's syntax: the words it frames stay as plain Markdown, the syntax goes. */
function table(name: string, cases: readonly (readonly [string, string, string])[]): void {
  describe(name, () => {
    for (const [title, input, expected] of cases) {
      it(title, () => {
        const output = normalizeDocSiteMarkup(input);
        assert.equal(output, expected);
        assert.equal(normalizeDocSiteMarkup(output), output, 'normalising again changes nothing');
      });
    }
  });
}

table('Docusaurus and VitePress containers', [
  ['a container becomes its kind as a label', '::: tip\nUse the CLI.\n:::', '**Tip**\n\nUse the CLI.\n'],
  ['a title is the label', ':::warning Careful now\nBody.\n:::', '**Careful now**\n\nBody.\n'],
  ['details keep their summary', '::: details Click me\nHidden **body**.\n:::', '**Click me**\n\nHidden **body**.\n'],
  ['Docusaurus titles in brackets', ':::tip[Docusaurus title]\nBody.\n:::', '**Docusaurus title**\n\nBody.\n'],
  ['containers nest with more colons', '::::note Outer\n:::tip\nInner.\n:::\n::::', '**Outer**\n\n**Tip**\n\nInner.\n'],
  [
    'a code group keeps every block, each after its tab label',
    '::: code-group\n\n```sh [npm]\nnpm i x\n```\n\n```sh [pnpm]\npnpm add x\n```\n\n:::',
    '**npm**\n```sh\nnpm i x\n```\n\n**pnpm**\n```sh\npnpm add x\n```\n',
  ],
  ['v-pre keeps its content as written', '::: v-pre\n`{{ x }}`\n:::', '`{{ x }}`\n'],
  ['a container never closed shows no label (it framed nothing)', ':::tip\nText.', 'Text.'],
  ['a file name in the info string becomes a label', '```vue [App.vue]\n<template />\n```', '**App.vue**\n```vue\n<template />\n```'],
]);

table('MkDocs Material and pymdownx', [
  ['collapsible admonitions', '??? tip\n    Folded.', '**Tip**\n\nFolded.'],
  ['open collapsible admonitions with a title', '???+ tip "Open"\n    Open.', '**Open**\n\nOpen.'],
  ['an empty title shows none', '!!! note ""\n    No title.', 'No title.'],
  [
    'nested admonitions are dedented level by level',
    '!!! note\n    Outer.\n\n    !!! tip "Inner"\n        Inner body.\n\n    Outer again.\n\nOut.',
    '**Note**\n\nOuter.\n\n**Inner**\n\nInner body.\n\nOuter again.\n\nOut.',
  ],
  [
    "content tabs in a list item keep the item's indentation",
    '- item\n\n    === "Python 3.10+"\n\n        ```python\n        x = 1\n        ```\n\n    === "Python 3.9"\n\n        y\n\nAfter.',
    '- item\n\n    **Python 3.10+**\n\n    ```python\n    x = 1\n    ```\n\n    **Python 3.9**\n\n    y\n\nAfter.',
  ],
  [
    'snippet includes go, single and in blocks',
    'Before.\n\n--8<-- "snippets/x.md"\n\n--8<--\na.md\nb.md\n--8<--\n\nAfter.',
    'Before.\n\nAfter.',
  ],
  [
    'a fence title becomes a label, highlights go',
    '```python {title="main.py" hl_lines="2"}\nx = 1\n```',
    '**main.py**\n```python\nx = 1\n```',
  ],
  ['an attribute list names the language', '```{ .dockerfile .annotate }\nFROM python\n```', '```dockerfile\nFROM python\n```'],
  ['API directives without a dot go with their options too', '::: pydantic_core\n    options:\n      show: true\n\nProse.', 'Prose.'],
  ['anchors (an empty link with an attribute list) go', 'Text.\n\n[](){#pattern-note}\n\nMore.', 'Text.\n\nMore.'],
  [
    'an attribute list on a line of its own goes',
    '* Plain serializers\n  are called.\n  {#field-plain-serializer}\n\nNext {x}.',
    '* Plain serializers\n  are called.\n\nNext {x}.',
  ],
  [
    'attribute lists after links and images go, braces elsewhere stay',
    'See [a](b.md){: .x }, ![i](p.png){ width="300" }, [c](https://x.org){#y} and [d](https://x.org){and more}.',
    'See a, , [c](https://x.org) and [d](https://x.org){and more}.',
  ],
]);

table('MyST', [
  ['a fenced directive is an aside, its options go', '```{note}\n:class: dropdown\nBody.\n```', '**Note**\n\nBody.\n'],
  [
    'an admonition keeps its title and its code',
    '````{admonition} Custom\n```python\nx = 1\n```\n````',
    '**Custom**\n\n```python\nx = 1\n```\n',
  ],
  ['colon fences', ':::{tip} Title\n:class: x\nBody.\n:::', '**Title**\n\nBody.\n'],
  [
    'a code directive is a code block, its caption the label',
    '```{code-block} python\n:caption: main.py\n:linenos:\nprint(1)\n```',
    '**main.py**\n```python\nprint(1)\n```',
  ],
  ['a toctree shows nothing', '```{toctree}\nintro\n```\n\nText.', 'Text.'],
  [
    'roles keep the text they show',
    'See {ref}`the guide <guide>`, {doc}`intro` and {py:class}`~pydantic.BaseModel`.',
    'See the guide, intro and `BaseModel`.',
  ],
]);

table('Hugo shortcodes', [
  [
    'tabs keep their labels and content',
    '{{< tabs >}}\n{{< tab "Linux" >}}\nRun it.\n{{< /tab >}}\n{{< /tabs >}}',
    '**Linux**\n\nRun it.\n',
  ],
  ['a notice is an aside', '{{% notice tip %}}\nA tip.\n{{% /notice %}}', '**Tip**\n\nA tip.\n'],
  [
    'a reference keeps the page, and a link to it its text',
    'See [the page]({{< ref "install.md" >}}) or {{< relref "a.md" >}}.',
    'See the page or a.md.',
  ],
  [
    'a highlight block is a code block',
    '{{< highlight go "linenos=table" >}}\nfunc main() {}\n{{< /highlight >}}',
    '```go\nfunc main() {}\n```',
  ],
]);

table('MDX', [
  ['imports and exports go', "import Tabs from '@theme/Tabs';\nexport const meta = {\n  title: 'x',\n};\n\n# Title", '# Title'],
  [
    'tabs keep their labels and content, not their tags',
    '<Tabs groupId="pm">\n<TabItem value="npm" label="npm">\n\nnpm i\n\n</TabItem>\n</Tabs>',
    '**npm**\n\nnpm i\n',
  ],
  [
    'a tag over several lines',
    '<Tabs\n  groupId="pm"\n  defaultValue="yarn">\n<TabItem value="yarn">\n\nyarn add\n\n</TabItem>\n</Tabs>',
    '**yarn**\n\nyarn add\n',
  ],
  [
    'an admonition component keeps its title',
    '<Admonition type="tip" title="Mind this">\nBody.\n</Admonition>',
    '**Mind this**\n\nBody.\n',
  ],
  ['self-closing components go', 'Before <CodeBlock language="js" title="a.js" /> after.', 'Before  after.'],
  ['a badge keeps its text', '### Other <Badge text="3.4+" />', '### Other 3.4+'],
  ['comments go, inline and over lines', 'Text {/* hidden */} more.\n\n{/*\nblock\n*/}\n\nEnd.', 'Text  more.\n\nEnd.'],
  ['HTML comments go too', '<!--\nseveral\nlines\n-->\n\nText <!-- c --> end.', 'Text  end.'],
  ['a generic type is not a component', 'A `Ref<T>` or a List<String> of Ref<T>.', 'A `Ref<T>` or a List<String> of Ref<T>.'],
  [
    "VitePress pages' scripts and styles go",
    "<script setup>\nimport { ref } from 'vue'\n</script>\n<style scoped>\n.a { color: red }\n</style>\n\n# Counter",
    '# Counter',
  ],
]);

table('code notations', [
  [
    'twoslash: flags and queries go, and what comes before a cut',
    '```ts twoslash\n// @errors: 2322\n// @filename: a.ts\nconst hidden = 1\n// ---cut---\nconst x: number = "a"\n//    ^?\n```',
    '```ts\nconst x: number = "a"\n```',
  ],
  ['twoslash: what comes after cut-after goes', '```ts\nconst a = 1\n// ---cut-after---\nconst b = 2\n```', '```ts\nconst a = 1\n```'],
  [
    'TypeScript directives stay',
    '```ts\n// @ts-expect-error\nconst x: number = "a"\n```',
    '```ts\n// @ts-expect-error\nconst x: number = "a"\n```',
  ],
  [
    'VitePress: line highlights and notations go, the lines stay',
    '```js{1,3-4}\nconst a = 1 // [!code ++]\nconst b = 2 // [!code --]\nconst c = 3 // [!code focus]\nconst d = 4 // [!code highlight]\n```',
    '```js\nconst a = 1\nconst b = 2\nconst c = 3\nconst d = 4\n```',
  ],
  [
    'notations in other comments',
    '```html\n<div>x</div> <!-- [!code focus] -->\n```\n\n```python\nx = 1  # [!code ++]\n```',
    '```html\n<div>x</div>\n```\n\n```python\nx = 1\n```',
  ],
]);

describe('normalizeDocSiteMarkup on the FastAPI pages of the fixtures', () => {
  const root = join(fixturesDirectory, 'docs-fastapi');
  const pages = (readdirSync(root, { recursive: true }) as string[]).filter((name) => name.endsWith('.md')).map((name) => join(root, name));

  it('leaves none of their markup outside code, and normalising again changes nothing', () => {
    assert.ok(pages.length > 50);
    for (const page of pages) {
      const output = normalizeDocSiteMarkup(readFileSync(page, 'utf8'));
      for (const line of outsideFences(output)) {
        assert.doesNotMatch(line, /^\s*(?:\/{3,}|:::|!!!|\?\?\?)|\{\*.*\*\}|\{\s*#[\w-]+\s*\}\s*$/, `${page}: ${line}`);
      }
      assert.equal(normalizeDocSiteMarkup(output), output, page);
    }
  });
});

/** The lines of `markdown` outside fenced code, by code-context.ts's rules. */
function outsideFences(markdown: string): string[] {
  const lines: string[] = [];
  let fence: FenceOpening | undefined;
  for (const line of markdown.split('\n')) {
    if (fence !== undefined) {
      if (closesFence(line, fence)) fence = undefined;
    } else if ((fence = fenceOpening(line)) === undefined) lines.push(line);
  }
  return lines;
}
