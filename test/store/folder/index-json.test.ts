// index.json, the file a namespace is restored from: valid JSON that a tool can read chunk by chunk, complete on its own
// after a clean shutdown, checked on reading; its snapshot is used only while it mirrors it; and namespaces of earlier
// versions (an index.json of format 1, or a snapshot and journal without index.json) open with every document and vector.
import assert from 'node:assert/strict';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { decodeFloat16 } from '../../../src/indexes/float16.js';
import { indexJsonFileName, journalFileName, readIndexFiles, snapshotFileName } from '../../../src/store/folder/index-files.js';
import { readIndexJson } from '../../../src/store/folder/index-json.js';
import { writeSnapshot } from '../../../src/store/index-snapshot.js';
import type { Namespace } from '../../../src/store/namespace.js';
import { markerWord } from '../../support/durability-documents.js';
import {
  dimensions,
  draft,
  namespaceView,
  observable,
  openNamespace,
  removeTemporaryDirectories,
  temporaryDirectory,
  testModel,
} from '../../support/namespace-fixtures.js';

after(removeTemporaryDirectories);

const queries = ['replication log flushed', 'rotate credentials', markerWord(3), `${markerWord(5)} backups`, 'deployment'];

/** A namespace after commits, an embedding of pending chunks, a replacement and a deletion, closed cleanly. */
async function closedNamespace(directory: string): Promise<{ namespace: Namespace; expected: ReturnType<typeof observable> }> {
  const namespace = await openNamespace(directory);
  await namespace.commitDocuments([draft(markerWord(1), 3), draft(markerWord(2), 2)]);
  await namespace.commitDocuments([draft(markerWord(3), 2, false), draft(markerWord(4), 1, false)]);
  const pending = namespace.pendingChunks().filter((chunk) => chunk.text.includes(markerWord(3)));
  await namespace.storeEmbeddings(
    testModel,
    pending.map((chunk) => ({ chunk, vector: Float32Array.from({ length: dimensions }, (_, index) => (index === 0 ? 1 : 0)) })),
  );
  await namespace.commitDocuments([{ ...draft(markerWord(5), 2), origin: `text-${markerWord(1)}` }]);
  await namespace.deleteDocuments({ origin: `text-${markerWord(2)}` });
  await namespace.close();
  return { namespace, expected: observable(namespaceView(namespace), queries) };
}

/** A vector as a tool decodes it: base64 of little-endian float16 values. */
function decodeVector(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  const halves = new Uint16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const vector = new Float32Array(halves.length);
  decodeFloat16(halves, vector);
  return vector;
}

interface ToolChunk {
  id: string;
  file: string;
  headingPath: string[];
  text: string;
  vector: string | null;
}

describe('index.json', () => {
  it('is valid JSON, one document or chunk per line, from which a tool reads every chunk and decodes its vector', async () => {
    const directory = await temporaryDirectory();
    const { namespace } = await closedNamespace(directory);
    const text = await readFile(join(directory, indexJsonFileName), 'utf8');
    const parsed = JSON.parse(text) as {
      format: number;
      embedding: { model: string; dimensions: number };
      documents: { file: string; chunkCount: number }[];
      chunks: ToolChunk[];
    };
    assert.equal(parsed.format, 3);
    assert.deepEqual(parsed.embedding, { model: testModel, dimensions });
    assert.deepEqual(
      parsed.documents.map((document) => [document.file, document.chunkCount]).sort(),
      namespace.documents.map((document) => [document.file, document.chunks.length]).sort(),
    );
    const chunks = namespace.documents.flatMap((document) => document.chunks);
    assert.equal(parsed.chunks.length, chunks.length);
    for (const chunk of parsed.chunks) {
      assert.equal(chunk.text, namespace.chunk(chunk.id)?.text);
      assert.deepEqual(chunk.headingPath, namespace.chunk(chunk.id)?.headingPath);
      const stored = namespace.vectorOf(chunk.id);
      if (stored === undefined) assert.equal(chunk.vector, null, `${chunk.id} has no vector yet`);
      else assert.deepEqual(decodeVector(chunk.vector as string), stored);
    }
    assert.ok(parsed.chunks.some((chunk) => chunk.vector === null) && parsed.chunks.some((chunk) => chunk.vector !== null));
    // Line by line: each chunk is a line of its own, so a tool can stream the file.
    const chunkLines = text.split('\n').filter((line) => line.startsWith('{"id":'));
    assert.deepEqual(
      chunkLines.map((line) => (JSON.parse(line.replace(/,$/, '')) as ToolChunk).id),
      parsed.chunks.map((chunk) => chunk.id),
    );
  });

  it('holds every commit after a clean shutdown, and alone (snapshot and journal deleted) restores the whole namespace', async () => {
    const directory = await temporaryDirectory();
    const { expected } = await closedNamespace(directory);
    assert.equal((await stat(join(directory, journalFileName))).size, 0, 'the journal was folded in at shutdown');
    await rm(join(directory, snapshotFileName));
    await rm(join(directory, journalFileName));
    const stored = await readIndexFiles(directory);
    assert.equal(stored.source, 'index.json');
    assert.deepEqual(stored.damaged, []);
    assert.deepEqual(observable(stored.index, queries), expected);

    const warnings: string[] = [];
    const reopened = await openNamespace(directory, warnings);
    assert.deepEqual(observable(namespaceView(reopened), queries), expected);
    assert.deepEqual(warnings, []);
    assert.equal((await readIndexFiles(directory)).source, 'snapshot', 'the snapshot is written again from it');
  });

  it('is read instead of a snapshot that does not mirror it', async () => {
    const directory = await temporaryDirectory();
    const namespace = await openNamespace(directory);
    await namespace.commitDocuments([draft(markerWord(1), 2)]);
    await namespace.close();
    const olderSnapshot = await readFile(join(directory, snapshotFileName));
    await namespace.commitDocuments([draft(markerWord(3), 1)]);
    await namespace.close();
    // Observed first: the namespace reads its vector rows from the snapshot it wrote, which is overwritten in place here.
    const expected = observable(namespaceView(namespace), queries);
    await writeFile(join(directory, snapshotFileName), olderSnapshot);
    const stored = await readIndexFiles(directory);
    assert.equal(stored.source, 'index.json');
    assert.deepEqual(stored.damaged, []);
    assert.deepEqual(observable(stored.index, queries), expected);
  });

  it('is refused when damaged, with the reason, and the snapshot and Markdown files restore the namespace', async () => {
    const directory = await temporaryDirectory();
    const { expected } = await closedNamespace(directory);
    const path = join(directory, indexJsonFileName);
    const valid = await readFile(path);
    const text = valid.toString('utf8');
    const inText = text.indexOf('replication log');
    const damages: [string, Buffer][] = [
      ['cut short', valid.subarray(0, Math.floor(valid.length * 0.7))],
      ['a letter of a chunk changed', Buffer.from(`${text.slice(0, inText)}R${text.slice(inText + 1)}`)],
      ['without its checksum line', Buffer.from(text.slice(0, text.lastIndexOf('"crc32"')))],
      ['with a line after its end', Buffer.concat([valid, Buffer.from('{}\n')])],
      ['a chunk line removed', Buffer.from(text.replace(/\n\{"id":[^\n]*/, ''))],
    ];
    for (const [name, damaged] of damages) {
      await writeFile(path, damaged);
      await assert.rejects(readIndexJson(path), Error, name);
      const stored = await readIndexFiles(directory);
      assert.deepEqual(
        stored.damaged.map(({ file }) => file),
        [indexJsonFileName],
        name,
      );
      assert.equal(stored.source, 'snapshot', name);
    }
    const warnings: string[] = [];
    const reopened = await openNamespace(directory, warnings);
    assert.deepEqual(observable(namespaceView(reopened), queries), expected);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /index\.json is unreadable .*restored from index\.snapshot/);
    assert.deepEqual((await readIndexFiles(directory)).damaged, [], 'index.json is written again');
  });
});

describe('namespaces of earlier versions', () => {
  it('open from an index.json of format 1 with every document and vector, and get an index.json of the current format', async () => {
    const directory = await temporaryDirectory();
    const { namespace, expected } = await closedNamespace(directory);
    // What versions before the snapshot wrote: one line, vectors inline (as the provider gave them, not unit length).
    const legacy = {
      format: 1,
      embedding: { model: testModel, dimensions },
      documents: namespace.documents.map(({ origin, ...document }) => ({
        ...document,
        source: origin,
        chunks: document.chunks.map((chunk) => {
          const vector = namespace.vectorOf(chunk.id)?.map((value) => value * 3);
          return {
            id: chunk.id,
            headingPath: chunk.headingPath,
            text: chunk.text,
            embedding: vector === undefined ? null : Buffer.from(vector.buffer).toString('base64'),
          };
        }),
      })),
    };
    for (const file of [snapshotFileName, journalFileName]) await rm(join(directory, file));
    await writeFile(join(directory, indexJsonFileName), JSON.stringify(legacy));

    const warnings: string[] = [];
    const reopened = await openNamespace(directory, warnings);
    assert.deepEqual(observable(namespaceView(reopened), queries), expected);
    assert.deepEqual(warnings, []);
    assert.equal((JSON.parse(await readFile(join(directory, indexJsonFileName), 'utf8')) as { format: number }).format, 3);
    const stored = await readIndexFiles(directory);
    assert.equal(stored.source, 'snapshot');
    assert.deepEqual(observable(stored.index, queries), expected);
  });

  it('open from an index.json of format 2 (float32 vectors) with every document and vector, and get one of format 3', async () => {
    const directory = await temporaryDirectory();
    const { expected } = await closedNamespace(directory);
    const path = join(directory, indexJsonFileName);
    // What the previous version wrote: the same lines, with the vectors as float32 and the checksum over those lines.
    const lines = (await readFile(path, 'utf8')).split('\n');
    let crc = 0;
    const previous = lines.map((line, position) => {
      if (line.startsWith('"crc32":')) return `"crc32":${crc}}`;
      let rewritten = position === 0 ? line.replace('{"format":3,', '{"format":2,') : line;
      rewritten = rewritten.replace(/"vector":"([^"]+)"/, (_, base64: string) => {
        const vector = decodeVector(base64);
        return `"vector":"${Buffer.from(vector.buffer).toString('base64')}"`;
      });
      if (position < lines.length - 1) crc = crc32(`${rewritten}\n`, crc);
      return rewritten;
    });
    assert.notEqual(previous[0], lines[0]);
    for (const file of [snapshotFileName, journalFileName]) await rm(join(directory, file));
    await writeFile(path, previous.join('\n'));
    assert.equal((await readIndexFiles(directory)).source, 'index.json');

    const warnings: string[] = [];
    const reopened = await openNamespace(directory, warnings);
    assert.deepEqual(observable(namespaceView(reopened), queries), expected);
    assert.deepEqual(warnings, []);
    assert.equal((JSON.parse(await readFile(path, 'utf8')) as { format: number }).format, 3);
    assert.deepEqual(observable((await readIndexFiles(directory)).index, queries), expected);
  });

  it('open from a snapshot and journal without index.json with every document and vector, and get an index.json', async () => {
    const directory = await temporaryDirectory();
    const namespace = await openNamespace(directory);
    await namespace.commitDocuments([draft(markerWord(1), 3), draft(markerWord(2), 2)]);
    await namespace.settle();
    // The previous version's layout: a snapshot that mirrors no index.json, and the commits made since in the journal.
    const atSnapshot = await readIndexFiles(directory);
    await writeSnapshot(join(directory, snapshotFileName), { ...atSnapshot.index.toSnapshot(), derivedFrom: null });
    const snapshotJournalBytes = atSnapshot.journal.intactBytes;
    await namespace.commitDocuments([draft(markerWord(3), 1), { ...draft(markerWord(5), 2), origin: `text-${markerWord(1)}` }]);
    await namespace.deleteDocuments({ origin: `text-${markerWord(2)}` });
    await namespace.settle();
    const expected = observable(namespaceView(namespace), queries);
    const journal = await readFile(join(directory, journalFileName));
    await writeFile(join(directory, journalFileName), journal.subarray(snapshotJournalBytes));
    // That version wrote no index.json until its first compaction.
    await rm(join(directory, indexJsonFileName));

    const warnings: string[] = [];
    const reopened = await openNamespace(directory, warnings);
    assert.deepEqual(observable(namespaceView(reopened), queries), expected);
    assert.deepEqual(warnings, []);
    await rm(join(directory, snapshotFileName));
    await rm(join(directory, journalFileName));
    assert.deepEqual(observable((await readIndexFiles(directory)).index, queries), expected, 'index.json alone holds it all');
  });
});
