// Where Markdown is code: the fence line rules, and the tracker that follows a text character by character.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CodeContextTracker, unclosedFence, type CodeContext } from '../../src/markdown/code-context.js';

/** The text with each character replaced by the initial of its context: t(ext), s(pan), f(ence); newlines kept. */
function contexts(text: string): string {
  const tracker = new CodeContextTracker();
  const initials: Record<CodeContext, string> = { text: 't', 'code-span': 's', fence: 'f' };
  let result = '';
  for (const character of text) {
    const context = tracker.contextOf(character);
    tracker.consume(character);
    result += character === '\n' ? '\n' : initials[context];
  }
  return result;
}

describe('CodeContextTracker', () => {
  const cases: { name: string; text: string; expected: string }[] = [
    { name: 'a code span runs from its opening run to one as long', text: 'a `b` c', expected: 'tttsstt' },
    { name: 'a longer run inside a span does not close it', text: '``a`b``c', expected: 'ttssssst' },
    { name: 'an unpaired backtick hides only the rest of its line', text: 'a `b\nc', expected: 'ttts\nt' },
    { name: 'a fence covers its lines up to and including its closing line', text: '```js\nx\n```\ny', expected: 'tttff\nf\nfff\nt' },
    { name: 'a closing run shorter than the opening one does not close', text: '````\n```\n````\nz', expected: 'tttt\nfff\nffff\nt' },
    { name: 'tildes open a fence only at the start of a line', text: 'a ~~~\n~~~\nb', expected: 'ttttt\nttt\nf' },
    { name: 'an indented fence', text: '  ~~~\n[1]\n  ~~~\n[1]', expected: 'ttttt\nfff\nfffff\nttt' },
    { name: 'a backtick in the info string: not a fence after all', text: '```js`x`\n[1]', expected: 'tttfffff\nttt' },
  ];
  for (const { name, text, expected } of cases) {
    it(name, () => assert.equal(contexts(text), expected));
  }

  it('tells whether the current line holds text yet', () => {
    const tracker = new CodeContextTracker();
    tracker.feed('  ');
    assert.equal(tracker.lineStarted, false);
    tracker.feed('a');
    assert.equal(tracker.lineStarted, true);
    tracker.feed('\n');
    assert.equal(tracker.lineStarted, false);
  });
});

describe('unclosedFence', () => {
  const cases: { text: string; expected: string | undefined }[] = [
    { text: 'no code', expected: undefined },
    { text: '```python\nx = 1', expected: '```' },
    { text: '~~~~\nx', expected: '~~~~' },
    { text: 'text\n```', expected: '```' },
    { text: '```py\nx\n```', expected: undefined },
    { text: '```py\nx\n```\n', expected: undefined },
    { text: '```js``` is inline code', expected: undefined },
    { text: 'an unpaired ` backtick', expected: undefined },
    { text: '1. Install it:\n\n    ```sh\n    pip install x', expected: '```' },
    { text: 'Indented code:\n\n    ```sh\n    pip install x', expected: undefined },
  ];
  for (const { text, expected } of cases) {
    it(JSON.stringify(text), () => assert.equal(unclosedFence(text), expected));
  }
});
