// The search resource: one search of a namespace, with an adapter per wire format (Variant 1 `/tools/search`;
// Variant 2 `/api/tools/searchDocs` and its Mastra tool executions).
export type { SearchRouteOptions } from './search-namespace.js';
export { searchDocsBodySchema, searchDocsResultSchema } from './search-schemas.js';
export { variant1SearchRoute } from './variant1-search-route.js';
export { variant2SearchRoute } from './variant2-search-route.js';
