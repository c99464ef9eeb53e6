// The ingest resource: one parser of request sources, with an adapter per wire format (Variant 1 `/tools/ingest`;
// Variant 2 `/api/tools/ingest` with uploads, and its Mastra tool execution).
export type { IngestRouteOptions } from './ingest-route-options.js';
export { variant2IngestBodyDocumentation } from './ingest-schemas.js';
export { variant1IngestRoute } from './variant1-ingest-route.js';
export { variant2IngestRoute } from './variant2-ingest-route.js';
