// A folder namespace tells the service's own writes from changes made by hand: a search after an ingest has nothing
// to reconcile, a file placed by hand is still found, even one placed while a commit was being written.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { markerWord } from '../../support/durability-documents.js';
import { draft, hookedNamespace, type HookedFolderStorage, removeTemporaryDirectories } from '../../support/namespace-fixtures.js';
import { until } from '../../support/until.js';

after(removeTemporaryDirectories);

/** Places a file by hand in the middle of the storage's next commit, after it wrote its first document. */
function placeDuringNextCommit(storage: HookedFolderStorage, file: string): void {
  storage.hooks.afterCreate = async () => {
    storage.hooks.afterCreate = undefined;
    await writeFile(join(storage.directory, file), `# Placed by hand\n\nMentions ${markerWord(900)}.\n`);
  };
}

describe('a folder namespace, its own writes and changes by hand', () => {
  it('has nothing to reconcile after its own commits, and finds a file placed by hand after them', async () => {
    const { namespace, storage } = await hookedNamespace();
    for (let number = 0; number < 5; number++) {
      await namespace.commitDocuments([draft(markerWord(number), 2)]);
      assert.equal(storage.outsideChanges(namespace.documentCount), undefined, `after commit ${number + 1}`);
    }
    await namespace.deleteDocuments({ file: namespace.documents[0]?.file });
    assert.equal(storage.outsideChanges(namespace.documentCount), undefined, 'after a removal');

    // Placed right after a change was acknowledged (the compaction that may follow a commit runs meanwhile).
    await writeFile(join(storage.directory, 'hand-notes.md'), `# Hand notes\n\nMentions ${markerWord(800)}.\n`);
    assert.notEqual(storage.outsideChanges(namespace.documentCount), undefined);
    // A commit in between does not hide it.
    await namespace.commitDocuments([draft(markerWord(6), 1)]);
    assert.notEqual(storage.outsideChanges(namespace.documentCount), undefined);
    await namespace.syncWithFolder();
    assert.ok(namespace.documents.some((document) => document.file === 'hand-notes.md'));
    assert.equal(namespace.documentCount, 6);
  });

  it('finds a file placed by hand while its own commit was being written, shortly after', async () => {
    const { namespace, storage } = await hookedNamespace();
    await namespace.commitDocuments([draft(markerWord(1), 1)]);
    placeDuringNextCommit(storage, 'placed-meanwhile.md');
    await namespace.commitDocuments([draft(markerWord(2), 1)]);
    assert.equal(storage.hooks.afterCreate, undefined, 'the file was placed during the commit');
    await until(() => storage.outsideChanges(namespace.documentCount) !== undefined, 'the check after the commit to notice the file');
    await namespace.syncWithFolder();
    assert.deepEqual(
      namespace.documents.map((document) => document.file).filter((file) => file === 'placed-meanwhile.md'),
      ['placed-meanwhile.md'],
    );
    await namespace.close();
  });
});
