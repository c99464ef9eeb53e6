// Where each document of a namespace came from (GET /tools/documents), so a citation can show its original source
// (URL or uploaded file name) and not only its stored file name. Cached per namespace until the next ingest.
import type { ApiClient } from './api-client.js';
import type { DocumentSummary } from './api-types.js';

export class DocumentIndex {
  private readonly listings = new Map<string, Promise<Map<string, DocumentSummary>>>();

  constructor(private readonly api: ApiClient) {}

  /** The document stored as `file`, or undefined when it cannot be listed (unknown, or no read access). */
  async lookup(namespace: string, file: string): Promise<DocumentSummary | undefined> {
    let listing = this.listings.get(namespace);
    if (listing === undefined) {
      listing = this.api.documents(namespace).then(
        (documents) => new Map(documents.map((document) => [document.file, document])),
        () => new Map<string, DocumentSummary>(),
      );
      this.listings.set(namespace, listing);
    }
    const found = (await listing).get(file);
    // A document ingested since the listing was loaded: load it again next time.
    if (found === undefined) this.listings.delete(namespace);
    return found;
  }

  forget(namespace: string): void {
    this.listings.delete(namespace);
  }
}
