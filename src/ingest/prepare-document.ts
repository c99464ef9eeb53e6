// A source's content made ready to store: converted to Markdown, titled by its first heading when it names no title
// itself, hashed and chunked. Linear in the input, but still about 0.1 s per MB: a conversion worker does it for every
// document but small Markdown and text (document-converter.ts).
import { contentHash } from '../store/content-hash.js';
import { titleHeading } from '../store/front-matter.js';
import { chunkMarkdown, type MarkdownChunk } from './chunk-markdown.js';
import { convertDocument, type DocumentFormat, type PdfConverter } from './convert-document.js';

/** What is converted: a document's bytes in a known format, or a text snippet sent as a string. */
export type DocumentInput =
  | { readonly format: DocumentFormat; readonly bytes: Uint8Array; readonly url: string | undefined }
  | { readonly format: 'snippet'; readonly text: string };

export interface PreparedDocument {
  /** The title the document names (HTML `<title>`, PDF metadata, front matter), else its first heading. */
  readonly title: string | null;
  /** The Markdown body, trimmed. */
  readonly markdown: string;
  /** The body's content hash (de-duplication). */
  readonly hash: string;
  readonly chunks: MarkdownChunk[];
}

export async function prepareDocument(input: DocumentInput, convertPdf?: PdfConverter): Promise<PreparedDocument> {
  const converted =
    input.format === 'snippet'
      ? { title: null, markdown: input.text.replace(/\r\n?/g, '\n') }
      : await convertDocument(input.bytes, input.format, input.url, convertPdf);
  const markdown = converted.markdown.trim();
  return {
    title: converted.title?.trim() || titleHeading(markdown) || null,
    markdown,
    hash: contentHash(markdown),
    chunks: markdown === '' ? [] : chunkMarkdown(markdown),
  };
}
