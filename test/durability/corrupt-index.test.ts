// A damaged index.json, snapshot or journal at start-up: the service starts, warns once, restores what it lost from the
// other files and the .md files, and finds everything.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { indexJsonFileName, journalFileName, snapshotFileName } from '../../src/store/folder/index-files.js';
import { markerDocument, markerWord } from '../support/durability-documents.js';
import { ingestTexts, searchDocs, type IngestedText } from '../support/ingest-client.js';
import { duplicateHashes, indexedFiles, readNamespaceFolder, readStoredIndex } from '../support/namespace-folder.js';
import { startProviderDouble, type ProviderDouble } from '../support/provider-double.js';
import { startService, type TestService } from '../support/service.js';

const namespace = 'recover';

const corruptions: { name: string; corrupt: (valid: Buffer) => Buffer }[] = [
  {
    name: 'garbage bytes',
    corrupt: () => Buffer.from([0x00, 0xff, 0xfe, 0x7b, 0x7b, 0x6e, 0x6f, 0x74, 0x20, 0x6a, 0x73, 0x6f, 0x6e, 0x0a]),
  },
  { name: 'truncated to half its length', corrupt: (valid) => valid.subarray(0, Math.floor(valid.length / 2)) },
  { name: 'an empty file', corrupt: () => Buffer.alloc(0) },
  {
    name: 'one byte changed in the middle',
    corrupt: (valid) => Buffer.from(valid.map((byte, index) => (index === Math.floor(valid.length / 2) ? byte ^ 0x5a : byte))),
  },
  {
    name: 'one byte changed at the start',
    corrupt: (valid) => Buffer.from(valid.map((byte, index) => (index === 3 ? byte ^ 0x5a : byte))),
  },
];

interface Stored {
  readonly marker: string;
  readonly title: string;
  readonly file: string;
}

function warningLines(logs: readonly string[]): { level: number; msg: string }[] {
  return logs.flatMap((line) => {
    try {
      const entry = JSON.parse(line) as { level?: unknown; msg?: unknown };
      return entry.level === 40 && typeof entry.msg === 'string' ? [{ level: entry.level, msg: entry.msg }] : [];
    } catch {
      return [];
    }
  });
}

describe('a damaged index file at start-up', () => {
  let provider: ProviderDouble;

  before(async () => {
    provider = await startProviderDouble();
  });

  after(async () => {
    await provider?.close();
  });

  /**
   * A storage root holding three ingested documents (over both routes), with the service stopped as a crash between
   * writing index.json and emptying the journal leaves it: index.json and its snapshot hold all three, and the journal
   * still holds the commit of the third (ingested after a restart, so the first two are not in it).
   */
  async function storedNamespace(): Promise<{ storageRoot: string; stored: Stored[] }> {
    let service = await startService({ providerUrl: provider.baseUrl });
    const stored: Stored[] = [];
    let journal: Buffer | undefined;
    try {
      for (let index = 0; index < 3; index++) {
        if (index === 2) {
          await service.close();
          service = await startService({ providerUrl: provider.baseUrl, storageRoot: service.storageRoot });
        }
        const marker = markerWord(index);
        const title = `Recovery Guide ${index}`;
        const route = index % 2 === 0 ? '/tools/ingest' : '/api/tools/ingest';
        const [result] = await ingestTexts((path, body) => service.post(path, body), route, namespace, [
          { text: markerDocument(marker, 3), title },
        ]);
        assert.equal(result?.status, 'saved');
        stored.push({ marker, title, file: (result as IngestedText).file });
      }
      journal = await readFile(join(service.storageRoot, namespace, journalFileName));
    } finally {
      await service.close();
    }
    // A clean shutdown folds the journal into index.json; the crash came before it was emptied.
    await writeFile(join(service.storageRoot, namespace, journalFileName), journal);
    return { storageRoot: service.storageRoot, stored };
  }

  for (const target of [indexJsonFileName, snapshotFileName, journalFileName])
    for (const { name, corrupt } of corruptions) {
      it(`restores from the other files and the Markdown files when ${target} is ${name}`, async () => {
        const { storageRoot, stored } = await storedNamespace();
        const directory = join(storageRoot, namespace);
        const indexPath = join(directory, target);
        const valid = await readFile(indexPath);
        assert.ok(valid.length > 0, `${target} holds something to damage`);
        await writeFile(indexPath, corrupt(valid));

        let service: TestService | undefined;
        try {
          service = await startService({ providerUrl: provider.baseUrl, storageRoot });
          const health = await service.get('/health');
          assert.equal(health.status, 200);

          for (const document of stored) {
            const found = await searchDocs((path, body) => (service as TestService).post(path, body), namespace, document.marker);
            assert.equal(found.results[0]?.file, document.file, `searchDocs "${document.marker}": ${JSON.stringify(found.results)}`);
            assert.equal(found.results[0]?.title, document.title, 'the title comes back from the front matter');
          }

          // An emptied journal lost only records that the Markdown files hold anyway: nothing to warn about.
          const warnings = warningLines(service.logs).filter((entry) => entry.msg.includes(target));
          const expectedWarnings = target === journalFileName && name === 'an empty file' ? 0 : 1;
          assert.equal(warnings.length, expectedWarnings, `warnings about ${target}: ${JSON.stringify(warningLines(service.logs))}`);
          // The snapshot is only a cache of index.json; the others are restored with the Markdown files' help.
          if (expectedWarnings === 1)
            assert.match(warnings[0]?.msg ?? '', target === snapshotFileName ? /restored from index\.json$/ : /Markdown files/);

          const folder = await readNamespaceFolder(directory);
          const index = await readStoredIndex(directory);
          assert.deepEqual(indexedFiles(index), folder.markdownFiles);
          assert.deepEqual(indexedFiles(index), stored.map((document) => document.file).sort());
          assert.ok(index.documents.every((document) => document.chunks.length > 0));
          assert.deepEqual(folder.temporaryFiles, []);

          // Embeddings lost with a damaged file are embedded again by an embedding search, which finds the document.
          const response = await service.post('/tools/search', { namespace, query: `${stored[1]?.marker} runbook`, top_k: 1 });
          assert.equal(response.status, 200);
          const matches = ((await response.json()) as { matches: { title: string }[] }).matches;
          assert.equal(matches.length, 1);
          const reembedded = await readStoredIndex(directory);
          assert.ok(
            reembedded.documents.every((document) => document.chunks.every((chunk) => reembedded.vectorOf(chunk.id) !== undefined)),
            'every chunk has its vector again',
          );

          // The rebuilt namespace takes new documents and still holds the old ones, each once.
          const [added] = await ingestTexts((path, body) => (service as TestService).post(path, body), '/tools/ingest', namespace, [
            { text: markerDocument(markerWord(50), 2), title: 'After Recovery' },
            { text: markerDocument(stored[0]?.marker ?? '', 3), title: 'Same content again' },
          ]);
          assert.equal(added?.status, 'saved');
          const final = await readStoredIndex(directory);
          assert.equal(final.documents.length, stored.length + 1);
          assert.deepEqual(duplicateHashes(final), []);
        } finally {
          await service?.dispose();
        }
      });
    }

  it('leaves the other namespaces alone', async () => {
    const { storageRoot, stored } = await storedNamespace();
    const service = await startService({ providerUrl: provider.baseUrl, storageRoot });
    try {
      const [other] = await ingestTexts((path, body) => service.post(path, body), '/api/tools/ingest', 'other', [
        { text: markerDocument(markerWord(77), 1), title: 'Other' },
      ]);
      await service.close();
      await writeFile(join(storageRoot, namespace, snapshotFileName), 'KAINDEX2 cut short');
      const restarted = await startService({ providerUrl: provider.baseUrl, storageRoot });
      try {
        const found = await searchDocs((path, body) => restarted.post(path, body), 'other', markerWord(77));
        assert.equal(found.results[0]?.file, other?.file);
        const recovered = await searchDocs((path, body) => restarted.post(path, body), namespace, stored[2]?.marker ?? '');
        assert.equal(recovered.results[0]?.file, stored[2]?.file);
      } finally {
        await restarted.close();
      }
    } finally {
      await service.dispose();
    }
  });
});
