// The one parser of the sources a request lists, for both variants: each source is checked on its own against its
// variant's schema and becomes an IngestSource, or an InvalidSource labelled `sources[i]`, so a bad source is
// reported without failing the others.
import type { z } from 'zod';
import { KnowledgeError } from '../../errors.js';
import type { CrawlRequest, IngestSource, InvalidSource } from '../../ingest/ingest-source.js';
import { variant1SourceSchema, variant2SourceObjectSchema } from './ingest-schemas.js';

export type SourceEntry = IngestSource | InvalidSource;

/** A source as a request asks for it, whichever variant's shape it came in. */
interface RequestedSource {
  readonly type: 'url' | 'file' | 'text';
  /** The URL, the text, or (a file source without `path`) the path. */
  readonly value?: string | undefined;
  readonly path?: string | undefined;
  readonly title?: string | undefined;
  readonly crawl?: CrawlRequest | undefined;
}

function invalidSource(index: number, message: string): InvalidSource {
  return { kind: 'invalid', label: `sources[${index}]`, error: new KnowledgeError('source_invalid', message) };
}

/** The source as its schema reads it, or the schema's first complaint, naming the field. */
function checked<Schema extends z.ZodType>(schema: Schema, raw: unknown, index: number): z.infer<Schema> | InvalidSource {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return invalidSource(
    index,
    `sources[${index}]${issue?.path.length ? `.${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid source'}`,
  );
}

function isInvalid(value: object): value is InvalidSource {
  return (value as { kind?: unknown }).kind === 'invalid';
}

function toIngestSource(requested: RequestedSource, index: number): SourceEntry {
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

/** Variant 1: `{type: url | file | text, value?, path?, title?, crawl?}`. */
export function variant1Source(raw: unknown, index: number): SourceEntry {
  const source = checked(variant1SourceSchema, raw, index);
  return isInvalid(source) ? source : toIngestSource(source, index);
}

/** An http(s) URL with no whitespace; any other string is text. */
function isWebAddress(text: string): boolean {
  if (/\s/.test(text)) return false;
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Variant 2: a string (an http(s) URL, or text), or `{type: url | markdown | text, value, title?, crawl?}`. */
export function variant2Source(raw: unknown, index: number): SourceEntry {
  if (typeof raw === 'string') return toIngestSource({ type: isWebAddress(raw.trim()) ? 'url' : 'text', value: raw }, index);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return invalidSource(index, `sources[${index}]: must be a string (a URL or text) or an object with type and value`);
  }
  const source = checked(variant2SourceObjectSchema, raw, index);
  if (isInvalid(source)) return source;
  // Markdown is stored as it is, like text.
  return toIngestSource({ ...source, type: source.type === 'url' ? 'url' : 'text' }, index);
}
