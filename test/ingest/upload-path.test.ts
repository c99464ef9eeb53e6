// Table-driven tests for the paths uploads arrive with: normalised when they are relative, refused otherwise.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseBaseUrl, parseUploadPath, publicPageUrl } from '../../src/ingest/upload-path.js';

const accepted: ReadonlyArray<readonly [fileName: string, path: string, folder: string | undefined]> = [
  ['middleware.md', 'middleware.md', undefined],
  ['tutorial/middleware.md', 'tutorial/middleware.md', 'tutorial'],
  ['tutorial\\security\\first-steps.md', 'tutorial/security/first-steps.md', 'tutorial/security'],
  ['./tutorial//middleware.md', 'tutorial/middleware.md', 'tutorial'],
  ['docs-fastapi/./index.md', 'docs-fastapi/index.md', 'docs-fastapi'],
  ['notes..md', 'notes..md', undefined],
  ['a/...md', 'a/...md', 'a'],
];

const refused: ReadonlyArray<readonly [fileName: string, reason: RegExp]> = [
  ['/etc/passwd', /not an absolute path/],
  ['\\\\server\\share\\notes.md', /not an absolute path/],
  ['C:\\Users\\me\\notes.md', /not an absolute path/],
  ['c:notes.md', /not an absolute path/],
  ['https://example.com/page.md', /not an absolute path/],
  ['../secret.md', /may not step out/],
  ['tutorial/../../secret.md', /may not step out/],
  ['tutorial\\..\\notes.md', /may not step out/],
  ['tutorial/', /names a folder, not a file/],
  ['tutorial/.', /names a folder, not a file/],
  ['./', /names a folder, not a file/],
  ['notes\u0000.md', /control characters/],
  ['line\nbreak.md', /control characters/],
  [`${'a/'.repeat(600)}x.md`, /longer than 1000 characters/],
];

describe('parseUploadPath', () => {
  for (const [fileName, path, folder] of accepted) {
    test(`keeps ${JSON.stringify(fileName)} as ${path}`, () => {
      assert.deepEqual(parseUploadPath(fileName), { path, folder });
    });
  }
  for (const [fileName, reason] of refused) {
    test(`refuses ${JSON.stringify(fileName)}`, () => {
      assert.throws(
        () => parseUploadPath(fileName),
        (error: Error & { code?: string }) => error.code === 'source_invalid' && reason.test(error.message),
      );
    });
  }
});

describe('the public page of an upload under a base URL', () => {
  const pages: ReadonlyArray<readonly [base: string, path: string, url: string]> = [
    ['https://docs.example.com/', 'guide/x.md', 'https://docs.example.com/guide/x'],
    ['https://docs.example.com', 'guide/x.mdx', 'https://docs.example.com/guide/x'],
    ['https://docs.example.com/v2', 'guide/index.md', 'https://docs.example.com/v2/guide/'],
    ['https://docs.example.com/v2/', 'README.md', 'https://docs.example.com/v2/'],
    ['https://docs.example.com/', 'api/manual.pdf', 'https://docs.example.com/api/manual.pdf'],
    ['https://docs.example.com/', 'faq.html', 'https://docs.example.com/faq.html'],
    ['https://docs.example.com/', 'guide/first steps#1.md', 'https://docs.example.com/guide/first%20steps%231'],
  ];
  for (const [base, path, url] of pages) test(`${base} + ${path}`, () => assert.equal(publicPageUrl(base, path), url));

  test('a base URL must be an absolute http(s) URL without query or fragment', () => {
    assert.equal(parseBaseUrl('https://docs.example.com'), 'https://docs.example.com/');
    for (const base of ['docs.example.com', 'file:///srv/docs/', 'https://docs.example.com/#top', 'https://docs.example.com/?v=1'])
      assert.throws(() => parseBaseUrl(base), { code: 'invalid_request' }, base);
  });
});
