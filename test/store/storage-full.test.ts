// Which file-system errors count as a full volume, and how they are named in log lines and answered to clients.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeFileError, isStorageFull, storageFullError, withPath } from '../../src/store/storage-full.js';

function fileError(code: string, path?: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: something, write`);
  error.code = code;
  if (path !== undefined) error.path = path;
  return error;
}

describe('a full volume', () => {
  it('is ENOSPC or EDQUOT, nothing else', () => {
    for (const [code, full] of [
      ['ENOSPC', true],
      ['EDQUOT', true],
      ['EACCES', false],
      ['EIO', false],
      ['ENOENT', false],
    ] as const) {
      assert.equal(isStorageFull(fileError(code)), full, code);
    }
    assert.equal(isStorageFull(new Error('no space')), false);
    assert.equal(isStorageFull(undefined), false);
  });

  it('is logged with its errno and the file, which a write through a file handle does not name by itself', () => {
    assert.equal(describeFileError(withPath(fileError('ENOSPC'), '/data/docs/index.journal')), 'ENOSPC writing /data/docs/index.journal');
    assert.equal(
      describeFileError(withPath(fileError('ENOSPC', '/data/docs/a.md'), '/data/docs/other.md')),
      'ENOSPC writing /data/docs/a.md',
      'a path the error has is kept',
    );
    assert.match(describeFileError(fileError('EDQUOT')), /^EDQUOT \(/);
  });

  it('is answered as storage_full (507) without the internal path', () => {
    const answer = storageFullError(fileError('ENOSPC', '/data/docs/index.journal'));
    assert.equal(answer.code, 'storage_full');
    assert.equal(answer.status, 507);
    assert.doesNotMatch(answer.message, /\/data/);
  });
});
