// Tests for chunkMarkdown: heading paths, size bounds, code and table splitting, overlap, and properties over real docs.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { chunkMarkdown, defaultChunkOptions, type MarkdownChunk } from '../../src/ingest/chunk-markdown.js';
import { fixturesDirectory } from '../support/fixtures.js';

const fastapiDocs = join(fixturesDirectory, 'docs-fastapi');

function paths(chunks: MarkdownChunk[]): string[][] {
  return chunks.map((chunk) => chunk.headingPath);
}

function words(text: string): string[] {
  return text.split(/\s+/).filter((word) => word !== '');
}

function sentences(count: number, prefix = 'Sentence'): string {
  return Array.from({ length: count }, (_, index) => `${prefix} number ${index} talks about query parameters.`).join(' ');
}

/** Whether every fence opened in `text` is closed again, by the CommonMark rules for fences. */
function fencesBalanced(text: string): boolean {
  let open: { character: string; length: number } | null = null;
  for (const line of text.split('\n')) {
    const fence = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence === null) continue;
    const marker = fence[1] as string;
    const info = fence[2] as string;
    if (open === null) {
      if (!(marker.startsWith('`') && info.includes('`'))) open = { character: marker.charAt(0), length: marker.length };
    } else if (marker.charAt(0) === open.character && marker.length >= open.length && info.trim() === '') {
      open = null;
    }
  }
  return open === null;
}

/** How many leading characters of `next` repeat the end of `previous`. */
function sharedLength(previous: string, next: string): number {
  for (let length = Math.min(previous.length, next.length); length > 0; length -= 1) {
    if (previous.endsWith(next.slice(0, length))) return length;
  }
  return 0;
}

function markdownFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

function stripFrontMatter(markdown: string): string {
  return markdown.replace(/^---\n[\s\S]*?\n---\n/, '');
}

describe('chunkMarkdown heading paths', () => {
  const rows: Array<{ name: string; markdown: string; expected: string[][] }> = [
    {
      name: 'nested headings',
      markdown: '# Tutorial\n\nIntro.\n\n## Query Parameters\n\nQuery.\n\n### Defaults\n\nDefaults.\n\n## Body\n\nBody.',
      expected: [['Tutorial'], ['Tutorial', 'Query Parameters'], ['Tutorial', 'Query Parameters', 'Defaults'], ['Tutorial', 'Body']],
    },
    {
      name: 'skipped levels',
      markdown: '# Guide\n\nA.\n\n### Deep\n\nB.\n\n## Middle\n\nC.\n\n# Next\n\nD.',
      expected: [['Guide'], ['Guide', 'Deep'], ['Guide', 'Middle'], ['Next']],
    },
    {
      name: 'hash lines inside backtick and tilde fences are code',
      markdown: '# Install\n\n```bash\n# not a heading\npip install fastapi\n```\n\n~~~\n## nor this\n~~~\n\nDone.',
      expected: [['Install']],
    },
    {
      name: 'a longer fence is not closed by a shorter one',
      markdown: '# Fences\n\n````md\n```\n# still code\n```\n````\n\nAfter.',
      expected: [['Fences']],
    },
    {
      name: 'attribute lists and closing hashes are not part of the heading text',
      markdown: '# Query Parameters { #query-parameters }\n\nA.\n\n## Defaults ##\n\nB.\n\n## C# tips\n\nC.',
      expected: [['Query Parameters'], ['Query Parameters', 'Defaults'], ['Query Parameters', 'C# tips']],
    },
    {
      name: 'setext headings',
      markdown: 'Title\n=====\n\nText.\n\nSection\n-------\n\nMore.',
      expected: [['Title'], ['Title', 'Section']],
    },
    {
      name: 'text before the first heading has an empty path',
      markdown: 'Preamble text.\n\n# First\n\nBody.',
      expected: [[], ['First']],
    },
    {
      name: 'a hash without a space is not a heading',
      markdown: '#hashtag and #1\n\n    # indented four spaces',
      expected: [[]],
    },
    {
      name: 'hash lines inside a blockquote or an HTML block are not headings',
      markdown: '# Page\n\n> # quoted\n> text\n\n<div>\n# inside html\n</div>\n\nAfter.',
      expected: [['Page']],
    },
    {
      name: 'a thematic break after a blank line is not a setext underline',
      markdown: '# Page\n\nText.\n\n---\n\nMore text.',
      expected: [['Page']],
    },
  ];
  for (const row of rows) {
    test(row.name, () => {
      assert.deepEqual(paths(chunkMarkdown(row.markdown)), row.expected);
    });
  }

  test('a heading without body text is carried into its first subsection', () => {
    const chunks = chunkMarkdown('# Tutorial\n\n## Query Parameters\n\n### Defaults\n\nThe default is 10.');
    assert.deepEqual(chunks, [
      {
        text: '# Tutorial\n\n## Query Parameters\n\n### Defaults\n\nThe default is 10.',
        headingPath: ['Tutorial', 'Query Parameters', 'Defaults'],
      },
    ]);
  });

  test('a heading whose body only introduces what follows is carried too, into a sibling as well', () => {
    const chunks = chunkMarkdown('# Features\n\nIt gives you the following:\n\n## Standards\n\nOpenAPI.\n\n## Empty\n\n## Next\n\nText.');
    assert.deepEqual(chunks, [
      { text: '# Features\n\nIt gives you the following:\n\n## Standards\n\nOpenAPI.', headingPath: ['Features', 'Standards'] },
      { text: '## Empty\n\n## Next\n\nText.', headingPath: ['Features', 'Next'] },
    ]);
  });

  test('a bodiless heading with no following section still becomes a chunk, so nothing is lost', () => {
    const chunks = chunkMarkdown('# Page\n\nText.\n\n## Trailing');
    assert.deepEqual(paths(chunks), [['Page'], ['Page', 'Trailing']]);
    assert.equal(chunks[1]?.text, '## Trailing');
  });

  test('only the first chunk of a section starts with its heading line', () => {
    const chunks = chunkMarkdown(`# Guide\n\n## Long\n\n${sentences(30)}`, { maxChars: 400, overlapChars: 60 });
    assert.ok(chunks.length > 2);
    assert.ok(chunks[0]?.text.startsWith('# Guide\n\n## Long\n\nSentence number 0'));
    for (const chunk of chunks.slice(1)) {
      assert.ok(!chunk.text.startsWith('#'));
      assert.deepEqual(chunk.headingPath, ['Guide', 'Long']);
    }
  });
});

describe('chunkMarkdown sizes and blocks', () => {
  test('empty and blank input give no chunks', () => {
    assert.deepEqual(chunkMarkdown(''), []);
    assert.deepEqual(chunkMarkdown(' \n\r\n\t\n'), []);
  });

  test('CRLF input chunks like LF input', () => {
    const markdown = `# Title\n\nFirst paragraph.\n\n\`\`\`python\nprint(1)\n\`\`\`\n\n## Sub\n\n${sentences(20)}`;
    const options = { maxChars: 300, overlapChars: 50 };
    const fromCrlf = chunkMarkdown(markdown.replace(/\n/g, '\r\n'), options);
    assert.deepEqual(fromCrlf, chunkMarkdown(markdown, options));
    assert.ok(fromCrlf.every((chunk) => !chunk.text.includes('\r')));
  });

  test('whitespace is normalized: trailing spaces trimmed, runs of blank lines collapsed', () => {
    const [chunk] = chunkMarkdown('# Title   \n\n\n\n\nText with trailing spaces.   \n\n\n\n```\ncode  \n\n\n\nmore\n```');
    assert.equal(chunk?.text, '# Title\n\nText with trailing spaces.\n\n```\ncode\n\nmore\n```');
  });

  test('options are validated and partial options keep the defaults', () => {
    assert.throws(() => chunkMarkdown('text', { maxChars: 0 }), RangeError);
    assert.throws(() => chunkMarkdown('text', { maxChars: 100, overlapChars: 100 }), RangeError);
    assert.throws(() => chunkMarkdown('text', { overlapChars: -1 }), RangeError);
    const long = sentences(200);
    assert.deepEqual(chunkMarkdown(long, { overlapChars: defaultChunkOptions.overlapChars }), chunkMarkdown(long));
  });

  const sizeRows = [
    { maxChars: 200, overlapChars: 0 },
    { maxChars: 300, overlapChars: 80 },
    { maxChars: 1200, overlapChars: 150 },
  ];
  for (const options of sizeRows) {
    test(`no chunk exceeds maxChars ${options.maxChars} with mixed content`, () => {
      const list = Array.from({ length: 40 }, (_, index) => `- item ${index} about path operations and dependencies`).join('\n');
      const markdown = `# Mixed\n\n${sentences(40)}\n\n${list}\n\n> ${sentences(15, 'Quoted')}\n\n## Next\n\n${sentences(5)}`;
      const chunks = chunkMarkdown(markdown, options);
      assert.ok(chunks.length > 1);
      for (const chunk of chunks) assert.ok(chunk.text.length <= options.maxChars, `${chunk.text.length} > ${options.maxChars}`);
    });
  }

  test('a paragraph longer than maxChars is split at sentence ends', () => {
    const chunks = chunkMarkdown(sentences(40), { maxChars: 300, overlapChars: 0 });
    assert.ok(chunks.length > 3);
    for (const chunk of chunks) {
      assert.ok(chunk.text.endsWith('.'), chunk.text);
      assert.ok(chunk.text.startsWith('Sentence number'), chunk.text);
    }
  });

  test('a sentence longer than maxChars is split at whitespace, never inside a word', () => {
    const sentence = Array.from({ length: 120 }, (_, index) => `word${index}`).join(' ');
    const chunks = chunkMarkdown(sentence, { maxChars: 100, overlapChars: 20 });
    for (const chunk of chunks) {
      assert.ok(chunk.text.length <= 100);
      for (const word of words(chunk.text)) assert.match(word, /^word\d+$/);
    }
  });

  test('a word longer than maxChars is cut at the limit, in order, nothing lost', () => {
    const url = `https://example.com/${'a'.repeat(300)}`;
    const chunks = chunkMarkdown(`Short intro. ${url} and the end.`, { maxChars: 100, overlapChars: 0 });
    assert.ok(chunks.every((chunk) => chunk.text.length <= 100));
    assert.ok(
      chunks
        .map((chunk) => chunk.text)
        .join('')
        .includes(url),
    );
  });

  test('a code line, a table row and a run without spaces longer than a chunk are cut at the limit', () => {
    const { maxChars } = defaultChunkOptions;
    const inputs = [
      `# B\n\n${'['.repeat(600_000)}`,
      `# Code\n\n\`\`\`js\n${'x'.repeat(5_000)}\n\`\`\``,
      `| a |\n| - |\n| ${'y'.repeat(5_000)} |`,
      '\u{1F600}'.repeat(3_000),
      // A pattern for thematic breaks overflowed V8's regular-expression stack on this line (a RangeError).
      '*'.repeat(6_000_000),
    ];
    for (const markdown of inputs) {
      const chunks = chunkMarkdown(markdown);
      assert.ok(chunks.length > 1);
      assert.ok(chunks.every((chunk) => chunk.text.length <= maxChars && chunk.text.trim() !== ''));
      // A cut never separates the two halves of a surrogate pair.
      assert.ok(chunks.every((chunk) => !/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/.test(chunk.text)));
    }
  });

  test('a heading names its chunks with at most its first 300 characters; its chunks hold all of it', () => {
    const heading = 'word '.repeat(20_000).trim();
    const chunks = chunkMarkdown(`# ${heading}\n\nThe body.`);
    assert.ok(chunks.every((chunk) => chunk.headingPath.length === 1 && chunk.headingPath[0] === heading.slice(0, 300)));
    assert.equal(chunks.flatMap((chunk) => words(chunk.text)).filter((word) => word === 'word').length, 20_000);
  });

  test('a list longer than maxChars is split between items', () => {
    const items = Array.from({ length: 30 }, (_, index) => `* item ${index} describes one feature.`);
    const chunks = chunkMarkdown(items.join('\n'), { maxChars: 200, overlapChars: 0 });
    assert.ok(chunks.length > 3);
    for (const chunk of chunks)
      assert.ok(
        chunk.text.split('\n').every((line) => items.includes(line)),
        chunk.text,
      );
  });

  const codeBlock = ['```python', ...Array.from({ length: 8 }, (_, index) => `value_${index} = compute(${index})  # step`), '```'].join(
    '\n',
  );
  const smallCodeRows = [
    { name: 'right after a heading', markdown: `# Code\n\n${codeBlock}` },
    { name: 'after a long paragraph', markdown: `# Code\n\n${sentences(4)}\n\n${codeBlock}\n\nAfter the code.` },
    { name: 'in the middle of a long section', markdown: `# Code\n\n${sentences(12)}\n\n${codeBlock}\n\n${sentences(12)}` },
    { name: 'when the heading makes it overflow', markdown: `# A heading that is long enough to matter\n\n${codeBlock}` },
  ];
  for (const row of smallCodeRows) {
    test(`a code block smaller than maxChars is never split: ${row.name}`, () => {
      assert.ok(codeBlock.length < 360);
      const chunks = chunkMarkdown(row.markdown, { maxChars: 360, overlapChars: 60 });
      assert.ok(chunks.some((chunk) => chunk.text.includes(codeBlock)));
      assert.ok(chunks.every((chunk) => fencesBalanced(chunk.text)));
    });
  }

  test('an introduction ending in a colon moves with the block it introduces', () => {
    const markdown = `# Page\n\n${sentences(5)}\n\nFor example:\n\n${codeBlock}`;
    const chunks = chunkMarkdown(markdown, { maxChars: 500, overlapChars: 0 });
    assert.ok(chunks.some((chunk) => chunk.text.startsWith(`For example:\n\n${codeBlock}`)));
  });

  test('an admonition moves whole to the next chunk rather than leave its opener or closer behind', () => {
    const markdown = `# Tip\n\n${sentences(3, 'Before')}\n\n/// tip\n\n${sentences(3)}\n\n///\n\n${sentences(3, 'Other')}`;
    const chunks = chunkMarkdown(markdown, { maxChars: 300, overlapChars: 0 });
    assert.equal(chunks[0]?.text, `# Tip\n\n${sentences(3, 'Before')}`);
    assert.equal(chunks[1]?.text, `/// tip\n\n${sentences(3)}\n\n///\n\n${sentences(3, 'Other')}`);
  });

  test('an oversized code block is split on lines, each piece re-opening and closing its fence', () => {
    const lines = Array.from({ length: 60 }, (_, index) => `    result_${index} = handler(request, ${index})`);
    const markdown = `# Big\n\nBefore.\n\n~~~python title="main.py"\n${lines.join('\n')}\n~~~\n\nAfter.`;
    const chunks = chunkMarkdown(markdown, { maxChars: 400, overlapChars: 80 });
    const pieces = chunks.filter((chunk) => chunk.text.includes('result_'));
    assert.ok(pieces.length > 3);
    for (const piece of pieces) {
      assert.ok(piece.text.length <= 400);
      assert.ok(fencesBalanced(piece.text), piece.text);
      const body = piece.text.slice(piece.text.indexOf('~~~python'));
      assert.match(body, /^~~~python title="main\.py"\n[\s\S]*\n~~~(\n|$)/);
    }
    for (const line of lines)
      assert.ok(
        pieces.some((piece) => piece.text.includes(`${line}\n`)),
        line,
      );
  });

  test('an unterminated fence runs to the end and is closed in the chunk', () => {
    const chunks = chunkMarkdown('# Broken\n\n```js\nconst a = 1;\n# not a heading', { maxChars: 1200 });
    assert.deepEqual(chunks, [{ text: '# Broken\n\n```js\nconst a = 1;\n# not a heading\n```', headingPath: ['Broken'] }]);
  });

  test('an oversized table is split between rows, each piece repeating the header', () => {
    const header = '| Parameter | Type | Default |\n| --- | --- | --- |';
    const rows = Array.from({ length: 40 }, (_, index) => `| param_${index} | int | ${index} |`);
    const chunks = chunkMarkdown(`# Table\n\n${header}\n${rows.join('\n')}`, { maxChars: 300, overlapChars: 50 });
    assert.ok(chunks.length > 3);
    for (const chunk of chunks) {
      assert.ok(chunk.text.length <= 300);
      assert.ok(chunk.text.replace(/^# Table\n\n/, '').startsWith(`${header}\n| param_`), chunk.text);
    }
    for (const row of rows) assert.equal(chunks.filter((chunk) => chunk.text.includes(row)).length, 1, row);
  });
});

describe('chunkMarkdown on runs of empty headings and enormous headings', () => {
  const { maxChars } = defaultChunkOptions;

  test('40,000 empty headings in a row become chunks within the limit that keep every heading, in order', () => {
    const chunks = chunkMarkdown(Array.from({ length: 40_000 }, (_, index) => `###### h${index}`).join('\n'));
    assert.ok(
      chunks.every((chunk) => chunk.text.length <= maxChars),
      `longest ${Math.max(...chunks.map((chunk) => chunk.text.length))}`,
    );
    const headings = chunks.flatMap((chunk) => chunk.text.match(/h\d+/g) ?? []);
    assert.equal(headings.length, 40_000);
    assert.equal(headings[39_999], 'h39999');
  });

  test('empty headings carried into a section lead its first chunk only up to half a chunk', () => {
    const chunks = chunkMarkdown(`# Guide\n\n${'## step\n'.repeat(2_000)}The body of the last step.`);
    assert.ok(chunks.every((chunk) => chunk.text.length <= maxChars));
    assert.match(chunks.at(-1)?.text ?? '', /The body of the last step\.$/);
  });

  test('a heading longer than a chunk is cut into chunks of its own, and the body still gets its chunk', () => {
    const chunks = chunkMarkdown(`# ${'word '.repeat(100_000)}\n\nThe body.`);
    assert.ok(chunks.every((chunk) => chunk.text.length <= maxChars));
    assert.equal(chunks.at(-1)?.text, 'The body.');
  });
});

describe('chunkMarkdown overlap', () => {
  test('consecutive chunks of a section share a tail that starts on a word boundary', () => {
    const options = { maxChars: 300, overlapChars: 80 };
    const chunks = chunkMarkdown(`# Overlap\n\n${sentences(25)}`, options);
    assert.ok(chunks.length > 3);
    for (let index = 1; index < chunks.length; index += 1) {
      const previous = (chunks[index - 1] as MarkdownChunk).text;
      const next = (chunks[index] as MarkdownChunk).text;
      const shared = sharedLength(previous, next);
      assert.ok(shared > 0 && shared <= options.overlapChars, `shared ${shared}`);
      assert.match(previous.charAt(previous.length - shared - 1), /\s/);
      assert.match(next, /^\S/);
    }
  });

  test('the overlap crosses block boundaries within a section', () => {
    const markdown = `# Mixed\n\n${sentences(5)}\n\n${sentences(5, 'Other')}`;
    const chunks = chunkMarkdown(markdown, { maxChars: 420, overlapChars: 100 });
    assert.equal(chunks.length, 2);
    assert.ok(
      chunks[1]?.text.startsWith(
        'Sentence number 3 talks about query parameters. Sentence number 4 talks about query parameters.\n\nOther number 0',
      ),
      chunks[1]?.text,
    );
  });

  test('the overlap never repeats a whole code block, only the last lines of a longer one', () => {
    const smallCode = '```python\nprint("hello")\n```';
    const longCode = ['```python', ...Array.from({ length: 6 }, (_, index) => `step_${index}()`), '```'].join('\n');
    const options = { maxChars: 300, overlapChars: 60 };
    const afterSmall = chunkMarkdown(`# Code\n\n${sentences(3)}\n\n${smallCode}\n\n${sentences(4, 'Other')}`, options);
    assert.equal(afterSmall.filter((chunk) => chunk.text.includes(smallCode)).length, 1);
    assert.ok(afterSmall[1]?.text.startsWith('Other number 0'), afterSmall[1]?.text);
    const afterLong = chunkMarkdown(`# Code\n\n${sentences(2)}\n\n${longCode}\n\n${sentences(4, 'Other')}`, options);
    assert.equal(afterLong.filter((chunk) => chunk.text.includes(longCode)).length, 1);
    assert.match(afterLong[1]?.text ?? '', /^```python\n(step_\d\(\)\n)+```\n\nOther number 0/);
    assert.ok(afterLong.every((chunk) => fencesBalanced(chunk.text)));
  });

  test('no overlap across sections', () => {
    const chunks = chunkMarkdown(`# A\n\n${sentences(10)}\n\n# B\n\n${sentences(10, 'Other')}`, { maxChars: 300, overlapChars: 100 });
    const firstOfB = chunks.findIndex((chunk) => chunk.headingPath[0] === 'B');
    assert.ok(firstOfB > 1);
    assert.ok(chunks[firstOfB]?.text.startsWith('# B\n\nOther number 0'));
  });

  test('a chunk starting inside a line never opens with what reads as a list item, quote or rule', () => {
    // The shape of FastAPI's CORS arguments: "* `name` - description", each item longer than the overlap, so the
    // overlap starts inside an item, where the word after "`allow_origin_regex` " is a dash.
    const items = Array.from(
      { length: 12 },
      (_, index) => `* \`option_${index}\` - A regex string to match against origins that should be permitted for option ${index}.`,
    );
    const markdown = `# Arguments\n\n${items.join('\n')}\n\nThe middleware responds > to two * particular types of request.`;
    for (const overlapChars of [60, 80, 100, 120]) {
      const chunks = chunkMarkdown(markdown, { maxChars: 400, overlapChars });
      assert.ok(chunks.length > 2);
      for (const chunk of chunks.slice(1)) {
        const firstLine = chunk.text.split('\n')[0] as string;
        const wholeLine = markdown.split('\n').includes(firstLine);
        assert.ok(wholeLine || !/^(?:[-*+>]|\d+[.)])\s/.test(firstLine), `overlap ${overlapChars}: ${firstLine}`);
      }
    }
  });

  test('overlapChars 0 gives chunks that partition the text', () => {
    const text = sentences(30);
    const chunks = chunkMarkdown(text, { maxChars: 250, overlapChars: 0 });
    assert.equal(chunks.map((chunk) => chunk.text).join(' '), text);
  });
});

describe('chunkMarkdown properties', () => {
  const vocabulary = ['query', 'path', 'FastAPI', 'Pydantic', 'model', 'async', 'def', 'return', 'item_id', 'None', '#', '##', '|', '>'];
  const word = fc.constantFrom(...vocabulary);
  const phrase = (maximum: number) => fc.array(word, { minLength: 1, maxLength: maximum }).map((parts) => parts.join(' '));
  const many = <Value>(item: fc.Arbitrary<Value>, maxLength: number) => fc.array(item, { minLength: 1, maxLength, size: 'max' });
  const block = fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 6 }), phrase(5)).map(([level, text]) => `${'#'.repeat(level)} H${text}`),
    many(
      phrase(14).map((text) => `Text ${text}.`),
      12,
    ).map((parts) => parts.join(' ')),
    many(
      phrase(8).map((text) => `- item ${text}`),
      25,
    ).map((items) => items.join('\n')),
    many(
      phrase(8).map((text) => `> quote ${text}`),
      8,
    ).map((lines) => lines.join('\n')),
    fc
      .tuple(fc.constantFrom('```', '~~~', '````'), fc.constantFrom('', 'python', 'json'), many(phrase(8), 40))
      .map(([fence, language, lines]) => [`${fence}${language}`, ...lines, fence].join('\n')),
    many(
      phrase(4).map((text) => `| cell ${text} |`),
      30,
    ).map((rows) => ['| a | b |', '| - | - |', ...rows].join('\n')),
  );
  // Numbering every word makes "nothing lost" meaningful: a dropped word cannot hide behind a repeat.
  const document = fc.array(block, { maxLength: 25, size: 'medium' }).map((blocks) => {
    let counter = 0;
    return blocks.join('\n\n').replace(/[A-Za-z_]+/g, (letters) => `${letters}${(counter += 1)}`);
  });
  const options = fc
    .integer({ min: 300, max: 1500 })
    .chain((maxChars) =>
      fc.record({ maxChars: fc.constant(maxChars), overlapChars: fc.integer({ min: 0, max: Math.floor(maxChars / 3) }) }),
    );

  test('generated documents: nothing lost, fences balanced, sizes bounded', () => {
    fc.assert(
      fc.property(document, options, (markdown, chunkOptions) => {
        const chunks = chunkMarkdown(markdown, chunkOptions);
        const chunkWords = new Set(chunks.flatMap((chunk) => words(chunk.text)));
        for (const token of words(markdown)) assert.ok(chunkWords.has(token), `lost ${token}`);
        for (const chunk of chunks) {
          assert.ok(chunk.text.trim() !== '');
          assert.ok(fencesBalanced(chunk.text), chunk.text);
          assert.ok(chunk.text.length <= chunkOptions.maxChars, chunk.text);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('every page of the FastAPI docs in the fixtures', () => {
    const files = markdownFiles(fastapiDocs);
    assert.equal(files.length, 62);
    let chunkCount = 0;
    for (const file of files) {
      const page = stripFrontMatter(readFileSync(file, 'utf8'));
      const chunks = chunkMarkdown(page);
      chunkCount += chunks.length;
      const chunkWords = new Set(chunks.flatMap((chunk) => words(chunk.text)));
      for (const token of words(page)) assert.ok(chunkWords.has(token), `${file} lost ${token}`);
      for (const chunk of chunks) {
        assert.ok(fencesBalanced(chunk.text), `${file}: unbalanced fence in\n${chunk.text}`);
        assert.ok(chunk.text.length <= defaultChunkOptions.maxChars, `${file}: oversized chunk\n${chunk.text}`);
      }
    }
    assert.ok(chunkCount > 700, `${chunkCount} chunks`);
  });
});
