// Table tests for the file patterns of git sources: `**`, `*`, `?`, braces, the default document patterns, and the
// patterns refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPathMatcher, defaultDocumentPatterns } from '../../../src/sources/git/index.js';

const cases: ReadonlyArray<readonly [pattern: string, path: string, matches: boolean]> = [
  ['**/*.md', 'intro.md', true],
  ['**/*.md', 'guide/deep/intro.md', true],
  ['**/*.md', 'guide/intro.mdx', false],
  ['*.md', 'intro.md', true],
  ['*.md', 'guide/intro.md', false],
  ['guide/**', 'guide/a/b.txt', true],
  ['guide/**', 'other/a.txt', false],
  ['guide/**/index.html', 'guide/index.html', true],
  ['guide/**/index.html', 'guide/a/b/index.html', true],
  ['**/api/**/*.md', 'v1/api/users/get.md', true],
  ['**/api/**/*.md', 'v1/apis/get.md', false],
  ['?.txt', 'a.txt', true],
  ['?.txt', 'ab.txt', false],
  ['*.{md,mdx}', 'a.mdx', true],
  ['*.{md,mdx}', 'a.markdown', false],
  ['{guide,api}/*.md', 'api/a.md', true],
  ['{guide,api}/*.md', 'blog/a.md', false],
  ['*.{m{d,dx},txt}', 'a.mdx', true],
  ['a*b*c', 'aXbYbZc', true],
  ['a*b*c', 'aXbYbZ', false],
  ['*', '.hidden', true],
  ['notes[1].md', 'notes[1].md', true],
];

describe('createPathMatcher', () => {
  for (const [pattern, path, matches] of cases) {
    test(`${pattern} ${matches ? 'matches' : 'does not match'} ${path}`, () => {
      assert.equal(createPathMatcher([pattern])(path), matches);
    });
  }

  test('the default patterns take Markdown, text, HTML and PDF at any depth, and nothing else', () => {
    const matches = createPathMatcher(defaultDocumentPatterns);
    for (const path of ['a.md', 'x/a.mdx', 'x/y/a.markdown', 'a.txt', 'a.html', 'a.htm', 'manual.pdf']) assert.ok(matches(path), path);
    for (const path of ['a.png', 'a.js', 'md', 'a.md.orig']) assert.ok(!matches(path), path);
  });

  test('stays quick on a pattern and path made to backtrack', () => {
    const matches = createPathMatcher([`${'*a'.repeat(30)}b`, `${'**/'.repeat(30)}x`]);
    assert.equal(matches('a'.repeat(5_000)), false);
    assert.equal(matches('a/'.repeat(2_000)), false);
  });

  test('refuses no patterns, empty or absolute ones, unbalanced braces and too many alternatives', () => {
    for (const patterns of [[], [''], ['/docs/*.md'], ['*.{md,txt'], ['{a,b}'.repeat(9)]]) {
      assert.throws(() => createPathMatcher(patterns), { code: 'source_invalid' }, JSON.stringify(patterns));
    }
  });
});
