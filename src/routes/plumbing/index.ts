// Request plumbing shared by every endpoint: server options, the access hook, error mapping, the rate limit, body
// parsing (JSON schemas and multipart forms), the API reference, and the writers of streamed answers (SSE, NDJSON).
export { authorizeNamespace, authorizeNamespaceForWriting, installAccessControl, mayAccess } from './access-control.js';
export { abortedWhenClientLeaves } from './client-abort.js';
export { installEncodedBodyRefusal } from './encoded-body.js';
export { installErrorHandling, knownFailure, toKnowledgeError } from './error-handler.js';
export { readMultipartForm, multipartOptions, type FormFile, type MultipartLimits } from './multipart.js';
export { apiReference, errorBodySchema, jsonSuccess, type RouteDocumentation } from './openapi.js';
export { parseBody } from './parse-body.js';
export { progressQuerySchema, respondWithProgress } from './progress-stream.js';
export { declareRoutesFree, installRateLimit, type SpendBudget } from './rate-limit.js';
export { serverOptions } from './server-options.js';
export { openSseStream } from './sse-stream.js';
export { installUnreadBodyRelease } from './unread-body.js';
