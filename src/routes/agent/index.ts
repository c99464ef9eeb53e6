// The agent resource: one place that requires the agent, one writer that streams a run in any wire format, and the
// adapters of Variant 1 and AG-UI (`/agent`) and Variant 2 (`/api/agents/knowledge/generate`). The OpenAI and Mastra
// routes stream their answers through the same writer.
export type { AgentRouteOptions } from './agent-route-options.js';
export { agentRoute } from './agent-route.js';
export { generateBodySchema } from './agent-schemas.js';
export { chatMessageSchema } from './chat-message-schema.js';
export { generateRoute } from './generate-route.js';
export { requireAgent } from './require-agent.js';
export { streamAgentRun } from './stream-agent-run.js';
export { variant2AnswerFormat } from './variant2-answer-format.js';
