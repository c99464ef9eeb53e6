// index.json: a namespace's whole index in one JSON file that any tool can read (documents, chunks with their text,
// vectors as base64 of little-endian float16), and what the namespace is restored from. It is written and read one
// line at a time, a document or a chunk per line, so neither side ever holds the file in one string:
//   {"format":3,"generation":"…","embedding":{"model":"…","dimensions":384},"documentCount":2,"chunkCount":3,
//   "documents":[
//   {"file":"a.md","title":"…","source":"…","hash":"sha256:…","ingestedAt":"…","fileSize":1,"fileModifiedMs":1,"chunkCount":2},
//   …
//   ],
//   "chunks":[
//   {"id":"a:0","file":"a.md","headingPath":["…"],"text":"…","vector":"…"},        (vector null: not embedded yet)
//   …
//   ],
//   "crc32":123}
// Chunks follow their documents' order, each document's in order. crc32 is the CRC-32 of every byte before its line:
// damage is found, not served. `generation` names one write, so a cache derived from the file can tell it is current.
// Format 2 (still read) held the vectors as float32: twice the bytes, for precision the index does not keep (vectors
// are rounded to float16 as they are added, so a namespace searches alike before and after a restart).
import { randomBytes } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { decodeFloat16, roundToFloat16 } from '../../indexes/float16.js';
import { withHeadroom } from '../../indexes/growable-array.js';
import { writeFileAtomicWith } from '../atomic-write.js';
import type { IndexContents } from '../index-contents.js';
import type { EmbeddingInfo } from '../index-ops.js';
import { legacyIndexJsonPrefix } from './legacy-index-json.js';
import { forEachLine, LineWriter, openIfPresent, readExactly } from '../line-file.js';
import { isHeadingPath, persistedMetadata, toDocumentMetadata, type DocumentMetadata } from '../persisted-document.js';
import { chunkId, EncodedTextChunk, type StoredChunk, type StoredDocument } from '../stored-document.js';

export const indexJsonFileName = 'index.json';
const format = 3;
/** Bytes a stored vector value takes in each format read: float32 in format 2, float16 in format 3. */
const valueBytes = { 2: 4, 3: 2 } as const;
/** The header line is far shorter; more than this before the first newline is not a current index.json. */
const headerBytesLimit = 64 << 10;

/** Identifies one written index.json: a cache derived from it records this, and is current while it matches. */
export interface IndexJsonStamp {
  readonly generation: string;
  readonly bytes: number;
  readonly modifiedMs: number;
}

export function sameStamp(left: IndexJsonStamp | null, right: IndexJsonStamp): boolean {
  return left !== null && left.generation === right.generation && left.bytes === right.bytes && left.modifiedMs === right.modifiedMs;
}

/** What index.json is written from; `halvesOf` (a vector's float16 values) may return a view, as it is encoded at once. */
export interface IndexJsonSource {
  readonly embedding: EmbeddingInfo | null;
  readonly documents: readonly StoredDocument[];
  halvesOf(id: string): Uint16Array | undefined;
}

const headerSchema = z.object({
  format: z.union([z.literal(2), z.literal(format)]),
  generation: z.string().min(1),
  embedding: z.object({ model: z.string(), dimensions: z.number().int().positive() }).nullable(),
  documentCount: z.number().int().nonnegative(),
  chunkCount: z.number().int().nonnegative(),
});

type Header = z.infer<typeof headerSchema>;

/** Writes index.json at `path`, all or nothing; returns the stamp of the file written. */
export async function writeIndexJson(path: string, index: IndexJsonSource): Promise<IndexJsonStamp> {
  const generation = randomBytes(8).toString('hex');
  const { embedding, documents } = index;
  const chunkCount = documents.reduce((total, document) => total + document.chunks.length, 0);
  await writeFileAtomicWith(path, async (file) => {
    const lines = new LineWriter(file, 0);
    const header: Header = { format, generation, embedding, documentCount: documents.length, chunkCount };
    // The object is left open: the arrays follow on lines of their own.
    await lines.write(`${JSON.stringify(header).slice(0, -1)},`);
    await lines.write('"documents":[');
    for (const [position, document] of documents.entries()) {
      const line = JSON.stringify({ ...persistedMetadata(document), chunkCount: document.chunks.length });
      await lines.write(position < documents.length - 1 ? `${line},` : line);
    }
    await lines.write('],');
    await lines.write('"chunks":[');
    let written = 0;
    for (const document of documents) {
      for (const chunk of EncodedTextChunk.readTogether(document.chunks)) {
        const halves = index.halvesOf(chunk.id);
        const line = JSON.stringify({
          id: chunk.id,
          file: chunk.file,
          headingPath: chunk.headingPath,
          text: chunk.text,
          vector: halves === undefined ? null : Buffer.from(halves.buffer, halves.byteOffset, halves.byteLength).toString('base64'),
        });
        written++;
        await lines.write(written < chunkCount ? `${line},` : line);
      }
    }
    await lines.write('],');
    const { crc } = await lines.flush();
    await lines.write(`"crc32":${crc}}`);
    await lines.flush();
  });
  const { size, mtimeMs } = await stat(path);
  return { generation, bytes: size, modifiedMs: mtimeMs };
}

/**
 * What the first line of index.json says: the stamp of a current one, or that it is an index.json of an earlier
 * version (format 1); undefined when there is none. Throws when the file is neither.
 */
export async function readIndexJsonHead(
  path: string,
): Promise<{ readonly format: 'current'; readonly stamp: IndexJsonStamp } | { readonly format: 'legacy' } | undefined> {
  const file = await openIfPresent(path);
  if (file === undefined) return undefined;
  try {
    const { size, mtimeMs } = await file.stat();
    const start = Buffer.alloc(Math.min(size, headerBytesLimit));
    await readExactly(file, 0, start);
    if (start.toString('utf8', 0, legacyIndexJsonPrefix.length) === legacyIndexJsonPrefix) return { format: 'legacy' };
    const end = start.indexOf(10);
    if (end === -1) throw new Error('no header line');
    return {
      format: 'current',
      stamp: { generation: parseHeader(start.subarray(0, end + 1)).generation, bytes: size, modifiedMs: mtimeMs },
    };
  } finally {
    await file.close();
  }
}

/** The counts a current index.json's header line records, or undefined when there is no such file (or it is of format 1). */
export async function readIndexJsonCounts(
  path: string,
): Promise<{ readonly documentCount: number; readonly chunkCount: number; readonly embedding: EmbeddingInfo | null } | undefined> {
  const file = await openIfPresent(path);
  if (file === undefined) return undefined;
  try {
    const start = Buffer.alloc(Math.min((await file.stat()).size, headerBytesLimit));
    await readExactly(file, 0, start);
    const end = start.indexOf(10);
    if (end === -1 || start.toString('utf8', 0, legacyIndexJsonPrefix.length) === legacyIndexJsonPrefix) return undefined;
    const { documentCount, chunkCount, embedding } = parseHeader(start.subarray(0, end + 1));
    return { documentCount, chunkCount, embedding };
  } finally {
    await file.close();
  }
}

/** Reads a current index.json line by line; throws (with the reason) when it is damaged or not one. */
export async function readIndexJson(path: string): Promise<{ readonly contents: IndexContents; readonly stamp: IndexJsonStamp }> {
  const file = await open(path, 'r');
  try {
    const { size, mtimeMs } = await file.stat();
    const reader = new IndexJsonReader();
    await forEachLine(file, 0, size, (line) => reader.read(line));
    return { contents: reader.finish(), stamp: { generation: reader.generation, bytes: size, modifiedMs: mtimeMs } };
  } finally {
    await file.close();
  }
}

function parseHeader(line: Buffer): Header {
  const text = lineText(line);
  if (!text.endsWith(',')) throw new Error('the header line does not end with a comma');
  return headerSchema.parse(JSON.parse(`${text.slice(0, -1)}}`));
}

/** The line without its newline. */
function lineText(line: Buffer): string {
  return line.toString('utf8', 0, line.length - 1);
}

type Part = 'header' | 'documents-open' | 'documents' | 'documents-close' | 'chunks-open' | 'chunks' | 'chunks-close' | 'checksum' | 'end';

/** Takes the lines of index.json in order, checking each against the layout and the header's counts. */
class IndexJsonReader {
  private part: Part = 'header';
  private header: Header | undefined;
  private crc = 0;
  private readonly metadata: (DocumentMetadata & { readonly chunkCount: number })[] = [];
  private readonly chunks: StoredChunk[][] = [];
  /** The document whose chunks come next. */
  private current = 0;
  private chunksRead = 0;
  private rows = new Float32Array(0);
  private readonly keys: string[] = [];
  /** One float16 vector as stored, before it is decoded into the rows. */
  private halves = new Uint16Array(0);

  get generation(): string {
    return this.expectHeader().generation;
  }

  read(line: Buffer): void {
    if (this.part !== 'checksum') this.crc = crc32(line, this.crc);
    switch (this.part) {
      case 'header': {
        const header = parseHeader(line);
        this.header = header;
        if (header.embedding !== null) {
          this.rows = withHeadroom(Float32Array, header.chunkCount * header.embedding.dimensions);
          this.halves = new Uint16Array(header.embedding.dimensions);
        }
        this.part = 'documents-open';
        return;
      }
      case 'documents-open':
        this.expectLine(line, '"documents":[');
        this.part = this.expectHeader().documentCount === 0 ? 'documents-close' : 'documents';
        return;
      case 'documents':
        this.readDocument(this.item(line, this.metadata.length, this.expectHeader().documentCount));
        if (this.metadata.length === this.expectHeader().documentCount) this.part = 'documents-close';
        return;
      case 'documents-close': {
        this.expectLine(line, '],');
        const listed = this.metadata.reduce((total, document) => total + document.chunkCount, 0);
        if (listed !== this.expectHeader().chunkCount)
          throw new Error(`the documents list ${listed} chunks, the header ${this.expectHeader().chunkCount}`);
        this.part = 'chunks-open';
        return;
      }
      case 'chunks-open':
        this.expectLine(line, '"chunks":[');
        this.part = this.expectHeader().chunkCount === 0 ? 'chunks-close' : 'chunks';
        return;
      case 'chunks':
        this.readChunk(this.item(line, this.chunksRead, this.expectHeader().chunkCount));
        if (this.chunksRead === this.expectHeader().chunkCount) this.part = 'chunks-close';
        return;
      case 'chunks-close':
        this.expectLine(line, '],');
        this.part = 'checksum';
        return;
      case 'checksum': {
        const recorded = /^"crc32":(\d+)}$/.exec(lineText(line))?.[1];
        if (recorded === undefined) throw new Error('the checksum line is missing or malformed');
        if (Number(recorded) !== this.crc) throw new Error('the file is damaged (checksum mismatch)');
        this.part = 'end';
        return;
      }
      case 'end':
        throw new Error('lines after the checksum');
    }
  }

  finish(): IndexContents {
    if (this.part !== 'end') throw new Error('the file ends early');
    const { embedding } = this.expectHeader();
    const documents = this.metadata.map(
      ({ chunkCount: _count, ...document }, position): StoredDocument => ({
        ...document,
        chunks: this.chunks[position] ?? [],
      }),
    );
    const vectors =
      embedding === null || this.keys.length === 0
        ? null
        : { keys: this.keys, rows: this.rows.subarray(0, this.keys.length * embedding.dimensions) };
    return { embedding, documents, vectors };
  }

  private readDocument(value: unknown): void {
    const chunkCount = (value as { chunkCount?: unknown } | null)?.chunkCount;
    if (typeof chunkCount !== 'number' || !Number.isInteger(chunkCount) || chunkCount < 0)
      throw new Error(`document ${this.metadata.length} lacks its chunk count`);
    this.metadata.push({ ...toDocumentMetadata(value), chunkCount });
    this.chunks.push([]);
  }

  private readChunk(value: unknown): void {
    // Documents without chunks have none to wait for.
    while ((this.chunks[this.current]?.length ?? 0) === this.metadata[this.current]?.chunkCount) this.current++;
    const document = this.metadata[this.current] as DocumentMetadata;
    const chunks = this.chunks[this.current] as StoredChunk[];
    const { id, file, headingPath, text, vector } = (value ?? {}) as Record<string, unknown>;
    if (file !== document.file || id !== chunkId(document.file, chunks.length)) {
      throw new Error(
        `chunk ${this.chunksRead} is ${JSON.stringify(id)} of ${JSON.stringify(file)}, where chunk ${chunks.length} of ${document.file} belongs`,
      );
    }
    if (typeof text !== 'string' || !isHeadingPath(headingPath)) throw new Error(`chunk ${id} lacks its text or heading path`);
    // The document's strings are shared rather than kept once per chunk.
    chunks.push({ id, file: document.file, headingPath, text });
    if (vector !== null) this.readVector(id, vector);
    this.chunksRead++;
  }

  /** Decodes the vector into the rows: float32 values straight into them, float16 ones by way of one vector's buffer. */
  private readVector(id: string, vector: unknown): void {
    const { embedding, format: version } = this.expectHeader();
    if (embedding === null) throw new Error(`chunk ${id} has a vector, but the index names no embedding model`);
    const { dimensions } = embedding;
    const bytes = dimensions * valueBytes[version];
    const malformed = () =>
      new Error(`the vector of chunk ${id} is not ${dimensions} ${version === 2 ? 'float32' : 'float16'} values in base64`);
    if (typeof vector !== 'string' || vector.length !== 4 * Math.ceil(bytes / 3)) throw malformed();
    const row = this.rows.subarray(this.keys.length * dimensions, (this.keys.length + 1) * dimensions);
    if (version === 2) {
      if (Buffer.from(row.buffer, row.byteOffset, bytes).write(vector, 'base64') !== bytes) throw malformed();
      roundToFloat16(row);
    } else {
      if (Buffer.from(this.halves.buffer).write(vector, 'base64') !== bytes) throw malformed();
      decodeFloat16(this.halves, row);
    }
    this.keys.push(id);
  }

  /** An item of an array: followed by a comma unless it is the last. */
  private item(line: Buffer, position: number, count: number): unknown {
    const text = lineText(line);
    const last = position === count - 1;
    if (text.endsWith(',') === last) throw new Error(`item ${position} of ${count} ${last ? 'is followed by a comma' : 'lacks its comma'}`);
    return JSON.parse(last ? text : text.slice(0, -1));
  }

  private expectLine(line: Buffer, expected: string): void {
    const text = lineText(line);
    if (text !== expected) throw new Error(`${JSON.stringify(text.slice(0, 40))} where ${JSON.stringify(expected)} belongs`);
  }

  private expectHeader(): Header {
    if (this.header === undefined) throw new Error('no header line');
    return this.header;
  }
}
