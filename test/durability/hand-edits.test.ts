// Markdown files added, deleted or edited by hand are reflected after a restart (and never overwritten); start-up reconciles.
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { markerDocument, markerWord } from '../support/durability-documents.js';
import { ingestTexts, searchDocs, type IngestedText } from '../support/ingest-client.js';
import { indexedFiles, readNamespaceFolder, readStoredIndex } from '../support/namespace-folder.js';
import { startProviderDouble, type ProviderDouble } from '../support/provider-double.js';
import { startService, type TestService } from '../support/service.js';

const namespace = 'handmade';

interface Stored {
  readonly marker: string;
  readonly file: string;
}

describe('Markdown files changed by hand, and start-up reconciliation', () => {
  let provider: ProviderDouble;
  const services: TestService[] = [];

  before(async () => {
    provider = await startProviderDouble();
  });

  after(async () => {
    for (const service of services) await service.dispose();
    await provider?.close();
  });

  /** A stopped service whose namespace holds `count` ingested documents. */
  async function storedNamespace(count: number): Promise<{ storageRoot: string; stored: Stored[] }> {
    const service = await startService({ providerUrl: provider.baseUrl });
    services.push(service);
    const stored: Stored[] = [];
    for (let index = 0; index < count; index++) {
      const marker = markerWord(index);
      const [result] = await ingestTexts((path, body) => service.post(path, body), '/tools/ingest', namespace, [
        { text: markerDocument(marker, 2), title: `Ingested ${index}` },
      ]);
      stored.push({ marker, file: (result as IngestedText).file });
    }
    await service.close();
    return { storageRoot: service.storageRoot, stored };
  }

  async function restart(storageRoot: string): Promise<TestService> {
    const service = await startService({ providerUrl: provider.baseUrl, storageRoot });
    services.push(service);
    return service;
  }

  it('indexes a file written by hand and drops one deleted by hand; the stored index and search agree', async () => {
    const { storageRoot, stored } = await storedNamespace(3);
    const directory = join(storageRoot, namespace);
    const plainMarker = markerWord(100);
    const frontMatterMarker = markerWord(101);
    const untitledMarker = markerWord(102);
    await writeFile(join(directory, 'hand-notes.md'), `# Hand Notes\n\nWritten in an editor; mentions ${plainMarker}.\n`);
    // No title of its own: titled from its name, as an ingested file is.
    await writeFile(join(directory, 'release_notes.md'), `Nothing but text, which mentions ${untitledMarker}.\n`);
    await writeFile(
      join(directory, 'with-front-matter.md'),
      `---\ntitle: "Typed By Hand"\nsource: "notebook"\n---\n\nThe marker is ${frontMatterMarker}.\n`,
    );
    const [, deleted, kept] = stored as [Stored, Stored, Stored];
    await rm(join(directory, deleted.file));

    const service = await restart(storageRoot);
    const post = (path: string, body: unknown) => service.post(path, body);

    const plain = await searchDocs(post, namespace, plainMarker);
    assert.deepEqual(
      plain.results.map((result) => [result.file, result.title]),
      [['hand-notes.md', 'Hand Notes']],
    );
    const withFrontMatter = await searchDocs(post, namespace, frontMatterMarker);
    assert.deepEqual(
      withFrontMatter.results.map((result) => [result.file, result.title]),
      [['with-front-matter.md', 'Typed By Hand']],
    );
    const untitled = await searchDocs(post, namespace, untitledMarker);
    assert.deepEqual(
      untitled.results.map((result) => [result.file, result.title]),
      [['release_notes.md', 'Release notes']],
    );
    const gone = await searchDocs(post, namespace, deleted.marker);
    assert.deepEqual(
      gone.results.filter((result) => result.file === deleted.file),
      [],
      'the deleted document is not found',
    );
    assert.equal((await searchDocs(post, namespace, kept.marker)).results[0]?.file, kept.file);

    const folder = await readNamespaceFolder(directory);
    const index = await readStoredIndex(directory);
    const expected = [stored[0]?.file, kept.file, 'hand-notes.md', 'release_notes.md', 'with-front-matter.md'].sort();
    assert.deepEqual(folder.markdownFiles, expected);
    assert.deepEqual(indexedFiles(index), expected);
    assert.ok(index.documents.every((document) => document.chunks.length > 0));

    // Embedding search finds the hand-written document too, once its chunks are embedded.
    const response = await service.post('/tools/search', { namespace, query: `${plainMarker} editor`, top_k: 1 });
    const matches = ((await response.json()) as { matches: { title: string }[] }).matches;
    assert.equal(matches[0]?.title, 'Hand Notes');
  });

  it('re-reads a file edited by hand: the new text is found, the old text is not', async () => {
    const { storageRoot, stored } = await storedNamespace(2);
    const directory = join(storageRoot, namespace);
    const [edited] = stored as [Stored];
    const newMarker = markerWord(200);
    const original = await readFile(join(directory, edited.file), 'utf8');
    await writeFile(join(directory, edited.file), original.replaceAll(edited.marker, newMarker));

    const service = await restart(storageRoot);
    const post = (path: string, body: unknown) => service.post(path, body);
    assert.equal((await searchDocs(post, namespace, newMarker)).results[0]?.file, edited.file);
    assert.deepEqual((await searchDocs(post, namespace, edited.marker)).results, []);
    const index = await readStoredIndex(directory);
    const document = index.documents.find((entry) => entry.file === edited.file);
    assert.ok(
      document?.chunks.every((chunk) => !chunk.text.includes(edited.marker)),
      'the stored index holds the edited text',
    );
    assert.ok(document?.chunks.some((chunk) => chunk.text.includes(newMarker)));
  });

  it('never overwrites a file placed by hand while the service runs with an ingested document of the same name', async () => {
    const { storageRoot } = await storedNamespace(1);
    const service = await restart(storageRoot);
    const post = (path: string, body: unknown) => service.post(path, body);
    const directory = join(storageRoot, namespace);
    // The namespace is open (and its folder read) before the hand-written file arrives.
    await ingestTexts(post, '/tools/ingest', namespace, [{ text: markerDocument(markerWord(300), 1), title: 'Opening' }]);
    const handMarker = markerWord(301);
    const handWritten = `# Deployment Guide\n\nKept by hand; mentions ${handMarker}.\n`;
    await writeFile(join(directory, 'deployment-guide.md'), handWritten);

    const ingestedMarker = markerWord(302);
    const [result] = await ingestTexts(post, '/api/tools/ingest', namespace, [
      { text: markerDocument(ingestedMarker, 1), title: 'Deployment Guide' },
    ]);
    assert.equal(result?.status, 'saved');
    assert.equal(await readFile(join(directory, 'deployment-guide.md'), 'utf8'), handWritten, 'the hand-written file is untouched');
    assert.notEqual(result.file, 'deployment-guide.md');
    assert.equal((await searchDocs(post, namespace, handMarker)).results[0]?.file, 'deployment-guide.md');
    assert.equal((await searchDocs(post, namespace, ingestedMarker)).results[0]?.file, result.file);
  });

  it('reconciles every namespace at start-up, before the first request reaches it', async () => {
    const { storageRoot, stored } = await storedNamespace(2);
    const directory = join(storageRoot, namespace);
    await writeFile(join(directory, 'late-addition.md'), '# Late Addition\n\nAdded while the service was stopped.\n');
    await rm(join(directory, stored[1]?.file ?? ''));
    await writeFile(join(directory, '.tmp-index.snapshot-0123456789ab'), 'KAINDEX2 cut');
    const broken = join(storageRoot, 'broken');
    await mkdir(broken);
    await writeFile(join(broken, 'orphan.md'), '# Orphan\n\nOnly the Markdown file is left.\n');
    await writeFile(join(broken, 'index.snapshot'), 'not a snapshot');

    const service = await restart(storageRoot);
    assert.equal((await service.get('/health')).status, 200);

    const folder = await readNamespaceFolder(directory);
    assert.deepEqual(folder.temporaryFiles, [], 'leftover temporary files are removed at start-up');
    assert.deepEqual(
      indexedFiles(await readStoredIndex(directory)),
      folder.markdownFiles,
      'the stored index agrees with the .md files once the service is up',
    );
    assert.deepEqual(indexedFiles(await readStoredIndex(broken)), ['orphan.md'], 'an unreadable snapshot is rebuilt at start-up');
    assert.ok(
      service.logs.some((line) => line.includes('"level":40') && line.includes('broken') && line.includes('index.snapshot')),
      'start-up warns about the unreadable snapshot',
    );
  });
});
