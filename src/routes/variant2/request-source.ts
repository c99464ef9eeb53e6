// Variant 2's source shape, read by the one parser of requested sources (ingest/requested-sources.ts): each source is
// checked on its own, so a bad source is reported without failing the others.
import {
  checkedSource,
  invalidSource,
  isInvalidSource,
  isWebAddress,
  toIngestSource,
  type SourceEntry,
} from '../../ingest/requested-sources.js';
import { variant2SourceObjectSchema } from './ingest-schemas.js';

/** Variant 2: a string (an http(s) URL, or text), or `{type: url | markdown | text, value, title?, crawl?}`. */
export function variant2Source(raw: unknown, index: number): SourceEntry {
  if (typeof raw === 'string') return toIngestSource({ type: isWebAddress(raw.trim()) ? 'url' : 'text', value: raw }, index);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return invalidSource(index, `sources[${index}]: must be a string (a URL or text) or an object with type and value`);
  }
  const source = checkedSource(variant2SourceObjectSchema, raw, index);
  if (isInvalidSource(source)) return source;
  // Markdown is stored as it is, like text.
  return toIngestSource({ ...source, type: source.type === 'url' ? 'url' : 'text' }, index);
}
