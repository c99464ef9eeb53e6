// What a folder given to `knowledge-agent ingest` yields: its documents, and never a file a symbolic link points to
// outside the folder.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { collectSources } from '../../src/cli/collect-sources.js';

describe('collectSources', () => {
  let workspace: string;

  before(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'knowledge-agent-collect-'));
    await mkdir(join(workspace, 'docs', 'guide'), { recursive: true });
    await mkdir(join(workspace, 'private'));
    await writeFile(join(workspace, 'docs', 'guide', 'install.md'), '# Install\n');
    await writeFile(join(workspace, 'private', 'id_rsa.txt'), 'PRIVATE KEY\n');
    await symlink(join(workspace, 'docs', 'guide', 'install.md'), join(workspace, 'docs', 'setup.md'));
    await symlink(join(workspace, 'private', 'id_rsa.txt'), join(workspace, 'docs', 'key.txt'));
    await symlink('../../private/id_rsa.txt', join(workspace, 'docs', 'guide', 'relative-key.md'));
  });

  after(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it('follows a link inside the folder, and skips, saying so, one that leads out of it', async () => {
    const collected = await collectSources(['docs'], workspace);
    assert.deepEqual(
      collected.sources.map((source) => (source.kind === 'file' ? source.uploadName : source.url)),
      ['guide/install.md', 'setup.md'],
    );
    assert.deepEqual(
      collected.local.map(({ label, status }) => [label, status]),
      [
        [join('docs', 'guide', 'relative-key.md'), 'skipped'],
        [join('docs', 'key.txt'), 'skipped'],
      ],
    );
    for (const outcome of collected.local) {
      assert.match(outcome.reason, new RegExp(`^a symbolic link to ${join(workspace, 'private', 'id_rsa.txt')}, outside the folder docs$`));
    }
  });

  it('takes a file named on the command line as named, link or not', async () => {
    const collected = await collectSources([join('docs', 'key.txt')], workspace);
    assert.deepEqual(
      collected.sources.map((source) => source.label),
      [join('docs', 'key.txt')],
    );
  });
});
