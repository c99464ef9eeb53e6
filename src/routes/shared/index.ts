// What the routes of both variants share: the namespace fields, the search query, one search of a namespace, and
// Mastra's wrapping of requests.
export { namespaceFieldSchema, namespaceHolderSchema, namespaceNameSchema } from './namespace-schemas.js';
export { firstNamespace, mastraNamespace, toolExecuteBodySchema, toolExecuteQuerySchema, toolExecutionData } from './mastra-context.js';
export { closedBody } from './closed-body.js';
export { searchNamespace, type SearchRouteOptions } from './search-namespace.js';
export { searchModeSchema, searchQuerySchema } from './search-schemas.js';
export type { IngestRouteOptions } from './ingest-route-options.js';
export {
  crawlSchema,
  ingestSuccess,
  perSourceErrorFields,
  replacedDocumentSchema,
  storedStatusSchema,
  storedWarningSchema,
} from './ingest-schemas.js';
