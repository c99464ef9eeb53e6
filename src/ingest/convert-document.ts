// Recognizes a document's format (PDF, HTML, Markdown, plain text) and converts it to Markdown.
import { extname } from 'node:path';
import { KnowledgeError } from '../errors.js';
import { parseDocument } from '../store/front-matter.js';
import { normalizeDocSiteMarkup } from '../markdown/doc-site-markup.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { pdfToMarkdown } from './pdf-to-markdown.js';

export type DocumentFormat = 'pdf' | 'html' | 'markdown' | 'text';

export interface ConvertedDocument {
  readonly title: string | null;
  readonly markdown: string;
}

const formatOfExtension: Record<string, DocumentFormat> = {
  '.pdf': 'pdf',
  '.html': 'html',
  '.htm': 'html',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
  '.txt': 'text',
  '.text': 'text',
};

const formatOfMediaType: Record<string, DocumentFormat> = {
  'application/pdf': 'pdf',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
};

export const acceptedExtensions = Object.keys(formatOfExtension);

function startsWithPdfMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 5 && Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';
}

function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 512)).toString('utf8').trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html') || /^<(head|body|meta|title)[\s>]/.test(head);
}

/** The format from the file name, then the media type, then the content itself; undefined when none fits. */
export function detectFormat(bytes: Uint8Array, hints: { fileName?: string; contentType?: string }): DocumentFormat | undefined {
  if (startsWithPdfMagic(bytes)) return 'pdf';
  const byExtension = hints.fileName === undefined ? undefined : formatOfExtension[extname(hints.fileName).toLowerCase()];
  if (byExtension !== undefined) return byExtension;
  const mediaType = hints.contentType?.split(';')[0]?.trim().toLowerCase();
  const byMediaType = mediaType === undefined ? undefined : formatOfMediaType[mediaType];
  if (byMediaType !== undefined) return byMediaType === 'text' && looksLikeHtml(bytes) ? 'html' : byMediaType;
  if (hints.fileName !== undefined && extname(hints.fileName) !== '') return undefined;
  return looksLikeHtml(bytes) ? 'html' : undefined;
}

function decodeText(bytes: Uint8Array): string {
  if (bytes.includes(0)) throw new KnowledgeError('document_unreadable', 'the file holds binary data, not text');
  return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
}

/** Converts a PDF to Markdown: in the calling thread by default, or in a process of its own (pdf-child-process.ts). */
export type PdfConverter = (bytes: Uint8Array) => Promise<ConvertedDocument>;

export async function convertDocument(
  bytes: Uint8Array,
  format: DocumentFormat,
  url?: string,
  convertPdf: PdfConverter = pdfToMarkdown,
): Promise<ConvertedDocument> {
  switch (format) {
    case 'pdf': {
      const { title, markdown } = await convertPdf(bytes);
      return { title, markdown };
    }
    case 'html':
      return htmlToMarkdown(decodeText(bytes), url === undefined ? {} : { url });
    case 'markdown': {
      const { frontMatter, body } = parseDocument(decodeText(bytes));
      return { title: frontMatter.title ?? null, markdown: normalizeDocSiteMarkup(body) };
    }
    case 'text':
      return { title: null, markdown: decodeText(bytes).replace(/\r\n?/g, '\n') };
  }
}
