// What the ingest routes of every wire format need.
import type { IngestService } from '../../ingest/ingest-service.js';

export interface IngestRouteOptions {
  readonly ingest: IngestService;
  readonly defaultNamespace: string;
  /** Bytes per uploaded file (larger ones are reported per source). */
  readonly maxSourceBytes: number;
  /** Bytes of a whole multipart request (larger ones are a 413). */
  readonly maxBodyBytes: number;
}
