// The snapshot: a binary cache of index.json, written after it, from which start-up restores the whole index without
// tokenizing or parsing anything per term, so a large namespace opens in about a second. It records the stamp of the
// index.json it mirrors, and is used only while that stamp matches (or when there is no readable index.json).
// Layout: [8-byte magic][u64 header offset][u64 header length][u32 header CRC-32], then the sections, each 8-byte
// aligned: documents as JSON lines (no vectors, no texts), their chunks' texts as UTF-8 one after another, the lexical
// index's terms and chunk keys, its typed arrays, the vector rows (float16) and their keys unless they are the lexical
// index's; the JSON header, which holds every section's CRC-32, comes last. Every byte is checked on reading, so damage
// is found, not served. Formats 2 to 4 (still read) kept the terms and keys in the header, formats 2 and 3 the rows as
// float32, and format 2 each chunk's text in its document's line.
import { closeSync, fstatSync, openSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { withHeadroom } from '../indexes/growable-array.js';
import type { InvertedListsSnapshot } from '../indexes/inverted-lists.js';
import {
  type ArrayType,
  arrayOfType,
  type LexicalSnapshot,
  type LexicalSnapshotInPieces,
  type SnapshotArray,
} from '../indexes/lexical-index.js';
import { decodedPostings, encodedPostings } from '../indexes/stored-postings.js';
import { bytesPerValue, type RowEncoding, type RowsInFile } from '../indexes/unit-rows.js';
import { writeFileAtomicWith } from './atomic-write.js';
import type { IndexContents } from './index-contents.js';
import type { IndexJsonStamp } from './folder/index-json.js';
import { forEachLine, LineWriter, openIfPresent, readExactly, SlabReader } from './line-file.js';
import { fromSnapshotDocument, parseSnapshotDocument, toSnapshotDocument, toStoredDocument } from './persisted-document.js';
import { EncodedTextChunk, encodedText, type StoredDocument } from './stored-document.js';
import { TextsInFile } from './texts-in-file.js';

const magic = Buffer.from('KAINDEX2', 'latin1');
const preambleBytes = 32;

export interface SnapshotContents extends IndexContents {
  readonly lexical: LexicalSnapshot;
  /** The index.json this snapshot mirrors; null in snapshots of the version that kept no index.json. */
  readonly derivedFrom: IndexJsonStamp | null;
  /** The file the chunks read their texts from, when they were left in it (`inFile`): whoever adopts them closes it. */
  readonly textsFile?: TextsInFile;
}

/** What a snapshot is written from: the lexical arrays and the vector rows come in pieces, so writing holds no second copy of them. */
export interface SnapshotSource extends Omit<SnapshotContents, 'lexical' | 'vectors'> {
  readonly lexical: LexicalSnapshotInPieces;
  readonly vectors: {
    readonly keys: readonly string[];
    /** The rows of keys[0], keys[1]..., contiguous, as float16, a block at a time. */
    readonly halves: () => Iterable<Uint16Array>;
    readonly lists?: InvertedListsSnapshot;
  } | null;
}

/** Where a snapshot's vector rows lie in its file: contiguous, one row per key. */
export type WrittenRows = Omit<RowsInFile, 'fd'>;

/** Where a written snapshot keeps what can be read from its file rather than held in memory. */
export interface WrittenSnapshot {
  /** The offset of the texts section: each document's chunks' texts, one after another, in the documents' order. */
  readonly textsOffset: number;
  readonly rows: WrittenRows | undefined;
}

const format = 6;
/** How each format read stores its vector rows. */
const rowEncoding: Readonly<Record<2 | 3 | 4 | 5 | 6, RowEncoding>> = {
  2: 'float32',
  3: 'float32',
  4: 'float16',
  5: 'float16',
  6: 'float16',
};

const sectionSchema = z.object({ offset: z.number().int().nonnegative(), length: z.number().int().nonnegative(), crc: z.number().int() });

interface Section {
  readonly offset: number;
  readonly length: number;
  readonly crc: number;
}

/** The lexical index's postings, stored as varints (see indexes/stored-postings.ts). */
const postingsEncoding = 'postings-varint';

interface ArraySection extends Section {
  readonly type: ArrayType;
  readonly encoding?: typeof postingsEncoding;
  readonly values?: number;
}

/**
 * A list of strings as a section: each one's UTF-8 bytes and a NUL, which no term or chunk key holds (keys are made of
 * file names). Formats 2 to 4 kept them in the header, whose one JSON string held a million keys twice over.
 */
const stringsSchema = sectionSchema.extend({ count: z.number().int().nonnegative() });
type StringsSection = z.infer<typeof stringsSchema>;
const storedStrings = z.union([z.array(z.string()), stringsSchema]);

const headerSchema = z.object({
  format: z.union([z.literal(2), z.literal(3), z.literal(4), z.literal(5), z.literal(format)]),
  // Absent in snapshots of the version that kept no index.json; older versions ignore it.
  derivedFrom: z.object({ generation: z.string(), bytes: z.number(), modifiedMs: z.number() }).nullable().optional(),
  embedding: z.object({ model: z.string(), dimensions: z.number().int().positive() }).nullable(),
  documents: sectionSchema.extend({ count: z.number().int().nonnegative() }),
  // Format 3 on: the chunks' texts, which format 2 kept in the documents' lines.
  texts: sectionSchema.optional(),
  lexical: z.object({
    terms: storedStrings,
    keys: storedStrings,
    lengthTotals: z.array(z.number()),
    // Format 6 on: slotTerms as 'u8', its lists encoded (indexes/term-id-lists.ts), 'u32' ids before; and the
    // postings as varints, the section holding `values` words once decoded.
    arrays: z.record(
      z.string(),
      sectionSchema.extend({
        type: z.enum(['u8', 'u32', 'f32']),
        encoding: z.literal(postingsEncoding).optional(),
        values: z.number().int().nonnegative().optional(),
      }),
    ),
  }),
  vectors: sectionSchema
    .extend({
      // 'lexical': the same keys in the same order as the lexical index's, stored once.
      keys: z.union([storedStrings, z.literal('lexical')]),
      // The vector index's inverted lists, once it has them; older versions ignore them and scan every row.
      lists: z.object({ centroids: sectionSchema, listOfRow: sectionSchema }).optional(),
    })
    .nullable(),
});

/** The header, checked; a snapshot written by a later version is named as such (an earlier version's service opens it). */
function parseHeader(value: unknown): z.infer<typeof headerSchema> {
  const stated = (value as { format?: unknown } | null)?.format;
  if (typeof stated === 'number' && stated > format)
    throw new Error(`a snapshot of format ${stated}, written by a later version (this one reads formats 2 to ${format})`);
  const parsed = headerSchema.safeParse(value);
  if (!parsed.success)
    throw new Error(
      `the header does not describe a snapshot: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** Writes the snapshot to `path`, all or nothing; where its texts and vector rows lie in it. */
export async function writeSnapshot(path: string, contents: SnapshotSource): Promise<WrittenSnapshot> {
  let textsOffset = 0;
  let written: WrittenRows | undefined;
  await writeFileAtomicWith(path, async (file) => {
    let position = preambleBytes;
    /** Writes `pieces` one after another as one section, aligned. */
    const writePieces = async (pieces: Iterable<Uint8Array | Uint16Array | Uint32Array | Float32Array>): Promise<Section> => {
      position = align(position);
      const offset = position;
      let crc = 0;
      for (const piece of pieces) {
        const bytes = bytesOf(piece);
        crc = crc32(bytes, crc);
        await file.write(bytes, 0, bytes.byteLength, position);
        position += bytes.byteLength;
      }
      return { offset, length: position - offset, crc };
    };
    const documents = await writeDocuments(file, align(position), contents.documents);
    position = documents.offset + documents.length;
    const texts = await writePieces(inBlocks(chunkTexts(contents.documents)));
    textsOffset = texts.offset;
    const writeStrings = async (strings: readonly string[]): Promise<StringsSection> => ({
      ...(await writePieces(inBlocks(nulTerminated(strings)))),
      count: strings.length,
    });
    const lexicalKeys = contents.lexical.keys;
    const terms = await writeStrings(contents.lexical.terms);
    const keys = await writeStrings(lexicalKeys);
    const arrays: Record<string, ArraySection> = {};
    for (const [name, array] of Object.entries(contents.lexical.arrays)) {
      if (name === 'postings' && array.type === 'u32') {
        arrays[name] = {
          ...(await writePieces(encodedPostings(array.pieces(), array.length))),
          type: 'u32',
          encoding: postingsEncoding,
          values: array.length,
        };
        continue;
      }
      const section = await writePieces(array.pieces());
      const expected = array.length * arrayOfType[array.type].BYTES_PER_ELEMENT;
      if (section.length !== expected) throw new Error(`the ${name} array gave ${section.length} bytes, not ${expected}`);
      arrays[name] = { ...section, type: array.type };
    }
    const stored = contents.vectors;
    const rows = stored === null ? undefined : await writePieces(stored.halves());
    if (stored !== null && rows !== undefined) {
      const expected = stored.keys.length * (contents.embedding?.dimensions ?? 0) * bytesPerValue.float16;
      if (rows.length !== expected) throw new Error(`the vector rows gave ${rows.length} bytes, not ${expected}`);
      written = { byteOffset: rows.offset, count: stored.keys.length, encoding: 'float16' };
    }
    const vectors =
      stored === null
        ? null
        : {
            ...rows,
            keys: sameStrings(stored.keys, lexicalKeys) ? ('lexical' as const) : await writeStrings(stored.keys),
            lists:
              stored.lists === undefined
                ? undefined
                : {
                    centroids: await writePieces([stored.lists.centroids]),
                    listOfRow: await writePieces([stored.lists.listOfRow]),
                  },
          };
    const header = Buffer.from(
      JSON.stringify({
        format,
        derivedFrom: contents.derivedFrom,
        embedding: contents.embedding,
        documents: { ...documents, count: contents.documents.length },
        texts,
        lexical: { terms, keys, lengthTotals: contents.lexical.lengthTotals, arrays },
        vectors,
      }),
      'utf8',
    );
    const headerSection = await writePieces([header]);
    const preamble = Buffer.alloc(preambleBytes);
    magic.copy(preamble, 0);
    preamble.writeBigUInt64LE(BigInt(headerSection.offset), 8);
    preamble.writeBigUInt64LE(BigInt(headerSection.length), 16);
    preamble.writeUInt32LE(headerSection.crc, 24);
    await file.write(preamble, 0, preambleBytes, 0);
  });
  return { textsOffset, rows: written };
}

async function writeDocuments(file: FileHandle, offset: number, documents: readonly StoredDocument[]): Promise<Section> {
  const lines = new LineWriter(file, offset);
  for (const document of documents) await lines.write(JSON.stringify(toSnapshotDocument(document)));
  return { offset, ...(await lines.flush()) };
}

function* chunkTexts(documents: readonly StoredDocument[]): Iterable<Uint8Array> {
  for (const document of documents) for (const chunk of EncodedTextChunk.readTogether(document.chunks)) yield encodedText(chunk);
}

function* nulTerminated(strings: readonly string[]): Iterable<Uint8Array> {
  for (const text of strings) {
    if (text.includes('\0')) throw new Error(`a term or chunk key holds a NUL character: ${JSON.stringify(text)}`);
    yield Buffer.from(`${text}\0`, 'utf8');
  }
}

function sameStrings(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((text, index) => text === right[index]);
}

/** Small pieces gathered into blocks of about a megabyte, so that they are written in few calls. */
function* inBlocks(pieces: Iterable<Uint8Array>, blockBytes = 1 << 20): Iterable<Uint8Array> {
  let block = Buffer.allocUnsafe(blockBytes);
  let used = 0;
  for (const piece of pieces) {
    if (used + piece.byteLength > block.length && used > 0) {
      yield block.subarray(0, used);
      block = Buffer.allocUnsafe(Math.max(blockBytes, piece.byteLength));
      used = 0;
    }
    if (piece.byteLength > block.length) block = Buffer.allocUnsafe(piece.byteLength);
    block.set(piece, used);
    used += piece.byteLength;
  }
  if (used > 0) yield block.subarray(0, used);
}

export interface SnapshotReading {
  /** Turns down the index.json the snapshot mirrors: it is then not read further. */
  readonly wanted?: (derivedFrom: IndexJsonStamp | null) => boolean;
  /**
   * Leaves the vector rows and the chunks' texts in the file (checked, not kept): the rows are given as rows in an open
   * file, for whoever adopts them to read on demand and close, the chunks read their texts from it (see TextsInFile).
   * Otherwise both are read into memory.
   */
  readonly inFile?: boolean;
}

/**
 * The snapshot at `path`, or undefined when there is none or `wanted` turns it down; throws (with the reason) when it
 * is damaged.
 */
export async function readSnapshot(
  path: string,
  { wanted = () => true, inFile = false }: SnapshotReading = {},
): Promise<SnapshotContents | undefined> {
  const file = await openIfPresent(path);
  if (file === undefined) return undefined;
  let textsFile: TextsInFile | undefined;
  try {
    const { size, ino } = await file.stat();
    const preamble = await readSection(file, 0, preambleBytes, size);
    if (!preamble.subarray(0, magic.length).equals(magic)) throw new Error('not a snapshot file (bad magic)');
    const headerOffset = Number(preamble.readBigUInt64LE(8));
    const headerLength = Number(preamble.readBigUInt64LE(16));
    const headerBytes = await readSection(file, headerOffset, headerLength, size);
    if (crc32(headerBytes) !== preamble.readUInt32LE(24)) throw new Error('the header is damaged (checksum mismatch)');
    const header = parseHeader(JSON.parse(headerBytes.toString('utf8')));
    const derivedFrom = header.derivedFrom ?? null;
    if (!wanted(derivedFrom)) return undefined;
    const listSections = header.vectors?.lists === undefined ? [] : [header.vectors.lists.centroids, header.vectors.lists.listOfRow];
    for (const section of [
      header.documents,
      ...(header.texts === undefined ? [] : [header.texts]),
      ...Object.values(header.lexical.arrays),
      ...(header.vectors === null ? [] : [header.vectors]),
      ...listSections,
    ]) {
      checkWithinFile(section.offset, section.length, size);
    }
    if (header.format >= 3 && header.texts === undefined)
      throw new Error(`a snapshot of format ${header.format} without its texts section`);
    // Closed below if anything fails from here on.
    textsFile = inFile && header.texts !== undefined ? TextsInFile.openIfSame(path, ino) : undefined;
    const documents =
      header.texts === undefined
        ? await readDocumentLines(file, header.documents, toStoredDocument)
        : await readDocumentsAndTexts(file, header.documents, header.texts, textsFile);
    if (documents.length !== header.documents.count)
      throw new Error(`${documents.length} documents where the header says ${header.documents.count}`);
    const arrays: Record<string, SnapshotArray> = {};
    for (const [name, section] of Object.entries(header.lexical.arrays)) arrays[name] = await readLexicalArray(file, section, size);
    const strings = (stored: string[] | StringsSection) => (Array.isArray(stored) ? stored : readStrings(file, stored, size));
    const terms = await strings(header.lexical.terms);
    const keys = await strings(header.lexical.keys);
    // Stored once, the same array for both: the lexical index adopts its keys, the vector index copies what it keeps.
    const vectorKeys = header.vectors === null ? [] : header.vectors.keys === 'lexical' ? keys : await strings(header.vectors.keys);
    const storedLists = header.vectors?.lists;
    const lists =
      storedLists === undefined
        ? undefined
        : {
            centroids: await readArray(file, storedLists.centroids, new Float32Array(storedLists.centroids.length / 4), size),
            listOfRow: await readArray(file, storedLists.listOfRow, new Uint32Array(storedLists.listOfRow.length / 4), size),
          };
    const dimensions = header.embedding?.dimensions ?? 0;
    const encoding = rowEncoding[header.format];
    if (
      header.vectors !== null &&
      (dimensions === 0 || header.vectors.length !== vectorKeys.length * dimensions * bytesPerValue[encoding])
    ) {
      throw new Error('vector rows do not match their keys and dimensions');
    }
    // Read last: rows left in the file hold a descriptor, which nothing may fail after.
    const vectors =
      header.vectors === null
        ? null
        : {
            keys: vectorKeys,
            ...(lists === undefined ? {} : { lists }),
            rows: inFile
              ? await rowsLeftInFile(path, ino, file, header.vectors, size, { dimensions, encoding })
              : await readRows(file, header.vectors, size, encoding),
          };
    return {
      embedding: header.embedding,
      documents,
      lexical: { terms, keys, lengthTotals: header.lexical.lengthTotals, arrays },
      vectors,
      derivedFrom,
      textsFile,
    };
  } catch (error) {
    textsFile?.close();
    throw error;
  } finally {
    await file.close();
  }
}

/**
 * The rows section, checked, as rows in a new descriptor of the same file (`inFile`), or read into memory when the
 * file at `path` was replaced meanwhile (its bounds are checked by the caller). The descriptor is opened last, so
 * nothing after it can fail and leave it open.
 */
async function rowsLeftInFile(
  path: string,
  ino: number,
  file: FileHandle,
  section: Section,
  size: number,
  { dimensions, encoding }: { readonly dimensions: number; readonly encoding: RowEncoding },
): Promise<RowsInFile | Float32Array | Uint16Array> {
  if ((await crcOf(file, section)) !== section.crc) throw new Error('an array section is damaged (checksum mismatch)');
  const fd = openSync(path, 'r');
  if (fstatSync(fd).ino === ino)
    return { fd, byteOffset: section.offset, count: section.length / bytesPerValue[encoding] / dimensions, encoding };
  closeSync(fd);
  return readRows(file, section, size, encoding);
}

/** The rows section read into memory as its encoding stores them (float16 bits, or float32 for formats 2 and 3). */
async function readRows(file: FileHandle, section: Section, size: number, encoding: RowEncoding): Promise<Float32Array | Uint16Array> {
  if (encoding === 'float32') return readArray(file, section, withHeadroom(Float32Array, section.length / 4), size);
  return readArray(file, section, withHeadroom(Uint16Array, section.length / 2), size);
}

/** The documents section's lines (within the file: checked by the caller), each parsed by `parse`, checked. */
async function readDocumentLines<T>(file: FileHandle, section: Section, parse: (value: unknown) => T): Promise<T[]> {
  const lines: T[] = [];
  let crc = 0;
  await forEachLine(file, section.offset, section.length, (line) => {
    crc = crc32(line, crc);
    lines.push(parse(JSON.parse(line.toString('utf8', 0, line.length - 1))));
  });
  if (crc !== section.crc) throw new Error('the documents section is damaged (checksum mismatch)');
  return lines;
}

/**
 * Format 3's documents: their lines, each one's texts kept as bytes (see EncodedTextChunk), read from the texts section
 * into memory, or left in `inFile` (the same file, opened again: checked, not kept).
 */
async function readDocumentsAndTexts(
  file: FileHandle,
  section: Section,
  textSection: Section,
  inFile: TextsInFile | undefined,
): Promise<StoredDocument[]> {
  // The texts first, while the heap is small (see SlabReader).
  const texts = inFile === undefined ? await SlabReader.read(file, textSection.offset, textSection.length) : undefined;
  if ((texts?.crc ?? (await crcOf(file, textSection))) !== textSection.crc)
    throw new Error('the texts section is damaged (checksum mismatch)');
  // Each line becomes its document as it is read, so that what parsing it made and the document does not keep dies young.
  let textBytes = 0;
  const documents = await readDocumentLines(file, section, (value) => {
    const line = parseSnapshotDocument(value);
    const document =
      texts === undefined
        ? fromSnapshotDocument(line, inFile as TextsInFile, textSection.offset + textBytes)
        : fromSnapshotDocument(line, texts.take(line.textBytes));
    textBytes += line.textBytes;
    return document;
  });
  if (textBytes !== textSection.length) throw new Error("the texts section does not hold the documents' texts");
  return documents;
}

/** A strings section (see stringsSchema), checked. */
async function readStrings(file: FileHandle, section: StringsSection, size: number): Promise<string[]> {
  const bytes = await readSection(file, section.offset, section.length, size);
  if (crc32(bytes) !== section.crc) throw new Error('a terms or keys section is damaged (checksum mismatch)');
  if (section.count === 0 && bytes.length === 0) return [];
  if (bytes[bytes.length - 1] !== 0) throw new Error('a terms or keys section does not end its last string');
  const strings = bytes.toString('utf8', 0, bytes.length - 1).split('\0');
  if (strings.length !== section.count) throw new Error(`${strings.length} terms or keys where the header says ${section.count}`);
  return strings;
}

/** The CRC-32 of a section's bytes, read a block at a time (checked, not kept). */
async function crcOf(file: FileHandle, section: Section): Promise<number> {
  const block = new Uint8Array(Math.min(section.length, 8 << 20));
  let crc = 0;
  for (let done = 0; done < section.length; done += block.length) {
    const bytes = block.subarray(0, Math.min(block.length, section.length - done));
    await readExactly(file, section.offset + done, bytes);
    crc = crc32(bytes, crc);
  }
  return crc;
}

/** Fills `array` (sized by the caller from the section) with the section's bytes. */
/** One of the lexical index's arrays, with headroom to grow (see withHeadroom), decoded if it was stored encoded. */
async function readLexicalArray(file: FileHandle, section: ArraySection, size: number): Promise<SnapshotArray> {
  if (section.encoding === undefined) return readArray(file, section, roomFor(section), size);
  if (section.type !== 'u32' || section.values === undefined)
    throw new Error(`an array section encoded as ${section.encoding} needs type u32 and its number of values`);
  const bytes = await readArray(file, section, new Uint8Array(section.length), size);
  return decodedPostings(bytes, section.values, withHeadroom(Uint32Array, section.values));
}

/** An array, with headroom to grow (see withHeadroom), for the values of `section`. */
function roomFor({ type, length }: Section & { type: ArrayType }): SnapshotArray {
  const Type = arrayOfType[type];
  // readArray refuses a section that is not a whole number of values, before it reads into this.
  return withHeadroom(Type, Math.floor(length / Type.BYTES_PER_ELEMENT));
}

async function readArray<T extends SnapshotArray | Uint16Array>(file: FileHandle, section: Section, array: T, size: number): Promise<T> {
  if (section.length % array.BYTES_PER_ELEMENT !== 0)
    throw new Error(`an array section is not a whole number of ${array.BYTES_PER_ELEMENT}-byte values`);
  const bytes = await readSection(
    file,
    section.offset,
    section.length,
    size,
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength),
  );
  if (crc32(bytes) !== section.crc) throw new Error('an array section is damaged (checksum mismatch)');
  return array;
}

async function readSection(file: FileHandle, offset: number, length: number, size: number, into?: Uint8Array): Promise<Buffer> {
  checkWithinFile(offset, length, size);
  const target = into ?? new Uint8Array(length);
  await readExactly(file, offset, target);
  return Buffer.from(target.buffer, target.byteOffset, target.byteLength);
}

function checkWithinFile(offset: number, length: number, size: number): void {
  if (offset + length > size) throw new Error(`a section runs past the end of the file (${offset + length} > ${size} bytes)`);
}

function bytesOf(array: Uint8Array | Uint16Array | Uint32Array | Float32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function align(position: number): number {
  return Math.ceil(position / 8) * 8;
}
