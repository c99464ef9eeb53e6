// Markdown split into whole blocks: code blocks never cut, list items kept together.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markdownBlocks } from '../../src/markdown/markdown-blocks.js';

describe('markdownBlocks', () => {
  it('splits headings, paragraphs, lists, quotes, tables and code blocks', () => {
    const blocks = markdownBlocks(
      '# Title\n\nOne line\nand its continuation.\n\n- a\n- b\n\n> quoted\n\n| a | b |\n|---|---|\n\n```py\nx = 1\n\ny = 2\n```',
    );
    assert.deepEqual(
      blocks.map((block) => [block.kind, block.text]),
      [
        ['heading', '# Title'],
        ['paragraph', 'One line\nand its continuation.'],
        ['list', '- a\n- b'],
        ['quote', '> quoted'],
        ['table', '| a | b |\n|---|---|'],
        ['code', '```py\nx = 1\n\ny = 2\n```'],
      ],
    );
  });

  it('keeps a loose list (blank lines between items, indented continuations) as one block', () => {
    assert.deepEqual(
      markdownBlocks('* one\n\n* two\n    * nested\n\nAfter.').map((block) => block.kind),
      ['list', 'paragraph'],
    );
  });

  it('takes a thematic break for a block of its own, never for part of a paragraph or list', () => {
    assert.deepEqual(
      markdownBlocks('Before.\n\n---\n\n* one\n* two\n\n***\nAfter.').map((block) => [block.kind, block.text]),
      [
        ['paragraph', 'Before.'],
        ['rule', '---'],
        ['list', '* one\n* two'],
        ['rule', '***'],
        ['paragraph', 'After.'],
      ],
    );
  });

  it('keeps what is indented under a list item in its list, a rule or a nested item after a code block too', () => {
    assert.deepEqual(
      markdownBlocks('*   Field\n\n    ---\n\n    * [a](#a)\n\nAfter.').map((block) => block.kind),
      ['list', 'paragraph'],
    );
    assert.deepEqual(
      markdownBlocks('* Use it:\n\n    ```py\n    # a comment\n    ```\n\n    1. An annotation.\n\n    More.').map((block) => block.kind),
      ['list', 'code', 'list'],
    );
  });

  it("follows the chunker's fence rules: backticks in the info string open no fence, a longer run closes one", () => {
    assert.deepEqual(
      markdownBlocks('```js``` is inline code here.\n\n````md\n```\nstill code\n`````\nAfter.').map((block) => [block.kind, block.text]),
      [
        ['paragraph', '```js``` is inline code here.'],
        ['code', '````md\n```\nstill code\n`````'],
        ['paragraph', 'After.'],
      ],
    );
  });

  it('closes a code block cut off by the end of the text', () => {
    assert.deepEqual(markdownBlocks('```sh\nrun --now'), [{ kind: 'code', text: '```sh\nrun --now\n```' }]);
  });

  it('reads a text after its context: the list item it continues', () => {
    const item = '* Configuration is propagated unless\n  the type has its own:';
    const code = '    ```python\n    @dataclass\n\n    class User:\n        name: str\n    ```\n\nAfter.';
    // Alone, the item's indented code is paragraphs of code lines; after the item, it is the code it is.
    assert.deepEqual(
      markdownBlocks(code).map((block) => block.kind),
      ['paragraph', 'paragraph', 'paragraph'],
    );
    assert.deepEqual(markdownBlocks(code, `Intro.\n\n${item}`), [
      { kind: 'code', text: '    ```python\n    @dataclass\n\n    class User:\n        name: str\n    ```' },
      { kind: 'paragraph', text: 'After.' },
    ]);
    assert.deepEqual(markdownBlocks('Next.', 'One.\n\n* item\n\n```sh\nrun\n```'), [{ kind: 'paragraph', text: 'Next.' }]);
    // A context that ends inside a fenced block may have started inside one: the text is read alone.
    const text = 'Done.\n\n```sh\nrun --later\n```';
    assert.deepEqual(markdownBlocks(text, 'run --now\n```\n\nRun:\n\n```sh\nrun --now'), markdownBlocks(text));
  });
});
