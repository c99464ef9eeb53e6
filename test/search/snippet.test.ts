// The text either side of a retrieved chunk, as the agent passes it to the model: the chunker's overlap appears once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { neighbouringText, overlapLength } from '../../src/search/snippet.js';

const chunk = (ordinal: number, text: string, headingPath: string[] = ['Guide']) => ({
  id: `guide:${ordinal}`,
  file: 'guide.md',
  headingPath,
  text,
});

describe('overlapLength', () => {
  it('finds the text a chunk repeats from the end of the one before', () => {
    assert.equal(
      overlapLength('First part.\n\nShared sentence here.', 'Shared sentence here.\n\nNew text.'),
      'Shared sentence here.'.length,
    );
  });

  it('takes no repeat that ends inside a word or a fence line', () => {
    assert.equal(overlapLength('Some code:\n\n```', '```python\nx = 1\n```'), 0);
    assert.equal(overlapLength('Ends with Sha', 'Shared words'), 0);
    // A code block cut in two: the fence closing the first part is not the one opening the second.
    assert.equal(overlapLength('Run:\n\n```\ncase word in\nesac\n```', '```\nesac\n```\n\nThen.'), 0);
  });
});

describe('neighbouringText', () => {
  it('gives the chunks either side, without what they share with the chunk', () => {
    const chunks = [
      chunk(0, '# Guide\n\nIntro.\n\nTo start, call `run()`:'),
      chunk(1, 'To start, call `run()`:\n\n```js\nrun();\n```'),
      chunk(2, '## Next\n\nMore.', ['Guide', 'Next']),
    ];
    assert.deepEqual(neighbouringText(chunks, 'guide:1'), {
      before: { text: '# Guide\n\nIntro.', headingPath: ['Guide'] },
      after: { text: '## Next\n\nMore.', headingPath: ['Guide', 'Next'] },
    });
  });

  it('says where a chunk boundary cut a block, and with what whitespace, so the two halves read as one block', () => {
    const chunks = [
      chunk(0, 'Intro.\n\nThe **proxy** intercepts the original client request'),
      chunk(1, 'intercepts the original client request and adds headers.\n* first item\n* second'),
      chunk(2, '* second\n* third item'),
    ];
    assert.deepEqual(neighbouringText(chunks, 'guide:1'), {
      before: { text: 'Intro.\n\nThe **proxy**', headingPath: ['Guide'], splitBlock: ' ' },
      after: { text: '* third item', headingPath: ['Guide'], splitBlock: '\n' },
    });
  });

  it('keeps the indentation of the first line after a blank line (code inside a list item)', () => {
    const chunks = [
      chunk(0, '* For stdlib types, configuration is propagated:'),
      chunk(1, '* For stdlib types, configuration is propagated:\n\n    ```python\n    x = 1\n    ```'),
    ];
    assert.deepEqual(neighbouringText(chunks, 'guide:0').after, { text: '    ```python\n    x = 1\n    ```', headingPath: ['Guide'] });
  });

  it('gives nothing past the ends of the document', () => {
    assert.deepEqual(neighbouringText([chunk(0, 'Only chunk.')], 'guide:0'), {});
  });
});
