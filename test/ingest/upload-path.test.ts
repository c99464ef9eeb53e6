// Table-driven tests for the paths uploads arrive with: normalised when they are relative, refused otherwise.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseUploadPath } from '../../src/ingest/upload-path.js';

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
