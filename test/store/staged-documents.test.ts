// A batch stages its changes over the live index (StagedDocuments) and finds documents by hash and origin through the
// index's lookups instead of walking the namespace: dedupe and upsert still hold after many commits, a failed change is
// undone alone, and a failed commit leaves the index as it was.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { chunkMarkdown } from '../../src/ingest/chunk-markdown.js';
import { contentHash } from '../../src/store/content-hash.js';
import type { IndexOp } from '../../src/store/index-ops.js';
import { NamespaceIndex } from '../../src/store/namespace-index.js';
import { StagedDocuments } from '../../src/store/staged-documents.js';
import type { DocumentDraft, StoredDocument } from '../../src/store/stored-document.js';
import { markerDocument, markerWord } from '../support/durability-documents.js';
import {
  draft,
  hookedNamespace,
  namespaceView,
  observable,
  openNamespace,
  removeTemporaryDirectories,
  temporaryDirectory,
} from '../support/namespace-fixtures.js';

after(removeTemporaryDirectories);

function stored(file: string, hash: string, origin: string, title = file): StoredDocument {
  return { file, title, origin, hash, ingestedAt: '2026-11-27T08:00:00.000Z', fileSize: 1, fileModifiedMs: 1, chunks: [] };
}

/** A pasted text (origin `text`): the same title from the same origin. */
function pastedText(title: string, marker: string): DocumentDraft {
  const body = markerDocument(marker, 1);
  return {
    title,
    origin: 'text',
    body,
    hash: contentHash(body),
    embeddingModel: null,
    chunks: chunkMarkdown(body).map((chunk) => ({ ...chunk, embedding: null })),
  };
}

describe('StagedDocuments', () => {
  const index = NamespaceIndex.empty();
  const live: IndexOp[] = [
    { op: 'put', document: stored('a.md', 'sha256:a', 'https://example.com/a') },
    { op: 'put', document: stored('b.md', 'sha256:b', 'text', 'Notes') },
    { op: 'put', document: stored('c.md', 'sha256:c', 'https://example.com/c') },
  ];
  for (const op of live) index.apply(op);

  it('lays the batch over the live index without changing it', () => {
    const staged = new StagedDocuments(index);
    staged.set(stored('d.md', 'sha256:d', 'text', 'Draft'));
    staged.set(stored('a.md', 'sha256:a2', 'https://example.com/a'));
    staged.delete('c.md');
    assert.deepEqual([...staged.files()], ['a.md', 'b.md', 'd.md']);
    assert.equal(staged.get('c.md'), undefined);
    assert.equal(staged.withHash('sha256:a'), undefined, 'the file that held it holds other content now');
    assert.equal(staged.withHash('sha256:a2')?.file, 'a.md');
    assert.equal(staged.withHash('sha256:c'), undefined);
    assert.equal(staged.withOrigin('text:Draft')?.file, 'd.md');
    assert.equal(staged.withOrigin('text:Notes')?.file, 'b.md');
    assert.equal(staged.withOrigin('https://example.com/c'), undefined);
    assert.deepEqual([...index.files()], ['a.md', 'b.md', 'c.md']);
    assert.equal(index.findByHash('sha256:a')?.file, 'a.md');
  });

  it('matches documents by file or by exact origin; `text` is every pasted text', () => {
    const staged = new StagedDocuments(index);
    staged.set(stored('d.md', 'sha256:d', 'text', 'Draft'));
    // A file whose origin is spelled like a pasted text's identity is not that text.
    staged.set(stored('e.md', 'sha256:e', 'text:Notes'));
    const files = (match: { file?: string; origin?: string }) => staged.matching(match).map((document) => document.file);
    assert.deepEqual(files({ origin: 'text' }), ['b.md', 'd.md']);
    assert.deepEqual(files({ origin: 'text:Notes' }), ['e.md']);
    assert.deepEqual(files({ file: 'c.md', origin: 'https://example.com/a' }), ['c.md', 'a.md']);
    assert.deepEqual(files({}), []);
  });

  it('replays ops over the live index as setting and deleting them one by one would', () => {
    const ops: IndexOp[] = [
      { op: 'put', document: stored('d.md', 'sha256:d', 'text', 'Draft') },
      { op: 'remove', file: 'a.md' },
      { op: 'model', embedding: null },
      { op: 'put', document: stored('a.md', 'sha256:a3', 'https://example.com/a') },
    ];
    const replayed = StagedDocuments.replaying(index, ops);
    assert.deepEqual([...replayed.files()], ['a.md', 'b.md', 'c.md', 'd.md']);
    assert.equal(replayed.get('a.md')?.hash, 'sha256:a3');
    assert.equal(replayed.withOrigin('https://example.com/a')?.hash, 'sha256:a3');
  });
});

describe('a namespace finding documents by hash and origin', () => {
  it('dedupes and upserts after many commits, in separate batches and within one', async () => {
    const namespace = await openNamespace(await temporaryDirectory());
    for (let number = 0; number < 120; number++) await namespace.commitDocuments([draft(markerWord(number), 1, false)]);
    assert.equal(namespace.documentCount, 120);

    const [again] = await namespace.commitDocuments([draft(markerWord(17), 1, false)]);
    assert.equal(again?.status, 'skipped');
    assert.equal(again.document.origin, `text-${markerWord(17)}`);

    const original = namespace.findByHash(draft(markerWord(42), 1, false).hash);
    const changed = { ...draft(markerWord(900), 2, false), origin: `text-${markerWord(42)}` };
    const [update] = await namespace.commitDocuments([changed]);
    assert.equal(update?.status, 'updated');
    assert.equal(update.status === 'updated' && update.replaced, original);
    assert.equal(update.document.file, original?.file, 'the replacement keeps the file name');
    assert.equal(namespace.findByHash(original?.hash ?? ''), undefined);
    assert.equal(namespace.documentCount, 120);

    // Within one batch: the second copy sees the first, the second text of a title replaces the first.
    const outcomes = await namespace.commitDocuments([
      draft(markerWord(500), 1, false),
      draft(markerWord(500), 1, false),
      pastedText('Shift notes', markerWord(501)),
      pastedText('Shift notes', markerWord(502)),
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['saved', 'skipped', 'saved', 'updated'],
    );
    assert.equal(namespace.documentCount, 122);
    const [pastedAgain] = await namespace.commitDocuments([pastedText('Shift notes', markerWord(503))]);
    assert.equal(pastedAgain?.status, 'updated');
    assert.equal(namespace.documentCount, 122);
  });

  it('undoes a failed change alone: the changes queued with it still see each other', async () => {
    const { namespace, storage } = await hookedNamespace();
    await namespace.commitDocuments([draft(markerWord(1), 1, false)]);
    const poison = draft(markerWord(3), 1, false).hash;
    storage.hooks.beforeCreate = (content) => {
      if (content.includes(poison)) throw new Error('injected write failure');
    };
    // The first commit runs in a batch of its own; the ones queued meanwhile are staged together in the next.
    const first = namespace.commitDocuments([draft(markerWord(2), 1, false)]);
    const batch = [
      namespace.commitDocuments([draft(markerWord(4), 1, false)]),
      namespace.commitDocuments([draft(markerWord(3), 1, false)]),
      namespace.commitDocuments([draft(markerWord(4), 1, false)]),
      namespace.commitDocuments([{ ...draft(markerWord(5), 1, false), origin: `text-${markerWord(3)}` }]),
      namespace.commitDocuments([{ ...draft(markerWord(6), 1, false), origin: `text-${markerWord(4)}` }]),
    ];
    const statuses = await Promise.all(
      [first, ...batch].map((outcome) =>
        outcome.then(
          ([result]) => result?.status,
          (error: Error) => error.message,
        ),
      ),
    );
    assert.deepEqual(statuses, ['saved', 'saved', 'injected write failure', 'skipped', 'saved', 'updated']);
    assert.deepEqual(
      namespace.documents.map((document) => document.origin).sort(),
      [1, 2, 3, 4].map((number) => `text-${markerWord(number)}`).sort(),
    );
    assert.equal(namespace.findByHash(draft(markerWord(3), 1, false).hash), undefined);
  });

  it('leaves the index as it was when the commit fails, and commits the same changes once it can', async () => {
    const { namespace, storage } = await hookedNamespace();
    await namespace.commitDocuments([draft(markerWord(1), 1), draft(markerWord(2), 1)]);
    const queries = [markerWord(1), markerWord(2), markerWord(3)];
    const before = observable(namespaceView(namespace), queries);
    storage.hooks.beforeCommit = () => {
      throw new Error('injected commit failure');
    };
    const failed = await Promise.allSettled([
      namespace.commitDocuments([draft(markerWord(3), 1)]),
      namespace.commitDocuments([{ ...draft(markerWord(4), 1), origin: `text-${markerWord(1)}` }]),
      namespace.deleteDocuments({ origin: `text-${markerWord(2)}` }),
    ]);
    assert.deepEqual(
      failed.map((outcome) => outcome.status),
      ['rejected', 'rejected', 'rejected'],
    );
    assert.deepEqual(observable(namespaceView(namespace), queries), before);
    assert.equal(namespace.findByHash(draft(markerWord(3), 1).hash), undefined);

    storage.hooks.beforeCommit = undefined;
    const [saved] = await namespace.commitDocuments([draft(markerWord(3), 1)]);
    const [updated] = await namespace.commitDocuments([{ ...draft(markerWord(4), 1), origin: `text-${markerWord(1)}` }]);
    const removed = await namespace.deleteDocuments({ origin: `text-${markerWord(2)}` });
    assert.deepEqual([saved?.status, updated?.status, removed.length], ['saved', 'updated', 1]);
    assert.equal(namespace.documentCount, 2);
  });
});
