// The HTTP layer's public surface for the composition root: the request plumbing, and the routes of each wire format
// (Variant 1 `/tools/...`, Variant 2 `/api/...`, AG-UI and Variant 1 on `/agent`, OpenAI, Mastra, MCP), each from its folder.
export { agentRoute } from './agent-route.js';
export { catalogRoutes } from './catalog-routes.js';
export { healthRoute } from './health-route.js';
export { feedbackRoute, gapsRoutes } from './insights/index.js';
export { sourcesRoutes, webhookRoute } from './sources/index.js';
export { mastraRoutes } from './mastra/index.js';
export { mcpRoute } from './mcp/mcp-route.js';
export { openAiRoutes } from './openai/index.js';
export { playgroundRoute } from './playground-route.js';
export {
  apiReference,
  installAccessControl,
  installEncodedBodyRefusal,
  installErrorHandling,
  installRateLimit,
  installUnreadBodyRelease,
  mayAccess,
  serverOptions,
} from './plumbing/index.js';
export { variant1IngestRoute } from './variant1/ingest-route.js';
export { variant1SearchRoute } from './variant1/search-route.js';
export { generateRoute } from './variant2/generate-route.js';
export { variant2IngestRoute } from './variant2/ingest-route.js';
export { variant2SearchRoute } from './variant2/search-route.js';
