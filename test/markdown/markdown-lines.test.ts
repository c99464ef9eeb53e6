// The one Markdown line classifier: fences and ATX headings by CommonMark's rules, and lines read from the list item
// they are in. Pure functions on short strings: the whole file runs in milliseconds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  atxHeading,
  classifyLine,
  closesFence,
  codeFence,
  fenceOpening,
  isYamlDelimiter,
  MarkdownLineClassifier,
  setextUnderlineLevel,
  withoutAttributeLists,
  type FenceOpening,
} from '../../src/markdown/markdown-lines.js';

/** The kinds of `markdown`'s lines as a classifier reads them, fenced code marked `code`, as the chunker reads them. */
function kinds(markdown: string): string[] {
  const classifier = new MarkdownLineClassifier();
  let fence: FenceOpening | undefined;
  return markdown.split('\n').map((line) => {
    if (fence !== undefined) {
      if (!closesFence(line, fence)) return 'code';
      fence = undefined;
      return 'fence-close';
    }
    const classified = classifier.classify(line);
    if (classified.kind === 'fence') fence = classified.fence;
    return classified.kind;
  });
}

describe('fenceOpening', () => {
  const cases: { line: string; expected: ReturnType<typeof fenceOpening> }[] = [
    { line: '```', expected: { indent: '', marker: '```', info: '', container: 0 } },
    { line: '   ~~~~python title="a.py"', expected: { indent: '   ', marker: '~~~~', info: 'python title="a.py"', container: 0 } },
    {
      line: '~~~ a ~ and ` are fine after tildes',
      expected: { indent: '', marker: '~~~', info: ' a ~ and ` are fine after tildes', container: 0 },
    },
    { line: '    ```', expected: undefined },
    { line: '\t```js', expected: undefined },
    { line: '```js``` is inline code', expected: undefined },
    { line: '``two', expected: undefined },
    { line: 'text ```', expected: undefined },
  ];
  for (const { line, expected } of cases) {
    it(JSON.stringify(line), () => assert.deepEqual(fenceOpening(line), expected));
  }

  it('counts indentation from the list item the line is in', () => {
    assert.equal(fenceOpening('    ```py', 2)?.marker, '```');
    assert.equal(fenceOpening('      ```py', 2), undefined);
  });
});

describe('closesFence', () => {
  const backticks = fenceOpening('````') as FenceOpening;
  const cases: { line: string; closes: boolean }[] = [
    { line: '````', closes: true },
    { line: '  `````  ', closes: true },
    { line: '````\r', closes: true },
    { line: '```', closes: false },
    { line: '~~~~', closes: false },
    { line: '```` js', closes: false },
    { line: '    ````', closes: false },
  ];
  for (const { line, closes } of cases) {
    it(`${JSON.stringify(line)} after ${backticks.marker}`, () => assert.equal(closesFence(line, backticks), closes));
  }

  it('lets a fence in a list item close three columns past the item', () => {
    const inItem = fenceOpening('    ```', 4) as FenceOpening;
    assert.equal(closesFence('       ```', inItem), true);
    assert.equal(closesFence('        ```', inItem), false);
  });
});

describe('atxHeading', () => {
  const cases: { line: string; expected: ReturnType<typeof atxHeading> }[] = [
    { line: '# Title', expected: { level: 1, text: 'Title' } },
    { line: '#', expected: { level: 1, text: '' } },
    { line: '   ### x ###', expected: { level: 3, text: 'x' } },
    { line: '## Closing #s after text# stay#', expected: { level: 2, text: 'Closing #s after text# stay#' } },
    { line: '### ###', expected: { level: 3, text: '' } },
    { line: '##\tTab', expected: { level: 2, text: 'Tab' } },
    { line: '#hashtag', expected: undefined },
    { line: '####### seven', expected: undefined },
    { line: '    # indented code', expected: undefined },
  ];
  for (const { line, expected } of cases) {
    it(JSON.stringify(line), () => assert.deepEqual(atxHeading(line), expected));
  }
});

describe('classifyLine', () => {
  const cases: [string, string][] = [
    ['', 'blank'],
    ['  \t', 'blank'],
    ['---', 'thematic-break'],
    ['* * *', 'thematic-break'],
    ['- item', 'list-item'],
    ['12) item', 'list-item'],
    ['-not an item', 'text'],
    ['> quoted', 'quote'],
    ['| a | b |', 'table-row'],
    ['<div class="x">', 'html'],
    ['< not a tag', 'text'],
    ['    - indented code', 'text'],
    ['plain text', 'text'],
  ];
  for (const [line, kind] of cases) {
    it(`${JSON.stringify(line)} is ${kind}`, () => assert.equal(classifyLine(line).kind, kind));
  }

  it("reads a list item's content column: after the marker's spaces, or one past the marker before indented code", () => {
    const column = (line: string) => {
      const classified = classifyLine(line);
      return classified.kind === 'list-item' ? classified.contentColumn : undefined;
    };
    assert.deepEqual([column('- a'), column('  1.  a'), column('-'), column('-      code')], [2, 6, 2, 2]);
  });
});

describe('MarkdownLineClassifier', () => {
  it('ignores a 4-space indented ``` at the top level (indented code), and reads it as a fence under a list item', () => {
    assert.deepEqual(kinds('Text.\n\n    ```\n    # not a heading\n    ```'), ['text', 'blank', 'text', 'text', 'text']);
    assert.deepEqual(kinds('* item:\n\n    ```py\n    # comment\n    ```\n\nAfter.'), [
      'list-item',
      'blank',
      'fence',
      'code',
      'fence-close',
      'blank',
      'text',
    ]);
  });

  it('reads a fence six columns under `* x` as Python-Markdown does (blocks four columns past the marker)', () => {
    assert.deepEqual(kinds('* x\n\n    Text.\n\n      ```\n      code\n      ```'), [
      'list-item',
      'blank',
      'text',
      'blank',
      'fence',
      'code',
      'fence-close',
    ]);
  });

  it('leaves a list item at a less indented line after a blank, not at a lazy continuation', () => {
    assert.deepEqual(kinds('- a\nlazy\n\n    ```'), ['list-item', 'text', 'blank', 'fence']);
    assert.deepEqual(kinds('- a\n\nout\n\n    ```'), ['list-item', 'blank', 'text', 'blank', 'text']);
    // Only paragraph text continues lazily: an item with nothing after its marker has none.
    assert.deepEqual(kinds('1. \n::: tip\n    ```\n:::'), ['list-item', 'text', 'text', 'text']);
  });

  it('keeps ~~~ inside a ``` block code, and closes a fence only with a run of its character at least as long', () => {
    assert.deepEqual(kinds('```\n~~~\n# no\n```\n# yes'), ['fence', 'code', 'code', 'fence-close', 'heading']);
    assert.deepEqual(kinds('````md\n```\n`````\n# yes'), ['fence', 'code', 'fence-close', 'heading']);
  });

  it('peeks at a line without moving past it', () => {
    const classifier = new MarkdownLineClassifier();
    classifier.classify('- a');
    classifier.classify('');
    assert.equal(classifier.peek('    ```').kind, 'fence');
    assert.equal(classifier.peek('out').kind, 'text');
    assert.equal(classifier.classify('    ```').kind, 'fence');
  });
});

describe('codeFence', () => {
  it('is three backticks, or one more than the longest line of the code that would close it', () => {
    assert.deepEqual(['x = 1', 'A ```js``` line\n```python', '```\n  `````  \n~~~~~~'].map(codeFence), ['```', '```', '``````']);
  });
});

describe('the other line rules', () => {
  it('setext underlines, attribute lists and YAML delimiters', () => {
    assert.deepEqual(
      ['===', '  --- ', '- -', '    ---'].map((line) => setextUnderlineLevel(line)),
      [1, 2, undefined, undefined],
    );
    assert.equal(withoutAttributeLists('Title { #a } {: .b }'), 'Title');
    assert.equal(withoutAttributeLists('Set {x}'), 'Set {x}');
    assert.deepEqual(['---', '--- ', ' ---', '----'].map(isYamlDelimiter), [true, true, false, false]);
  });
});
