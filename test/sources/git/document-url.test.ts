// Tests for the URLs documents of git sources are cited by: GitHub's and GitLab's file pages, templates, other hosts,
// and percent-encoding.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkLinkTemplate, documentUrl } from '../../../src/sources/git/index.js';

const commit = '0123456789abcdef0123456789abcdef01234567';

describe('documentUrl', () => {
  test('GitHub repositories link to the file on the branch, with or without .git', () => {
    for (const repoUrl of ['https://github.com/acme/docs.git', 'https://github.com/acme/docs', 'https://github.com/acme/docs/']) {
      assert.equal(
        documentUrl(undefined, { repoUrl, branch: 'main', commit, path: 'docs/intro.md' }),
        'https://github.com/acme/docs/blob/main/docs/intro.md',
      );
    }
  });

  test('GitLab repositories, in nested groups too, link to the file on the branch', () => {
    assert.equal(
      documentUrl(undefined, { repoUrl: 'https://gitlab.com/acme/platform/docs.git', branch: 'release/2.0', commit, path: 'guide/a.md' }),
      'https://gitlab.com/acme/platform/docs/-/blob/release/2.0/guide/a.md',
    );
  });

  test('paths and branches are percent-encoded segment by segment', () => {
    assert.equal(
      documentUrl(undefined, { repoUrl: 'https://github.com/acme/docs', branch: 'feature/ü x', commit, path: 'docs/a b/#1?.md' }),
      'https://github.com/acme/docs/blob/feature/%C3%BC%20x/docs/a%20b/%231%3F.md',
    );
  });

  test('a template fills in {path}, {branch} and {commit}, wherever the repository is', () => {
    const location = { repoUrl: 'https://github.com/acme/docs.git', branch: 'main', commit, path: 'docs/intro.md' };
    assert.equal(
      documentUrl('https://git.example.com/docs/src/commit/{commit}/{path}?branch={branch}', location),
      `https://git.example.com/docs/src/commit/${commit}/docs/intro.md?branch=main`,
    );
  });

  test('another host without a template gives the repository URL followed by the path', () => {
    assert.equal(
      documentUrl(undefined, { repoUrl: 'https://git.example.com/docs.git', branch: 'main', commit, path: 'a/b.md' }),
      'https://git.example.com/docs/a/b.md',
    );
  });

  test('a template needs {path} and must be an http(s) URL', () => {
    assert.throws(() => checkLinkTemplate('https://example.com/{branch}'), { code: 'source_invalid', message: /\{path\}/ });
    assert.throws(() => checkLinkTemplate('javascript:alert({path})'), { code: 'source_invalid', message: /http/ });
    assert.throws(() => checkLinkTemplate('{path}'), { code: 'source_invalid' });
    assert.equal(checkLinkTemplate('https://example.com/{path}'), 'https://example.com/{path}');
  });
});
