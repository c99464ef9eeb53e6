// Table tests for the streaming citation filter, plus the property that any split of the input gives the same output.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { createCitationFilter, formatSourcesLine } from '../../src/agent/citation-filter.js';

interface Row {
  name: string;
  input: string;
  expected: string;
  snippetCount?: number;
  cited?: number[];
}

function runWhole(input: string, snippetCount = 4) {
  const filter = createCitationFilter(snippetCount);
  const text = filter.push(input) + filter.finish();
  return { text, cited: [...filter.citedNumbers] };
}

function runSplit(input: string, cuts: readonly number[], snippetCount = 4) {
  const filter = createCitationFilter(snippetCount);
  const boundaries = [0, ...[...new Set(cuts)].sort((left, right) => left - right), input.length];
  let text = '';
  for (let index = 1; index < boundaries.length; index++) {
    text += filter.push(input.slice(boundaries[index - 1], boundaries[index]));
  }
  text += filter.finish();
  return { text, cited: [...filter.citedNumbers] };
}

function checkRows(rows: readonly Row[]): void {
  for (const row of rows) {
    test(row.name, () => {
      const result = runWhole(row.input, row.snippetCount);
      assert.equal(result.text, row.expected);
      if (row.cited !== undefined) assert.deepEqual(result.cited, row.cited);
    });
  }
}

describe('single citations', () => {
  checkRows([
    { name: 'valid citation passes and is recorded', input: 'Use the CLI [2].', expected: 'Use the CLI [2].', cited: [2] },
    { name: 'highest valid number passes', input: 'A [4].', expected: 'A [4].', cited: [4] },
    { name: 'number above the count is removed with its space', input: 'text [9].', expected: 'text.', cited: [] },
    { name: 'zero is removed', input: 'text [0] more', expected: 'text more', cited: [] },
    { name: 'removed citation before a comma', input: 'one [7], two [1]', expected: 'one, two [1]', cited: [1] },
    { name: 'only one space goes', input: 'a  [9] b', expected: 'a  b' },
    { name: 'citation with no space before', input: 'word[9] next', expected: 'word next' },
    { name: 'at line start the following space goes instead', input: '[9] Hello', expected: 'Hello' },
    { name: 'indented line keeps its indentation', input: 'x\n  [9] y', expected: 'x\n  y' },
    { name: 'list bullet keeps its space', input: '- [9] item', expected: '- item' },
    { name: 'adjacent invalid citations', input: 'a [9][8] b', expected: 'a b' },
    { name: 'several invalid citations in a row', input: 'a [9] [8] b', expected: 'a b' },
    { name: 'spaces inside brackets are normalized', input: 'a [ 3 ]', expected: 'a [3]', cited: [3] },
    { name: 'leading zero counts as the number', input: 'a [01]', expected: 'a [1]', cited: [1] },
    { name: 'identifier before a bracket is still a citation', input: 'arr[1] and arr[9]', expected: 'arr[1] and arr', cited: [1] },
    { name: 'citation at end of line', input: 'a [9]\nb', expected: 'a\nb' },
  ]);
});

describe('groups and ranges', () => {
  checkRows([
    { name: 'comma group', input: 'a [1, 2].', expected: 'a [1][2].', cited: [1, 2] },
    { name: 'comma group without spaces', input: 'a [1,3].', expected: 'a [1][3].', cited: [1, 3] },
    { name: 'semicolon group', input: 'a [3; 1].', expected: 'a [3][1].', cited: [3, 1] },
    { name: 'consecutive brackets', input: 'a [1][2].', expected: 'a [1][2].', cited: [1, 2] },
    { name: 'range', input: 'a [1-3].', expected: 'a [1][2][3].', cited: [1, 2, 3] },
    { name: 'range with en dash and spaces', input: 'a [2 – 3].', expected: 'a [2][3].', cited: [2, 3] },
    { name: 'descending range is read as the same range', input: 'a [3-2].', expected: 'a [2][3].', cited: [2, 3] },
    { name: 'range clipped to the snippets', input: 'a [3-9].', expected: 'a [3][4].', cited: [3, 4] },
    { name: 'huge range is clipped, not expanded', input: 'a [1-999999999]', expected: 'a [1][2][3][4]' },
    { name: 'invalid members dropped', input: 'a [1, 7, 2].', expected: 'a [1][2].', cited: [1, 2] },
    { name: 'group with no valid number disappears', input: 'a [7, 9].', expected: 'a.', cited: [] },
    { name: 'range with no valid number disappears', input: 'a [5-8] b', expected: 'a b' },
    { name: 'duplicates inside a group collapse', input: 'a [2, 2, 1-2]', expected: 'a [2][1]', cited: [2, 1] },
    { name: 'trailing comma is not a citation', input: 'a [1,] b', expected: 'a [1,] b', cited: [] },
    { name: 'chained range is not a citation', input: 'a [1-2-3] b', expected: 'a [1-2-3] b' },
    { name: 'unclosed group at the end is kept as text', input: 'a [1, 2', expected: 'a [1, 2' },
    { name: 'over-long group is given up as text', input: 'a [1, 2, 3, 4, 1, 2, 3, 4] b', expected: 'a [1, 2, 3, 4, 1, 2, 3, 4] b' },
    { name: 'a new bracket restarts the group', input: 'a [1, [2] b', expected: 'a [1, [2] b', cited: [2] },
  ]);
});

describe('snippet count zero', () => {
  checkRows([
    { name: 'every citation removed', input: 'A [1]. B [2, 3]. C [1-2].', snippetCount: 0, expected: 'A. B. C.', cited: [] },
    { name: 'non-citations remain', input: '[see below] [x]', snippetCount: 0, expected: '[see below] [x]' },
  ]);
  test('negative or fractional counts are refused', () => {
    assert.throws(() => createCitationFilter(-1), RangeError);
    assert.throws(() => createCitationFilter(1.5), RangeError);
  });
});

describe('text that is not a citation', () => {
  checkRows([
    { name: 'words in brackets', input: 'as shown [see below] here', expected: 'as shown [see below] here' },
    { name: 'markdown link', input: 'see [the guide](https://x.test/a) now', expected: 'see [the guide](https://x.test/a) now' },
    { name: 'numbered link text', input: 'see [9](https://x.test/a)', expected: 'see [9](https://x.test/a)', cited: [] },
    { name: 'task boxes', input: '- [x] done\n- [ ] todo', expected: '- [x] done\n- [ ] todo' },
    { name: 'footnote marker', input: 'claim[^9]', expected: 'claim[^9]' },
    { name: 'empty brackets', input: 'a [] b', expected: 'a [] b' },
  ]);
});

describe('code is never altered', () => {
  checkRows([
    { name: 'inline code span', input: 'call `arr[9]` now [9]', expected: 'call `arr[9]` now' },
    { name: 'double backtick span holding a backtick', input: 'x ``a ` [9]`` [1]', expected: 'x ``a ` [9]`` [1]', cited: [1] },
    { name: 'unpaired backtick protects only its line', input: 'a ` [9]\nb [9]', expected: 'a ` [9]\nb' },
    {
      name: 'backtick fence',
      input: 'x\n```js\nconst a = b[9];\n[1, 2]\n```\ny [9]',
      expected: 'x\n```js\nconst a = b[9];\n[1, 2]\n```\ny',
    },
    { name: 'tilde fence', input: '~~~\n[9]\n~~~\n[9] x', expected: '~~~\n[9]\n~~~\nx' },
    { name: 'indented fence', input: '1. step\n   ```\n   v[9]\n   ```\n', expected: '1. step\n   ```\n   v[9]\n   ```' },
    { name: 'shorter run does not close a fence', input: '````\n```\n[9]\n````\n[9]', expected: '````\n```\n[9]\n````' },
    {
      name: 'fence line with text after the run does not close',
      input: '```\n``` x\n[9]\n```\n[9] y',
      expected: '```\n``` x\n[9]\n```\ny',
    },
    { name: 'sources line inside a fence is kept', input: '```\nSources: a\n```\nok', expected: '```\nSources: a\n```\nok' },
    { name: 'unclosed fence keeps the rest', input: 'a\n```\n[9]\nSources: x', expected: 'a\n```\n[9]\nSources: x' },
    { name: 'a backtick in the info string: no fence, the next line is text', input: '```js`x`\n[9] y', expected: '```js`x`\ny' },
    { name: 'tildes mid-line are plain text', input: 'a ~~~ [9] b', expected: 'a ~~~ b' },
  ]);
});

describe("the model's own sources footer", () => {
  checkRows([
    { name: 'plain Sources line', input: 'Answer [1].\n\nSources: [1] Guide', expected: 'Answer [1].', cited: [1] },
    { name: 'bold label', input: 'Answer.\n\n**Sources:**\n- [2] Guide\n', expected: 'Answer.', cited: [] },
    { name: 'bold label with colon outside', input: 'Answer.\n**Sources**: a', expected: 'Answer.' },
    { name: 'singular label', input: 'Answer.\nSource: a', expected: 'Answer.' },
    { name: 'references label', input: 'Answer.\nReferences:\n1. a', expected: 'Answer.' },
    { name: 'dash separator', input: 'Answer.\nSources - a, b', expected: 'Answer.' },
    { name: 'em dash separator', input: 'Answer.\nSources — a', expected: 'Answer.' },
    { name: 'upper case', input: 'Answer.\nSOURCES: a', expected: 'Answer.' },
    { name: 'heading', input: 'Answer.\n\n## Sources\n- a', expected: 'Answer.' },
    { name: 'blockquote and italics', input: 'Answer.\n> _References:_ a', expected: 'Answer.' },
    { name: 'indented', input: 'Answer.\n   Sources: a', expected: 'Answer.' },
    { name: 'bare plural label at the very end', input: 'Answer.\n\n**Sources**', expected: 'Answer.' },
    { name: 'label with CRLF line ends', input: 'Answer.\r\n\r\nSources\r\n- a', expected: 'Answer.' },
    { name: 'first line is the footer', input: 'Sources: a', expected: '' },
    { name: 'everything after the footer goes', input: 'A\nSources: a\n\nMore text [1]', expected: 'A', cited: [] },
    {
      name: 'word mid-sentence is kept',
      input: 'Both sources: agree.\nThe sources say so.',
      expected: 'Both sources: agree.\nThe sources say so.',
    },
    {
      name: 'line starting with the word in a sentence is kept',
      input: 'A\nSources of truth are [1].',
      expected: 'A\nSources of truth are [1].',
    },
    { name: 'source code is kept', input: 'A\nSource code lives in src.', expected: 'A\nSource code lives in src.' },
    { name: 'hyphenated word is kept', input: 'A\nReferences-based lookup.', expected: 'A\nReferences-based lookup.' },
    { name: 'singular heading is kept', input: 'A\n## Reference\nThe API.', expected: 'A\n## Reference\nThe API.' },
    { name: 'label prefix at the end is kept', input: 'A\nSour', expected: 'A\nSour' },
    { name: 'label inside a code span is kept', input: 'A\n`Sources:` x', expected: 'A\n`Sources:` x' },
  ]);
});

describe('whitespace', () => {
  checkRows([
    { name: 'trailing whitespace of the answer is trimmed', input: 'Answer.  \n\n \t', expected: 'Answer.' },
    { name: 'inner whitespace is kept', input: 'a  \n\n  b', expected: 'a  \n\n  b' },
    { name: 'leading whitespace is kept', input: '\n  a', expected: '\n  a' },
    { name: 'only whitespace', input: ' \n ', expected: '' },
  ]);
});

describe('citedNumbers', () => {
  test('keeps order of first citation without duplicates', () => {
    assert.deepEqual(runWhole('a [3] b [1] c [3, 2] d [1][9]').cited, [3, 1, 2]);
  });
  test('grows as deltas arrive and is a snapshot', () => {
    const filter = createCitationFilter(4);
    filter.push('a [2] b [');
    const before = filter.citedNumbers;
    assert.deepEqual(before, [2]);
    filter.push('4]');
    filter.push(' c');
    assert.deepEqual(filter.citedNumbers, [2, 4]);
    assert.deepEqual(before, [2]);
  });
});

describe('formatSourcesLine', () => {
  const rows: { titles: string[]; expected: string }[] = [
    { titles: [], expected: 'Sources: none' },
    { titles: ['Install guide'], expected: 'Sources: Install guide' },
    { titles: ['B', 'A', 'B'], expected: 'Sources: B, A' },
    { titles: ['Multi\nline  title', 'Multi line title'], expected: 'Sources: Multi line title' },
    { titles: ['  ', ''], expected: 'Sources: none' },
  ];
  for (const row of rows) {
    test(JSON.stringify(row.titles), () => assert.equal(formatSourcesLine(row.titles), row.expected));
  }
});

describe('streaming', () => {
  const examples = [
    'Install it with the CLI [1]. Then run it [2, 3] or [9].\n\n**Sources:**\n- [1] Guide',
    'Use `arr[9]` or:\n```ts\nconst x = y[9];\n```\nDone [1-2][7].\n',
    '~~~\nSources: x\n~~~\n- [9] item [4]\n> References — a\n',
    'See [the guide](https://x.test) and [9](https://y.test). [x] [ 2 ; 9 ]  \n\n',
    'Sources of truth [1]\nSour [1,]\nReference\n``a`b``[3]`` c [1',
    'emoji 😀 [2] 😀\r\nSources\r\n',
  ];

  test('every single split point gives the whole-text result', () => {
    for (const example of examples) {
      const whole = runWhole(example);
      for (let cut = 0; cut <= example.length; cut++) {
        assert.deepEqual(runSplit(example, [cut]), whole, `cut at ${cut} of ${JSON.stringify(example)}`);
      }
    }
  });

  test('one character per delta gives the whole-text result and holds back little', () => {
    for (const example of examples) {
      const filter = createCitationFilter(4);
      const outputs = [...example].map((character) => filter.push(character));
      assert.equal(outputs.join('') + filter.finish(), runWhole(example).text);
    }
    const filter = createCitationFilter(4);
    assert.equal(filter.push('Hello'), 'Hello');
    assert.equal(filter.push(' world [1'), ' world');
    assert.equal(filter.push('] and'), ' [1] and');
  });

  test('random multi-cuts of the examples give the whole-text result', () => {
    const example = fc.constantFrom(...examples);
    const property = fc.property(example, fc.array(fc.nat({ max: 200 }), { maxLength: 12 }), (text, cuts) => {
      const inRange = cuts.map((cut) => cut % (text.length + 1));
      assert.deepEqual(runSplit(text, inRange), runWhole(text));
    });
    fc.assert(property, { numRuns: 500 });
  });

  test('random answers built from tricky pieces split anywhere give the whole-text result', () => {
    const pieces = [
      '[',
      ']',
      '1',
      '9',
      ',',
      '-',
      ' ',
      '\n',
      '`',
      '```',
      '~~~',
      '(',
      'Sources',
      'Source',
      ':',
      '**',
      '#',
      '>',
      'text',
      '[2]',
      '[1, 9]',
    ];
    const answer = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => parts.join(''));
    const property = fc.property(answer, fc.array(fc.nat({ max: 400 }), { maxLength: 10 }), fc.nat({ max: 5 }), (text, cuts, count) => {
      const inRange = cuts.map((cut) => cut % (text.length + 1));
      const whole = runWhole(text, count);
      assert.deepEqual(runSplit(text, inRange, count), whole);
      assert.equal(whole.text, whole.text.trimEnd());
      assert.ok(whole.cited.every((number) => number >= 1 && number <= count));
    });
    fc.assert(property, { numRuns: 2000 });
  });

  test('a surrogate pair split across deltas is not emitted in halves', () => {
    const filter = createCitationFilter(1);
    const emoji = '😀';
    assert.equal(filter.push(`a ${emoji.charAt(0)}`), 'a ');
    assert.equal(filter.push(`${emoji.charAt(1)} b`), `${emoji} b`);
  });

  test('a long answer fed one character at a time matches the whole-text result', () => {
    const text = 'Word [1] and `code [9]` then [9, 2].\n'.repeat(5000);
    const filter = createCitationFilter(4);
    let output = '';
    for (const character of text) output += filter.push(character);
    output += filter.finish();
    assert.equal(output, runWhole(text).text);
  });

  test('push after finish is refused', () => {
    const filter = createCitationFilter(1);
    filter.finish();
    assert.throws(() => filter.push('x'));
  });
});
