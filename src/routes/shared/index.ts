// Request schemas shared by the routes of both variants: the namespace fields and Mastra's wrapping of requests.
export { namespaceFieldSchema, namespaceHolderSchema, namespaceNameSchema } from './namespace-schemas.js';
export { firstNamespace, mastraNamespace, toolExecuteBodySchema, toolExecuteQuerySchema, toolExecutionData } from './mastra-context.js';
export { closedBody } from './closed-body.js';
