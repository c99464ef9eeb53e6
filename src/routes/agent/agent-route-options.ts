// What the agent routes of every wire format need.
import type { AgentService } from '../../agent/agent-service.js';

export interface AgentRouteOptions {
  readonly agent: AgentService;
  readonly defaultNamespace: string;
}
