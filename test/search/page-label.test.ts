import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageLabel } from '../../src/search/page-label.js';

describe('a page label', () => {
  it('is the title, linked to the URL of a page that came from the web', () => {
    assert.equal(pageLabel({ title: 'Deploy', origin: 'https://docs.example.com/deploy' }), '[Deploy](https://docs.example.com/deploy)');
    assert.equal(pageLabel({ title: 'Deploy', origin: 'HTTP://docs.example.com/deploy' }), '[Deploy](HTTP://docs.example.com/deploy)');
  });

  it('is the bare title of an uploaded file or a text', () => {
    assert.equal(pageLabel({ title: 'Notes', origin: '/srv/docs/notes.md' }), 'Notes');
    assert.equal(pageLabel({ title: 'Notes [draft]', origin: 'Notes [draft]' }), 'Notes [draft]');
  });

  it('stays one line and one link whatever the title and URL hold', () => {
    assert.equal(pageLabel({ title: ' Token\n rotation ', origin: 'notes.md' }), 'Token rotation');
    assert.equal(
      pageLabel({ title: 'Array [beta] \\ notes', origin: 'https://en.example.org/wiki/Array_(data structure)' }),
      '[Array \\[beta\\] \\\\ notes](https://en.example.org/wiki/Array_%28data%20structure%29)',
    );
  });
});
