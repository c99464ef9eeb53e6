// Table-driven tests for document file names: title slugs, the folder prefix of uploads with paths, and uniqueness.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { documentSlug, slugify, uniqueFileName } from '../../src/store/slug.js';

const slugCases: ReadonlyArray<readonly [title: string, folder: string | undefined, slug: string]> = [
  ['Getting Started', undefined, 'getting-started'],
  ['Crème brûlée', undefined, 'creme-brulee'],
  ['!!!', undefined, 'document'],
  ['Middleware', 'tutorial', 'tutorial-middleware'],
  ['Middleware', 'reference', 'reference-middleware'],
  // The title repeats the folder's last words: they are written once.
  ['Advanced Middleware', 'advanced', 'advanced-middleware'],
  ['Security - First Steps', 'tutorial/security', 'tutorial-security-first-steps'],
  ['Advanced Security', 'advanced/security', 'advanced-security'],
  ['Deployment', 'deployment', 'deployment'],
  ['Tutorial - User Guide', 'tutorial', 'tutorial-user-guide'],
  // Only whole words overlap: "tutorials" is not "tutorial".
  ['Tutorials', 'tutorial', 'tutorial-tutorials'],
  ['First Steps', 'Tutorial Folder/Sub_Part', 'tutorial-folder-sub-part-first-steps'],
  // A folder with nothing to slug leaves the title alone.
  ['Notes', '...', 'notes'],
];

describe('documentSlug', () => {
  for (const [title, folder, slug] of slugCases) {
    test(`${JSON.stringify(title)} in ${JSON.stringify(folder)} is ${slug}`, () => {
      assert.equal(documentSlug(title, folder), slug);
    });
  }

  test('keeps long folders and titles bounded', () => {
    const slug = documentSlug('t'.repeat(300), 'f'.repeat(300));
    assert.ok(slug.length <= 141, `${slug.length} characters`);
    assert.match(slug, /^f+-t+$/);
  });

  test('slugify gives the title slug alone', () => {
    assert.equal(slugify('Advanced Middleware'), documentSlug('Advanced Middleware', undefined));
  });
});

describe('uniqueFileName', () => {
  test('numbers a taken name', () => {
    const taken = new Set(['tutorial-middleware.md', 'tutorial-middleware-2.md']);
    assert.equal(
      uniqueFileName('tutorial-middleware', (file) => taken.has(file)),
      'tutorial-middleware-3.md',
    );
    assert.equal(
      uniqueFileName('advanced-middleware', (file) => taken.has(file)),
      'advanced-middleware.md',
    );
  });
});
