// Content hashes identify a document's Markdown body for de-duplication.
import { createHash } from 'node:crypto';

export function contentHash(body: string): string {
  return `sha256:${createHash('sha256').update(body.trim(), 'utf8').digest('hex')}`;
}
