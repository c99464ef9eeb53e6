// Variant 1's source shape, read by the one parser of requested sources (ingest/requested-sources.ts): each source is
// checked on its own, so a bad source is reported without failing the others.
import { checkedSource, isInvalidSource, toIngestSource, type SourceEntry } from '../../ingest/requested-sources.js';
import { variant1SourceSchema } from './ingest-schemas.js';

/** Variant 1: `{type: url | file | text, value?, path?, title?, crawl?}`. */
export function variant1Source(raw: unknown, index: number): SourceEntry {
  const source = checkedSource(variant1SourceSchema, raw, index);
  return isInvalidSource(source) ? source : toIngestSource(source, index);
}
