// The in-memory shapes of a namespace's documents and chunks.

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
 * no text at load (reading the documents with their texts decoded was a third of a 300,000-chunk load).
 */
export class EncodedTextChunk implements StoredChunk {
  constructor(
    readonly id: string,
    readonly file: string,
    readonly headingPath: readonly string[],
    /** The bytes of the document's chunks, this one from `start`. */
    private readonly bytes: Buffer,
    private readonly start: number,
    readonly byteLength: number,
  ) {}

  get text(): string {
    return this.bytes.toString('utf8', this.start, this.start + this.byteLength);
  }

  /** The text's UTF-8 bytes, not decoded. */
  get encoded(): Buffer {
    return this.bytes.subarray(this.start, this.start + this.byteLength);
  }
}

/** The UTF-8 bytes of a chunk's text: those it keeps, or its text encoded. */
export const encodedText = (chunk: StoredChunk): Buffer =>
  chunk instanceof EncodedTextChunk ? chunk.encoded : Buffer.from(chunk.text, 'utf8');

/** How many UTF-8 bytes a chunk's text takes, without decoding a text kept encoded. */
export const encodedLength = (chunk: StoredChunk): number =>
  chunk instanceof EncodedTextChunk ? chunk.byteLength : Buffer.byteLength(chunk.text, 'utf8');

/** The size of a chunk's text without decoding it: characters, or the UTF-8 bytes of a text kept encoded (as many for ASCII). */
export const textSize = (chunk: StoredChunk): number => (chunk instanceof EncodedTextChunk ? chunk.byteLength : chunk.text.length);

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
