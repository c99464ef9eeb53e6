// The index files of a namespace: journal records and snapshots round-trip, damage is detected, and a namespace
// reopened from them (after commits, compactions and a crash between writing index.json and emptying the journal) is the same.
import assert from 'node:assert/strict';
import { appendFile, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { appendRecord, encodeRecord, readJournal, recordSlices } from '../../../src/store/folder/index-journal.js';
import { decodeFloat16, roundToFloat16 } from '../../../src/indexes/float16.js';
import { LexicalIndex } from '../../../src/indexes/lexical-index.js';
import { VectorIndex } from '../../../src/indexes/vector-index.js';
import type { IndexOp } from '../../../src/store/index-ops.js';
import { readSnapshot, writeSnapshot } from '../../../src/store/index-snapshot.js';
import { indexJsonFileName, journalFileName, readIndexFiles, snapshotFileName } from '../../../src/store/folder/index-files.js';
import { type DocumentDraft, EncodedTextChunk, type StoredDocument } from '../../../src/store/stored-document.js';
import { fixturesDirectory } from '../../support/fixtures.js';
import { markerWord, seededRandom } from '../../support/durability-documents.js';
import {
  draft,
  namespaceView,
  observable,
  openNamespace as open,
  removeTemporaryDirectories,
  temporaryDirectory,
  vectorFor,
} from '../../support/namespace-fixtures.js';

after(removeTemporaryDirectories);

describe('index journal', () => {
  const document: StoredDocument = {
    file: 'a.md',
    title: 'A',
    origin: 'text',
    hash: 'sha256:a',
    ingestedAt: '2026-11-22T08:00:00.000Z',
    fileSize: 10,
    fileModifiedMs: 1,
    chunks: [{ id: 'a:0', file: 'a.md', headingPath: ['A', 'B'], text: 'first chunk' }],
  };
  const ops: IndexOp[] = [
    { op: 'model', embedding: { model: 'm', dimensions: 2 } },
    { op: 'put', document },
    { op: 'vectors', ids: ['a:0'], rows: Float32Array.from([0.6, 0.8]) },
    { op: 'remove', file: 'gone.md' },
  ];

  it('reads back what was appended, record by record', async () => {
    const path = join(await temporaryDirectory(), journalFileName);
    const length = await appendRecord(path, encodeRecord(ops), 0);
    assert.equal(await appendRecord(path, encodeRecord([{ op: 'remove', file: 'a.md' }]), length), (await stat(path)).size);
    const journal = await readJournal(path);
    assert.equal(journal.records.length, 2);
    assert.equal(journal.intactBytes, journal.totalBytes);
    assert.deepEqual(journal.records[0], ops);
    assert.deepEqual(journal.records[1], [{ op: 'remove', file: 'a.md' }]);
  });

  it('slices ops that need not be replayed together into records of bounded size, in order', () => {
    const many = Array.from({ length: 7 }, (_, index) => ({
      ...document,
      file: `d${index}.md`,
      chunks: Array(index).fill(document.chunks[0]),
    }));
    const puts: IndexOp[] = many.map((each) => ({ op: 'put', document: each }));
    const slices = recordSlices([...puts, { op: 'remove', file: 'gone.md' }], 6);
    assert.deepEqual(slices.flat(), [...puts, { op: 'remove', file: 'gone.md' }]);
    // Chunks per slice: 0+1+2+3, 4, 5, 6 (a slice of its own: more than the bound alone), then the removal.
    assert.deepEqual(
      slices.map((slice) => slice.map((op) => (op.op === 'put' ? op.document.chunks.length : op.op))),
      [[0, 1, 2, 3], [4], [5], [6], ['remove']],
    );
    assert.deepEqual(recordSlices([]), []);
  });

  it('cuts a torn record left by a failed append before appending, so the records after it survive a restart', async () => {
    const path = join(await temporaryDirectory(), journalFileName);
    const length = await appendRecord(path, encodeRecord(ops), 0);
    // What a write that ran out of space part-way leaves when cutting it back failed too.
    await appendFile(path, Buffer.concat(encodeRecord([{ op: 'remove', file: 'torn.md' }])).subarray(0, 11));
    await appendRecord(path, encodeRecord([{ op: 'remove', file: 'a.md' }]), length);
    const journal = await readJournal(path);
    assert.equal(journal.intactBytes, journal.totalBytes);
    assert.deepEqual(journal.records, [ops, [{ op: 'remove', file: 'a.md' }]]);
  });

  it('starts a journal removed by hand afresh instead of padding it to the length it had', async () => {
    const directory = await temporaryDirectory();
    const path = join(directory, journalFileName);
    const length = await appendRecord(path, encodeRecord(ops), 0);
    await rm(path);
    const record = encodeRecord([{ op: 'remove', file: 'a.md' }]);
    assert.equal(await appendRecord(path, record, length), Buffer.concat(record).length);
    assert.deepEqual((await readJournal(path)).records, [[{ op: 'remove', file: 'a.md' }]]);
  });

  it('stops at a record cut short or damaged, keeping the intact ones before it', async () => {
    const directory = await temporaryDirectory();
    // The checksum covers every part of the record: the last bytes damaged are a vector row's.
    const record = Buffer.concat(encodeRecord(ops));
    for (const [name, tail] of [
      ['cut short', record.subarray(0, record.length - 3)],
      ['damaged', Buffer.from(record.map((byte, index) => (index === record.length - 5 ? byte ^ 1 : byte)))],
      ['a length past the end', Buffer.from([0xff, 0xff, 0xff, 0x00, 0, 0, 0, 0, 1, 2])],
    ] as const) {
      const path = join(directory, `${name}.journal`);
      await writeFile(path, Buffer.concat([record, tail]));
      const journal = await readJournal(path);
      assert.equal(journal.records.length, 1, name);
      assert.equal(journal.intactBytes, record.length, name);
      assert.equal(journal.totalBytes, record.length + tail.length, name);
    }
  });

  it('reads a missing journal as empty', async () => {
    assert.deepEqual(await readJournal(join(await temporaryDirectory(), 'none')), { records: [], intactBytes: 0, totalBytes: 0 });
  });
});

describe('index snapshot', () => {
  /** A new namespace's folder, and the index its files hold once `drafts` are committed. */
  const committed = async (drafts: DocumentDraft[]) => {
    const directory = await temporaryDirectory();
    const namespace = await open(directory);
    await namespace.commitDocuments(drafts);
    await namespace.settle();
    return { directory, index: (await readIndexFiles(directory)).index };
  };

  it('refuses a file that is not a whole snapshot, with the reason', async () => {
    const { directory, index } = await committed([draft(markerWord(1), 2), draft(markerWord(2), 1)]);
    const path = join(directory, 'copy.snapshot');
    await writeSnapshot(path, { ...index.toSnapshot(), derivedFrom: null });
    assert.ok((await readSnapshot(path)) !== undefined);
    const valid = await readFile(path);
    const flipped = (at: number) => Buffer.from(valid.map((byte, index) => (index === at ? byte ^ 1 : byte)));
    for (const damaged of [
      valid.subarray(0, valid.length - 1),
      valid.subarray(0, 30),
      Buffer.from('KAINDEX1'),
      flipped(0),
      flipped(Math.floor(valid.length / 2)),
      flipped(valid.length - 2),
      // A chunk's text, which the documents' lines do not hold.
      flipped(valid.indexOf('identified by the marker')),
      // A chunk's key, in the lexical index's keys.
      flipped(valid.indexOf(`${index.documents[0]?.chunks[0]?.id}\0`)),
    ]) {
      await writeFile(path, damaged);
      await assert.rejects(readSnapshot(path), Error);
      // Texts left in the file are checked all the same.
      await assert.rejects(readSnapshot(path, { inFile: true }), Error);
    }
    assert.equal(await readSnapshot(join(directory, 'missing.snapshot')), undefined);
  });

  it('refuses an array section that is not a whole number of values', async () => {
    const { directory, index } = await committed([draft(markerWord(1), 2)]);
    const path = join(directory, 'copy.snapshot');
    await writeSnapshot(path, { ...index.toSnapshot(), derivedFrom: null });
    const bytes = await readFile(path);
    const headerStart = Number(bytes.readBigUInt64LE(8));
    const header = JSON.parse(bytes.toString('utf8', headerStart, headerStart + Number(bytes.readBigUInt64LE(16))));
    header.lexical.arrays.fieldLengths.length -= 1;
    const rewritten = Buffer.from(JSON.stringify(header), 'utf8');
    const preamble = Buffer.from(bytes.subarray(0, 32));
    preamble.writeBigUInt64LE(BigInt(rewritten.length), 16);
    preamble.writeUInt32LE(crc32(rewritten), 24);
    await writeFile(path, Buffer.concat([preamble, bytes.subarray(32, headerStart), rewritten]));
    await assert.rejects(readSnapshot(path), /an array section is not a whole number of 4-byte values/);
  });

  it('names a snapshot written by a later version as such, and the namespace opens from index.json', async () => {
    const directory = await temporaryDirectory();
    const namespace = await open(directory);
    await namespace.commitDocuments([draft(markerWord(1), 2)]);
    await namespace.close();
    const path = join(directory, snapshotFileName);
    const bytes = await readFile(path);
    const headerStart = Number(bytes.readBigUInt64LE(8));
    const header = bytes.subarray(headerStart, headerStart + Number(bytes.readBigUInt64LE(16)));
    const at = header.indexOf('"format":6');
    assert.ok(at >= 0);
    header.write('"format":9', at);
    bytes.writeUInt32LE(crc32(header), 24);
    await writeFile(path, bytes);
    await assert.rejects(readSnapshot(path), /format 9, written by a later version \(this one reads formats 2 to 6\)/);
    const stored = await readIndexFiles(directory);
    assert.equal(stored.source, 'index.json');
    assert.match(stored.damaged[0]?.error.message ?? '', /later version/);
    assert.equal(stored.index.documents.length, 1);
  });

  it('stores the chunk keys once when the vector rows follow the lexical index, and refuses a key it could not read back', async () => {
    const { directory, index } = await committed([draft(markerWord(1), 2)]);
    const snapshot = index.toSnapshot();
    const path = join(directory, 'copy.snapshot');
    await writeSnapshot(path, { ...snapshot, derivedFrom: null });
    const bytes = await readFile(path);
    const header = JSON.parse(
      bytes.toString('utf8', Number(bytes.readBigUInt64LE(8)), Number(bytes.readBigUInt64LE(8) + bytes.readBigUInt64LE(16))),
    );
    assert.equal(header.vectors.keys, 'lexical');
    assert.equal(header.lexical.keys.count, snapshot.lexical.keys.length);
    // The postings as varints, a byte or two a value where the index holds four.
    const { postings } = header.lexical.arrays;
    assert.equal(postings.encoding, 'postings-varint');
    assert.ok(postings.length < postings.values * 2, `${postings.length} bytes for ${postings.values} words`);
    const read = await readSnapshot(path);
    assert.deepEqual(read?.vectors?.keys, snapshot.lexical.keys);
    assert.deepEqual(read?.lexical.terms, snapshot.lexical.terms);
    const words = [...(snapshot.lexical.arrays.postings?.pieces() ?? [])].flatMap((piece) => [...piece]);
    assert.deepEqual(read?.lexical.arrays.postings, Uint32Array.from(words));
    await assert.rejects(
      writeSnapshot(join(directory, 'nul.snapshot'), { ...snapshot, lexical: { ...snapshot.lexical, keys: ['a\0b'] }, derivedFrom: null }),
      /NUL/,
    );
  });

  it("keeps the chunks' texts as UTF-8 bytes until they are read, and still reads snapshots of formats 2 to 5", async () => {
    const { directory, index } = await committed([draft('alpha', 2), draft('café-日本', 1, false)]);
    const texts = (documents: readonly StoredDocument[]) =>
      documents.map(({ file, title, origin, chunks }) => ({
        file,
        title,
        origin,
        chunks: chunks.map(({ id, headingPath, text }) => ({ id, headingPath, text })),
      }));
    const path = join(directory, 'copy.snapshot');
    await writeSnapshot(path, { ...index.toSnapshot(), derivedFrom: null });
    const read = await readSnapshot(path);
    assert.deepEqual(texts(read?.documents ?? []), texts(index.documents));
    assert.ok(read?.documents.every((document) => document.chunks.every((chunk) => chunk instanceof EncodedTextChunk)));
    assert.match(read?.documents[1]?.chunks[0]?.text ?? '', /café-日本/);
    // Written by earlier versions from the same two documents: format 2 kept each chunk's text in its document's
    // line, formats 2 and 3 the vector rows as float32 (the rows of this version are float16, and rounded so as added),
    // format 4 the terms and keys in its header, formats 2 to 5 each chunk's term ids as u32 in the order of its text.
    // Rows of float16 are read as their bits, the others as float32.
    const rows = read?.vectors?.rows;
    assert.ok(rows instanceof Uint16Array && rows.length > 0);
    const decoded = new Float32Array(rows.length);
    decodeFloat16(rows, decoded);
    assert.ok(read !== undefined && read.lexical.arrays.slotTerms instanceof Uint8Array);
    const lexical = LexicalIndex.fromSnapshot(read.lexical);
    assert.ok(lexical.search('alpha', 10).length > 0 && lexical.search('café', 10).length > 0);
    const { terms, keys } = read.lexical;
    for (const format of [2, 3, 4, 5]) {
      const previous = await readSnapshot(join(fixturesDirectory, 'snapshots', `format-${format}.snapshot`));
      assert.ok(previous !== undefined, `format ${format}`);
      assert.deepEqual(texts(previous.documents), texts(index.documents), `format ${format}`);
      assert.deepEqual(previous.lexical.terms, terms, `format ${format}`);
      assert.deepEqual(previous.lexical.keys, keys, `format ${format}`);
      assert.deepEqual(previous.vectors?.keys, read.vectors?.keys, `format ${format}`);
      assert.ok(previous.lexical.arrays.slotTerms instanceof Uint32Array, `format ${format}: whole term ids`);
      const restored = LexicalIndex.fromSnapshot(previous.lexical);
      for (const query of ['alpha', 'café', 'section two', 'nothing here'])
        assert.deepEqual(restored.search(query, 10), lexical.search(query, 10), `format ${format}: ${query}`);
      for (const key of keys) assert.deepEqual(restored.termsHeld(key, terms), lexical.termsHeld(key, terms), `format ${format}`);
      const previousRows = previous.vectors?.rows;
      if (format < 4) {
        assert.ok(previousRows instanceof Float32Array, `format ${format}: float32 rows`);
        const rounded = previousRows.slice();
        roundToFloat16(rounded);
        assert.notDeepEqual(previousRows, decoded, `format ${format}: float32 rows`);
        assert.deepEqual(rounded, decoded, `format ${format}`);
      } else assert.deepEqual(previousRows, rows, `format ${format}`);
    }
  });

  it("carries the vector index's inverted lists, so a large namespace opens without training them", async () => {
    const { directory, index } = await committed([draft(markerWord(1), 2)]);
    const vectors = new VectorIndex(8, 64, {
      fromRows: 40,
      probes: 2,
      scannedRows: 0,
      training: { listCount: 4, samplePerList: 8, iterations: 2 },
    });
    for (let row = 0; row < 50; row++) vectors.add(`c${row}`, vectorFor(`chunk ${row}`).slice(0, 8));
    const live = vectors.liveRows();
    assert.ok(live.lists !== undefined);
    const path = join(directory, 'lists.snapshot');
    await writeSnapshot(path, { ...index.toSnapshot(), embedding: { model: 'test', dimensions: 8 }, vectors: live, derivedFrom: null });
    const read = await readSnapshot(path);
    assert.deepEqual(read?.vectors?.lists, live.lists);
    assert.deepEqual(read?.vectors?.keys, live.keys);
    const withoutLists = { keys: live.keys, halves: live.halves };
    await writeSnapshot(path, {
      ...index.toSnapshot(),
      embedding: { model: 'test', dimensions: 8 },
      vectors: withoutLists,
      derivedFrom: null,
    });
    assert.equal((await readSnapshot(path))?.vectors?.lists, undefined);
  });
});

describe('a namespace reopened from its index files', () => {
  const queries = ['replication log flushed', 'rotate credentials', markerWord(3), `${markerWord(5)} backups`, 'deployment'];

  it('is the same after commits, embeddings, replacements and deletions, from index.json and the journal, and from index.json alone after a close', async () => {
    const directory = await temporaryDirectory();
    const namespace = await open(directory);
    await namespace.commitDocuments([draft(markerWord(1), 3), draft(markerWord(2), 2)]);
    await namespace.commitDocuments([draft(markerWord(3), 1, false)]);
    const pending = namespace.pendingChunks();
    assert.ok(pending.length > 0);
    await namespace.storeEmbeddings(
      'test-model',
      pending.map((chunk) => ({ chunk, vector: vectorFor(chunk.text) })),
    );
    const replaced = { ...draft(markerWord(5), 2), origin: `text-${markerWord(1)}` };
    assert.equal((await namespace.commitDocuments([replaced]))[0]?.status, 'updated');
    await namespace.deleteDocuments({ origin: `text-${markerWord(2)}` });
    await namespace.settle();
    const expected = observable(namespaceView(namespace), queries);
    assert.equal(expected.documents.length, 2);
    assert.equal(namespace.pendingChunkCount, 0);

    const fromJournal = (await readIndexFiles(directory)).index;
    assert.deepEqual(observable(fromJournal, queries), expected);

    // Closing folds the journal into index.json and its snapshot, which give the same index.
    await namespace.close();
    const reopened = await open(directory);
    assert.deepEqual(observable(namespaceView(reopened), queries), expected);
    assert.ok((await stat(join(directory, indexJsonFileName))).size > 0);
    assert.ok((await stat(join(directory, snapshotFileName))).size > 0);
    assert.equal((await stat(join(directory, journalFileName))).size, 0);
    const stored = await readIndexFiles(directory);
    assert.equal(stored.source, 'snapshot');
    assert.deepEqual(observable(stored.index, queries), expected);
  });

  it('reads its vector rows from the snapshot it wrote instead of holding them, and searches the same', async () => {
    const directory = await temporaryDirectory();
    const namespace = await open(directory);
    await namespace.commitDocuments([draft(markerWord(1), 3), draft(markerWord(2), 2)]);
    await namespace.commitDocuments([draft(markerWord(3), 4)]);
    const probes = queries.map((query) => vectorFor(query));
    const expected = probes.map((probe) => namespace.searchVectors(probe, 5));
    const held = namespace.estimatedBytes;
    await namespace.close(); // writes the snapshot, whose rows the index reads from then on
    assert.ok(namespace.estimatedBytes < held, `${namespace.estimatedBytes} < ${held} estimated bytes`);
    assert.deepEqual(
      probes.map((probe) => namespace.searchVectors(probe, 5)),
      expected,
    );
    const stored = (await readIndexFiles(directory, { inFile: true })).index;
    assert.equal(stored.vectorCount, namespace.vectorCount);
    assert.equal(stored.vectorsInMemory, 0);
    assert.deepEqual(
      probes.map((probe) => stored.searchVectors(probe, 5)),
      expected,
    );
    stored.close();
    const reopened = await open(directory);
    assert.equal(reopened.estimatedBytes, namespace.estimatedBytes);
    assert.deepEqual(
      probes.map((probe) => reopened.searchVectors(probe, 5)),
      expected,
    );
    reopened.release();
  });

  it("reads its chunks' texts from the snapshot it wrote instead of holding them, and from each next one", async () => {
    const directory = await temporaryDirectory();
    const namespace = await open(directory);
    await namespace.commitDocuments([draft(markerWord(1), 3)]); // the first commit writes index.json and the snapshot
    await namespace.commitDocuments([draft('café-日本', 2)]); // the next ones go to the journal
    const texts = (documents: readonly StoredDocument[]) => documents.map(({ chunks }) => chunks.map(({ id, text }) => [id, text]));
    const expected = texts(namespace.documents);
    const inFile = (documents: readonly StoredDocument[]) =>
      documents.every(({ chunks }) => chunks.every((chunk) => chunk instanceof EncodedTextChunk && chunk.inFile));
    assert.ok(inFile(namespace.documents.slice(0, 1)) && !inFile(namespace.documents.slice(1)));
    const held = namespace.estimatedBytes;
    await namespace.close(); // writes the snapshot, whose texts the chunks read from then on
    assert.ok(inFile(namespace.documents));
    assert.deepEqual(texts(namespace.documents), expected);
    assert.ok(namespace.estimatedBytes < held, `${namespace.estimatedBytes} < ${held} estimated bytes`);
    assert.match(namespace.chunk(namespace.documents[1]?.chunks[0]?.id ?? '')?.text ?? '', /café-日本/);

    const reopened = await open(directory);
    assert.ok(inFile(reopened.documents));
    assert.deepEqual(texts(reopened.documents), expected);
    // A chunk held over the next snapshot (which replaces the file) reads the same text from the new one.
    const kept = reopened.documents[0]?.chunks.at(-1);
    await reopened.commitDocuments([draft('naïve-文字', 2)]);
    await reopened.close();
    assert.equal(kept?.text, expected[0]?.at(-1)?.[1]);
    assert.ok(inFile(reopened.documents));
    assert.deepEqual(texts(reopened.documents).slice(0, 2), expected);
    const stored = (await readIndexFiles(directory, { inFile: true })).index;
    assert.deepEqual(texts(stored.documents), texts(reopened.documents));
    stored.close();
    // What the estimate counted for texts it moved (non-ASCII ones too: characters, then bytes) their removal takes off.
    for (const { file } of reopened.documents) await reopened.deleteDocuments({ file });
    assert.equal(reopened.estimatedBytes, 0);
  });

  it('writes index.json at the first commit, so a tool reading the folder right after an ingest finds it', async () => {
    const directory = await temporaryDirectory();
    const namespace = await open(directory);
    await namespace.commitDocuments([draft(markerWord(1), 2)]);
    const indexJson = JSON.parse(await readFile(join(directory, indexJsonFileName), 'utf8')) as unknown;
    assert.equal(typeof indexJson, 'object');
    assert.equal((await readIndexFiles(directory)).source, 'snapshot');
    assert.deepEqual(observable((await readIndexFiles(directory)).index, queries), observable(namespaceView(namespace), queries));
  });

  it('replays a journal that index.json already holds (a crash between writing it and emptying the journal) to the same state', async () => {
    const directory = await temporaryDirectory();
    const namespace = await open(directory);
    await namespace.commitDocuments([draft(markerWord(1), 2), draft(markerWord(2), 2)]);
    await namespace.deleteDocuments({ origin: `text-${markerWord(1)}` });
    await namespace.settle();
    const journal = await readFile(join(directory, journalFileName));
    const expected = observable(namespaceView(namespace), queries);
    await open(directory); // writes index.json and the snapshot, and empties the journal
    await appendFile(join(directory, journalFileName), journal);
    assert.deepEqual(observable((await readIndexFiles(directory)).index, queries), expected);
    assert.deepEqual(observable(namespaceView(await open(directory)), queries), expected);
  });

  it('folds the journal into index.json once it outgrows a quarter of it, and keeps every change', async () => {
    const directory = await temporaryDirectory();
    const namespace = await open(directory);
    const random = seededRandom(42);
    let rewrites = 0;
    let lastIndexJsonSize = 0;
    for (let round = 0; round < 80; round++) {
      await namespace.commitDocuments([draft(markerWord(round, Math.floor(random() * 1000)), 1 + Math.floor(random() * 8))]);
      const size = (await stat(join(directory, indexJsonFileName)).catch(() => undefined))?.size ?? 0;
      if (size !== lastIndexJsonSize) rewrites++;
      lastIndexJsonSize = size;
    }
    assert.ok(rewrites >= 1, 'index.json was written at least once while committing');
    const journalSize = (await stat(join(directory, journalFileName))).size;
    assert.ok(journalSize < Math.max(256 << 10, lastIndexJsonSize / 4) + (64 << 10), `the journal stays bounded (${journalSize} bytes)`);
    assert.equal((await readIndexFiles(directory)).source, 'snapshot', 'the snapshot mirrors the index.json written last');
    assert.deepEqual(observable((await readIndexFiles(directory)).index, queries), observable(namespaceView(namespace), queries));
  });

  it('drops the vectors of another embedding model when reopened with a new one', async () => {
    const directory = await temporaryDirectory();
    const namespace = await open(directory);
    await namespace.commitDocuments([draft(markerWord(1), 2)]);
    const reopened = await open(directory, [], 'other-model');
    assert.equal(reopened.embeddingModel, null);
    assert.equal(reopened.pendingChunkCount, reopened.chunkCount);
    assert.equal((await readIndexFiles(directory)).index.vectorCount, 0);
  });
});
