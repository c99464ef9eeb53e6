// The in-memory shapes of a namespace's documents and chunks.
import { TextsInFile } from './texts-in-file.js';

export interface StoredChunk {
  /** `<file stem>:<ordinal>`, stable while the document is unchanged. */
  readonly id: string;
  readonly file: string;
  readonly headingPath: readonly string[];
  readonly text: string;
}

export interface StoredDocument {
  /** File name in the namespace folder, e.g. `getting-started.md`; also the citation label. */
  readonly file: string;
  readonly title: string;
  /**
   * Where it came from: a URL, a file path, an upload's path (`tutorial/middleware.md`), or `text`. Written `source`
   * in the front matter, the index files and the API; never the path of the stored `.md` file (that is `file`).
   */
  readonly origin: string;
  /** `sha256:<hex>` of the Markdown body. */
  readonly hash: string;
  readonly ingestedAt: string;
  /** Size and modification time of the `.md` file when last read, to notice hand edits cheaply. */
  readonly fileSize: number;
  readonly fileModifiedMs: number;
  readonly chunks: readonly StoredChunk[];
}

/**
 * A chunk whose text stays its document's UTF-8 bytes until it is read: a namespace restored from its snapshot decodes
 * no text at load (reading the documents with their texts decoded was a third of a 300,000-chunk load). The bytes are
 * in memory, or in the snapshot's file, read on each use (see TextsInFile).
 */
export class EncodedTextChunk implements StoredChunk {
  constructor(
    readonly id: string,
    readonly file: string,
    readonly headingPath: readonly string[],
    /** The bytes of the document's chunks, or the file holding them, this chunk's from `start`. */
    private source: Buffer | TextsInFile,
    private start: number,
    readonly byteLength: number,
  ) {}

  get text(): string {
    return this.source instanceof TextsInFile
      ? this.source.read(this.start, this.byteLength).toString('utf8')
      : this.source.toString('utf8', this.start, this.start + this.byteLength);
  }

  /** The text's UTF-8 bytes, not decoded. */
  get encoded(): Buffer {
    return this.source instanceof TextsInFile
      ? this.source.read(this.start, this.byteLength)
      : this.source.subarray(this.start, this.start + this.byteLength);
  }

  /** Whether the text is read from a file on each use rather than held in memory. */
  get inFile(): boolean {
    return this.source instanceof TextsInFile;
  }

  /** Reads the text (the same bytes) from `file` at `start` from now on: a snapshot's, once it is written. */
  moveTo(file: TextsInFile, start: number): void {
    this.source = file;
    this.start = start;
  }

  /**
   * `chunks` (a document's) with their texts in memory, read in one read when they lie one after another in one file,
   * as a snapshot keeps a document's: what writes every text (a compaction) reads a document at a time, not a chunk.
   */
  static readTogether(chunks: readonly StoredChunk[]): readonly StoredChunk[] {
    const first = chunks[0];
    if (!(first instanceof EncodedTextChunk) || !(first.source instanceof TextsInFile)) return chunks;
    let end = first.start;
    for (const chunk of chunks) {
      if (!(chunk instanceof EncodedTextChunk) || chunk.source !== first.source || chunk.start !== end) return chunks;
      end += chunk.byteLength;
    }
    const bytes = first.source.read(first.start, end - first.start);
    return (chunks as readonly EncodedTextChunk[]).map(
      (chunk) => new EncodedTextChunk(chunk.id, chunk.file, chunk.headingPath, bytes, chunk.start - first.start, chunk.byteLength),
    );
  }
}

/**
 * `document` with the text of its chunk `chunkId`, and those of the chunks either side, in memory (one read where they
 * lie in a file): a search's result, whose snippet shows the neighbours too, stays readable once its namespace is
 * closed to free memory. Undefined when the document has no such chunk.
 */
export function withTextsAround(document: StoredDocument, chunkId: string): { document: StoredDocument; chunk: StoredChunk } | undefined {
  const index = document.chunks.findIndex((chunk) => chunk.id === chunkId);
  if (index < 0) return undefined;
  const from = Math.max(0, index - 1);
  const around = EncodedTextChunk.readTogether(document.chunks.slice(from, index + 2));
  if (around[0] === document.chunks[from]) return { document, chunk: document.chunks[index] as StoredChunk };
  const chunks = [...document.chunks];
  chunks.splice(from, around.length, ...around);
  return { document: { ...document, chunks }, chunk: chunks[index] as StoredChunk };
}

/** The UTF-8 bytes of a chunk's text: those it keeps, or its text encoded. */
export const encodedText = (chunk: StoredChunk): Buffer =>
  chunk instanceof EncodedTextChunk ? chunk.encoded : Buffer.from(chunk.text, 'utf8');

/** How many UTF-8 bytes a chunk's text takes, without decoding a text kept encoded. */
export const encodedLength = (chunk: StoredChunk): number =>
  chunk instanceof EncodedTextChunk ? chunk.byteLength : Buffer.byteLength(chunk.text, 'utf8');

/** The size of a chunk's text without decoding it: characters, or the UTF-8 bytes of a text kept encoded (as many for ASCII). */
export const textSize = (chunk: StoredChunk): number => (chunk instanceof EncodedTextChunk ? chunk.byteLength : chunk.text.length);

/** Characters (or, for a text kept encoded, bytes) of a chunk's text held in memory: none for one read from a file. */
export const textSizeInMemory = (chunk: StoredChunk): number => (chunk instanceof EncodedTextChunk && chunk.inFile ? 0 : textSize(chunk));

/** A document ready to be committed: converted, chunked and (where possible) embedded. */
export interface DocumentDraft {
  readonly title: string;
  /** See StoredDocument.origin. */
  readonly origin: string;
  /** The folders of an uploaded file's path (`tutorial/security`), written in front of the title in its file name. */
  readonly folder?: string;
  /** The file name to keep when it is free (a namespace copied to another storage keeps its citation labels). */
  readonly file?: string;
  readonly body: string;
  readonly hash: string;
  /** The model that embedded the chunks, or null when they are not embedded yet. */
  readonly embeddingModel: string | null;
  readonly chunks: readonly { readonly text: string; readonly headingPath: readonly string[]; readonly embedding: Float32Array | null }[];
}

/**
 * What identifies "the same origin" for upserts: the URL, the file path, the upload's path with its folders (an upload
 * stored before folders were kept has its bare name, and that same bare name still updates it); the title for text.
 */
export function originIdentity(document: { readonly origin: string; readonly title: string }): string {
  return document.origin === 'text' ? `text:${document.title}` : document.origin;
}

/** `<file stem>:<ordinal>`: stable while the document is unchanged. */
export function chunkId(file: string, ordinal: number): string {
  return `${file.replace(/\.md$/, '')}:${ordinal}`;
}
