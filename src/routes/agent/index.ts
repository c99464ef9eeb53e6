// What the agent routes of every wire format share: the one place that requires the agent, one writer that streams a
// run through a format's encoder (the encoder interface, SSE frames), and the chat message and platform tool schemas.
export type { AgentRouteOptions } from './agent-route-options.js';
export type { AgentStreamEncoder } from './agent-stream-encoder.js';
export { chatMessageSchema } from './chat-message-schema.js';
export { platformToolSchema } from './platform-tool-schema.js';
export { requireAgent } from './require-agent.js';
export { doneFrame, jsonFrame, parseToolArguments } from './sse-frame.js';
export { streamAgentRun } from './stream-agent-run.js';
