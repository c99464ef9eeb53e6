// Fifty ingests into one namespace at once, over both ingest routes: nothing lost, duplicates stored once, all of it back after a restart.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { markerDocument, markerWord } from '../support/durability-documents.js';
import { ingestTexts, searchDocs, type IngestRoute, type IngestedText, type TextSource } from '../support/ingest-client.js';
import { duplicateHashes, indexedFiles, readNamespaceFolder, readStoredIndex, recordedHash } from '../support/namespace-folder.js';
import type { ProviderDouble } from '../support/provider-double.js';
import { startService, startServiceWithProvider, type TestService } from '../support/service.js';

const namespace = 'burst';
const distinctCount = 40;
/** Groups of requests that all carry the same text; the second group also varies the title. */
const duplicateGroups = [
  { marker: markerWord(900), copies: 5, varyTitle: false },
  { marker: markerWord(901), copies: 5, varyTitle: true },
];

interface Sent {
  readonly marker: string;
  readonly group: number | undefined;
  readonly result: IngestedText;
}

describe('50 concurrent ingests into one namespace', () => {
  let provider: ProviderDouble;
  let service: TestService;
  const sent: Sent[] = [];

  before(async () => {
    ({ provider, service } = await startServiceWithProvider());
    const requests: { marker: string; group: number | undefined; source: TextSource }[] = [];
    for (let index = 0; index < distinctCount; index++) {
      const marker = markerWord(index);
      // Two to four chunks each, so commits overlap with embedding calls of other requests.
      requests.push({ marker, group: undefined, source: { text: markerDocument(marker, 2 + (index % 3)), title: `Burst ${index}` } });
    }
    duplicateGroups.forEach((group, groupIndex) => {
      const text = markerDocument(group.marker, 3);
      for (let copy = 0; copy < group.copies; copy++) {
        requests.push({
          marker: group.marker,
          group: groupIndex,
          source: { text, title: group.varyTitle ? `Copy ${groupIndex} ${copy}` : `Copy ${groupIndex}` },
        });
      }
    });
    // Mix the copies in among the distinct texts; alternating routes send each group's copies over both.
    requests.sort((left, right) => left.marker.localeCompare(right.marker));
    const results = await Promise.all(
      requests.map(async (request, position) => {
        const route: IngestRoute = position % 2 === 0 ? '/tools/ingest' : '/api/tools/ingest';
        const [result] = await ingestTexts((path, body) => service.post(path, body), route, namespace, [request.source]);
        return { marker: request.marker, group: request.group, result: result as IngestedText };
      }),
    );
    sent.push(...results);
  });

  after(async () => {
    await service?.dispose();
  });

  it('saves every distinct text', () => {
    const distinct = sent.filter((entry) => entry.group === undefined);
    assert.equal(distinct.length, distinctCount);
    assert.deepEqual(
      distinct.filter((entry) => entry.result.status !== 'saved'),
      [],
    );
    assert.equal(new Set(distinct.map((entry) => entry.result.file)).size, distinctCount, 'each distinct text has a file of its own');
  });

  it('stores identical texts sent at the same time exactly once: one saved, the rest skipped, all naming the same file', () => {
    duplicateGroups.forEach((group, groupIndex) => {
      const copies = sent.filter((entry) => entry.group === groupIndex);
      assert.equal(copies.length, group.copies);
      assert.equal(copies.filter((entry) => entry.result.status === 'saved').length, 1, `group ${groupIndex}: ${JSON.stringify(copies)}`);
      assert.equal(copies.filter((entry) => entry.result.status === 'skipped').length, group.copies - 1);
      assert.equal(new Set(copies.map((entry) => entry.result.file)).size, 1, `group ${groupIndex}: ${JSON.stringify(copies)}`);
    });
  });

  it('has every document in the index and as a .md file, and the counts agree', async () => {
    const directory = join(service.storageRoot, namespace);
    const folder = await readNamespaceFolder(directory);
    assert.ok(folder.hasIndexFiles, 'the index files exist');
    const index = await readStoredIndex(directory);
    const expectedFiles = [...new Set(sent.map((entry) => entry.result.file))].sort();
    assert.equal(expectedFiles.length, distinctCount + duplicateGroups.length);
    assert.deepEqual(indexedFiles(index), expectedFiles);
    assert.deepEqual(folder.markdownFiles, expectedFiles);
    assert.deepEqual(folder.temporaryFiles, []);
    assert.deepEqual(duplicateHashes(index), []);
    for (const document of index.documents) {
      assert.ok(document.chunks.length > 0, `${document.file} has chunks`);
      assert.ok(
        document.chunks.every((chunk) => index.vectorOf(chunk.id) !== undefined),
        `${document.file} has its embeddings`,
      );
      assert.equal(
        await recordedHash(directory, document.file),
        document.hash,
        `${document.file}: front matter and index agree on the hash`,
      );
    }
  });

  it('finds every document with searchDocs after a restart on the same storage root', async () => {
    await service.close();
    const restarted = await startService({ providerUrl: provider.baseUrl, storageRoot: service.storageRoot });
    try {
      const expected = new Map(sent.map((entry) => [entry.marker, entry.result.file]));
      for (const [marker, file] of expected) {
        const found = await searchDocs((path, body) => restarted.post(path, body), namespace, marker, 3);
        assert.equal(
          found.results[0]?.file,
          file,
          `searchDocs "${marker}" -> ${JSON.stringify(found.results.map((result) => result.file))}`,
        );
      }
      assert.equal((await readStoredIndex(join(service.storageRoot, namespace))).documents.length, expected.size);
    } finally {
      await restarted.close();
    }
  });
});
