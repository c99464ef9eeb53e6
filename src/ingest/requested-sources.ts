// The sources one request may ask for, whichever door it comes through (the HTTP ingest routes of both variants, the
// MCP ingest tool): the per-request limits, and the one mapping of a requested source to an IngestSource, or to an
// InvalidSource labelled `sources[i]`, so that a bad source is reported without failing the others.
import { z } from 'zod';
import { KnowledgeError } from '../errors.js';
import type { CrawlRequest, IngestSource, InvalidSource } from './ingest-source.js';

/** Sources one request may list (uploads aside). */
export const maxSourcesPerRequest = 100;

/** The title a request may give a source. */
export const sourceTitleSchema = z.string().max(500);

/** `crawl` on a URL source, and its bounds: a CrawlRequest. */
export const crawlRequestSchema = z.object({
  maxPages: z.number().int().min(1).max(1_000).default(50).describe('Pages fetched at most.'),
  maxDepth: z.number().int().min(0).max(10).default(2).describe('Links followed from the start URL, at most.'),
  prune: z
    .boolean()
    .default(false)
    .describe('After a complete crawl, remove the documents of pages under the crawled folder it no longer reached.'),
});

export type SourceEntry = IngestSource | InvalidSource;

/** A source as a request asks for it, whichever wire format's shape it came in. */
export interface RequestedSource {
  readonly type: 'url' | 'file' | 'text';
  /** The URL, the text, or (a file source without `path`) the path. */
  readonly value?: string | undefined;
  readonly path?: string | undefined;
  readonly title?: string | undefined;
  readonly crawl?: CrawlRequest | undefined;
}

export function invalidSource(index: number, message: string): InvalidSource {
  return { kind: 'invalid', label: `sources[${index}]`, error: new KnowledgeError('source_invalid', message) };
}

/** The source as its schema reads it, or the schema's first complaint, naming the field. */
export function checkedSource<Schema extends z.ZodType>(schema: Schema, raw: unknown, index: number): z.infer<Schema> | InvalidSource {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return invalidSource(
    index,
    `sources[${index}]${issue?.path.length ? `.${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid source'}`,
  );
}

export function isInvalidSource(value: object): value is InvalidSource {
  return (value as { kind?: unknown }).kind === 'invalid';
}

export function toIngestSource(requested: RequestedSource, index: number): SourceEntry {
  const { type, value, path, title, crawl } = requested;
  const titled = title === undefined ? {} : { title };
  switch (type) {
    case 'url':
      return value === undefined || value.trim() === ''
        ? invalidSource(index, `sources[${index}].value: a url source needs the URL in value`)
        : { kind: 'url', url: value.trim(), ...titled, ...(crawl === undefined ? {} : { crawl }) };
    case 'file': {
      const filePath = path ?? value;
      return filePath === undefined || filePath.trim() === ''
        ? invalidSource(index, `sources[${index}].path: a file source needs an absolute path`)
        : { kind: 'file', path: filePath, ...titled };
    }
    case 'text':
      return value === undefined
        ? invalidSource(index, `sources[${index}].value: a text source needs the text in value`)
        : { kind: 'text', text: value, ...titled };
  }
}

/** An http(s) URL with no whitespace; any other string is text. */
export function isWebAddress(text: string): boolean {
  if (/\s/.test(text)) return false;
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
