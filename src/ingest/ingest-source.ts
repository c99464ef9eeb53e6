// A source to ingest, after the HTTP layer has validated and normalized its request shape.
import type { KnowledgeError } from '../errors.js';
import type { FetchedPage } from './fetch-url.js';

/** Follow a site's links from a URL source: same origin, under the start URL's folder. */
export interface CrawlRequest {
  readonly maxPages: number;
  readonly maxDepth: number;
  /** After a complete crawl, remove the documents of pages in the crawled scope that were not found again. */
  readonly prune: boolean;
}

export type IngestSource =
  | { readonly kind: 'url'; readonly url: string; readonly title?: string; readonly crawl?: CrawlRequest }
  /** A page a crawl already downloaded. */
  | { readonly kind: 'fetched'; readonly page: FetchedPage }
  | { readonly kind: 'file'; readonly path: string; readonly title?: string }
  | { readonly kind: 'text'; readonly text: string; readonly title?: string }
  /**
   * `fileName` is the path the file was uploaded with (see upload-path.ts), `folder` its folders; `publicUrl`, when
   * the upload named the site the files are published on, the page's URL, which then names the document instead.
   */
  | {
      readonly kind: 'upload';
      readonly fileName: string;
      readonly folder?: string;
      readonly publicUrl?: string;
      readonly contentType?: string;
      readonly bytes: Buffer;
      readonly title?: string;
    };

/** A request entry that failed validation: reported at its position, never fetched. */
export interface InvalidSource {
  readonly kind: 'invalid';
  readonly label: string;
  readonly error: KnowledgeError;
}

/** How a source is named in responses and recorded as the document's `source`. */
export function describeSource(source: IngestSource | InvalidSource): string {
  switch (source.kind) {
    case 'invalid':
      return source.label;
    case 'url':
      return source.url;
    case 'fetched':
      return source.page.url;
    case 'file':
      return source.path;
    case 'upload':
      return source.publicUrl ?? source.fileName;
    case 'text':
      return 'text';
  }
}
