// The one place the HTTP layer checks that the agent can answer: a preValidation hook, so the 503 comes before
// validation (without a provider nothing the body says can be answered).
import type { preValidationAsyncHookHandler } from 'fastify';
import type { AgentService } from '../../agent/agent-service.js';

export function requireAgent(agent: AgentService): preValidationAsyncHookHandler {
  return async () => agent.assertAvailable();
}
