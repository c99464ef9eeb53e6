// A snapshot's document line read back: chunk ids from the file and position, texts from the section's bytes, and the
// chunks of one section sharing one heading path, so that a large load keeps one copy of each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromSnapshotDocument, parseSnapshotDocument } from '../../src/store/persisted-document.js';

describe('fromSnapshotDocument', () => {
  it('reads each chunk from its bytes, and gives the chunks of one section one heading path', () => {
    const texts = ['First part.', 'Second part.', 'Other section.', 'Back.'];
    const line = parseSnapshotDocument(
      JSON.parse(
        JSON.stringify({
          file: 'guide.md',
          title: 'Guide',
          source: 'https://docs.example.com/guide',
          hash: 'sha256:00',
          ingestedAt: '2026-11-29T00:00:00.000Z',
          fileSize: 100,
          fileModifiedMs: 1,
          chunks: [
            [['Guide', 'Install'], 11],
            [['Guide', 'Install'], 12],
            [['Guide', 'Use'], 14],
            [['Guide', 'Install'], 5],
          ],
        }),
      ),
    );
    const document = fromSnapshotDocument(line, Buffer.from(texts.join(''), 'utf8'));
    assert.deepEqual(
      document.chunks.map(({ id, headingPath, text }) => [id, headingPath, text]),
      [
        ['guide:0', ['Guide', 'Install'], 'First part.'],
        ['guide:1', ['Guide', 'Install'], 'Second part.'],
        ['guide:2', ['Guide', 'Use'], 'Other section.'],
        ['guide:3', ['Guide', 'Install'], 'Back.'],
      ],
    );
    const [first, second, third] = document.chunks;
    assert.equal(first?.headingPath, second?.headingPath);
    assert.notEqual(second?.headingPath, third?.headingPath);
  });
});
