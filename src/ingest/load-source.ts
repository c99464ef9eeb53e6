// Turns one source into a titled Markdown document: fetch or read it within the limits, then convert it.
import { open, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { KnowledgeError } from '../errors.js';
import { titleFromFileName } from '../store/front-matter.js';
import { acceptedExtensions, detectFormat } from './convert-document.js';
import type { DocumentConverter } from './document-converter.js';
import { fetchUrl, type FetchedPage, type FetchLimits } from './fetch-url.js';
import type { IngestSource } from './ingest-source.js';
import type { PreparedDocument } from './prepare-document.js';

export interface SourceLimits {
  readonly maxSourceBytes: number;
  readonly maxTextBytes: number;
  readonly downloadTimeoutMs: number;
  readonly allowPrivateUrls: boolean;
  /** Absolute directories (symlinks resolved) that file sources must lie in. */
  readonly fileRoots: readonly string[];
}

export interface LoadedDocument extends PreparedDocument {
  readonly title: string;
}

const maxTitleLength = 200;

/** The body's first line, read no further than its first 200 characters (the body is trimmed: it starts there). */
function firstLine(markdown: string): string | undefined {
  const line = markdown.slice(0, 200).split('\n')[0]?.trim();
  return line === undefined || line === '' ? undefined : line.replace(/^[#>*\-\s]+/, '').slice(0, 80);
}

function nameFromUrl(url: string): string | undefined {
  const pathname = new URL(url).pathname.replace(/\/+$/, '');
  const last = decodeURIComponent(pathname.split('/').pop() ?? '').replace(/\.[a-z0-9]+$/i, '');
  return last === '' ? new URL(url).hostname : last;
}

function isInside(root: string, path: string): boolean {
  const fromRoot = relative(root, path);
  return fromRoot === '' || (!fromRoot.startsWith(`..${sep}`) && fromRoot !== '..' && !isAbsolute(fromRoot));
}

async function readAllowedFile(requestedPath: string, limits: SourceLimits): Promise<Buffer> {
  if (!isAbsolute(requestedPath))
    throw new KnowledgeError('source_invalid', `path: ${JSON.stringify(requestedPath)} must be an absolute path`);
  const notAllowed = () =>
    new KnowledgeError(
      'file_not_allowed',
      `${requestedPath} is outside the directories files may be read from (KNOWLEDGE_AGENT_FILE_ROOTS)`,
    );
  let path: string;
  try {
    path = await realpath(requestedPath);
  } catch {
    // Checked first, so the answer does not tell whether a file outside the roots exists.
    if (!limits.fileRoots.some((root) => isInside(root, resolve(requestedPath)))) throw notAllowed();
    throw new KnowledgeError('file_not_found', `${requestedPath} does not exist`);
  }
  if (!limits.fileRoots.some((root) => isInside(root, path))) throw notAllowed();
  const info = await stat(path);
  if (!info.isFile()) throw new KnowledgeError('file_not_found', `${requestedPath} is not a regular file`);
  if (info.size > limits.maxSourceBytes) {
    throw new KnowledgeError('source_too_large', `${requestedPath} is ${info.size} bytes, over the ${limits.maxSourceBytes}-byte limit`);
  }
  // Read at most one byte past the limit: the file may have grown since its size was checked.
  // The buffer starts at the size just read (plus the byte that shows growth) and grows only if the file did:
  // one limit-sized buffer per file cost more than reading a small Markdown page.
  const file = await open(path, 'r');
  try {
    const readLimit = limits.maxSourceBytes + 1;
    let buffer = Buffer.alloc(Math.min(info.size + 1, readLimit));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (buffer.length >= readLimit) break;
        const grown = Buffer.alloc(Math.min(buffer.length * 2, readLimit));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > limits.maxSourceBytes)
      throw new KnowledgeError('source_too_large', `${requestedPath} is over the ${limits.maxSourceBytes}-byte limit`);
    return buffer.subarray(0, length);
  } finally {
    await file.close();
  }
}

function unsupported(name: string): KnowledgeError {
  return new KnowledgeError('unsupported_file_type', `${name}: unsupported file type (accepted: ${acceptedExtensions.join(', ')})`);
}

function titled(requested: string | undefined, prepared: PreparedDocument, fallback: string | undefined): LoadedDocument {
  const title = (requested?.trim() || prepared.title || fallback || firstLine(prepared.markdown) || 'Untitled').slice(0, maxTitleLength);
  return { ...prepared, title };
}

/** `signal` stops the download and the conversion, with its reason. */
export async function loadSource(
  source: IngestSource,
  limits: SourceLimits,
  converter: DocumentConverter,
  signal?: AbortSignal,
): Promise<LoadedDocument> {
  switch (source.kind) {
    case 'text': {
      const size = Buffer.byteLength(source.text, 'utf8');
      if (size > limits.maxTextBytes) {
        throw new KnowledgeError('source_too_large', `text is ${size} bytes, over the ${limits.maxTextBytes}-byte limit for a snippet`);
      }
      return titled(source.title, await converter.convertText(source.text, signal), undefined);
    }
    case 'file': {
      const bytes = await readAllowedFile(source.path, limits);
      const format = detectFormat(bytes, { fileName: source.path });
      if (format === undefined) throw unsupported(source.path);
      return titled(source.title, await converter.convert(bytes, format, undefined, signal), titleFromFileName(source.path));
    }
    case 'upload': {
      if (source.bytes.length > limits.maxSourceBytes) {
        throw new KnowledgeError(
          'source_too_large',
          `${source.fileName} is ${source.bytes.length} bytes, over the ${limits.maxSourceBytes}-byte limit`,
        );
      }
      const format = detectFormat(source.bytes, {
        fileName: source.fileName,
        ...(source.contentType === undefined ? {} : { contentType: source.contentType }),
      });
      if (format === undefined) throw unsupported(source.fileName);
      return titled(source.title, await converter.convert(source.bytes, format, undefined, signal), titleFromFileName(source.fileName));
    }
    case 'url':
      return loadFetched(await fetchUrl(source.url, fetchLimits(limits), signal), source.title, converter, signal);
    case 'fetched':
      return loadFetched(source.page, undefined, converter, signal);
  }
}

/** The download limits of URL sources, for every fetch (crawled pages, robots.txt, sitemaps too). */
export function fetchLimits(limits: SourceLimits): FetchLimits {
  return { maxBytes: limits.maxSourceBytes, timeoutMs: limits.downloadTimeoutMs, allowPrivateAddresses: limits.allowPrivateUrls };
}

async function loadFetched(
  page: FetchedPage,
  requestedTitle: string | undefined,
  converter: DocumentConverter,
  signal: AbortSignal | undefined,
): Promise<LoadedDocument> {
  const fileName = new URL(page.url).pathname;
  const format = detectFormat(page.bytes, { fileName, ...(page.contentType === undefined ? {} : { contentType: page.contentType }) });
  if (format === undefined) throw unsupported(`${page.url} (${page.contentType ?? 'no content type'})`);
  return titled(requestedTitle, await converter.convert(page.bytes, format, page.url, signal), nameFromUrl(page.url));
}
