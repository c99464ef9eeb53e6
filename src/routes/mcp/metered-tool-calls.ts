// The MCP endpoint is no way around the request budget: each call of a metered tool (see toolCallIsMetered) spends one
// from its client's budget before the server sees it, each call of a JSON-RPC batch on its own. A call over budget is
// answered with a JSON-RPC error that says when to retry, and its tool never runs; the other calls go on.
// Types only from the SDK: the /mcp route imports this at start-up and loads the SDK itself on the first request.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/** The JSON-RPC error code of a call refused for its client's budget: a server error of ours, 429's digits. */
export const rateLimitedErrorCode = -32029;

/** Why a call was refused, and when its client may try again. */
export interface CallRefusal {
  readonly retryAfterSeconds: number;
  /** `rate_limited: ...`, as a tool error names its code. */
  readonly message: string;
}

export interface ToolCallMeter {
  isMetered(toolName: string): boolean;
  /** Spends one from the caller's budget; a refusal when it is spent. */
  spend(): Promise<CallRefusal | undefined>;
  logError(error: unknown): void;
}

/** JSON-RPC's code for an internal error. */
const internalErrorCode = -32603;

/** A tools/call request (a request has an id; a notification has none), or undefined. */
function toolCall(message: JSONRPCMessage): JSONRPCRequest | undefined {
  return 'method' in message && message.method === 'tools/call' && 'id' in message ? message : undefined;
}

/** Puts the meter between a connected transport and its server. */
export function meterToolCalls(transport: Transport, meter: ToolCallMeter): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) throw new Error('meterToolCalls needs a transport its server is connected to');
  // A batch's calls spend one after the other: the budget's store answers a spend with its live count, so spends
  // started together would all read the count of the last one.
  let spending: Promise<unknown> = Promise.resolve();
  transport.onmessage = (message, extra) => {
    const call = toolCall(message);
    const toolName = call?.params?.name;
    if (call === undefined || !meter.isMetered(typeof toolName === 'string' ? toolName : '')) {
      deliver(message, extra);
      return;
    }
    const { id } = call;
    const spent = spending.then(() => meter.spend());
    spending = spent.catch(() => undefined);
    spent
      .then(async (refusal) => {
        if (refusal === undefined) return deliver(message, extra);
        await transport.send({
          jsonrpc: '2.0',
          id,
          error: {
            code: rateLimitedErrorCode,
            message: refusal.message,
            data: { code: 'rate_limited', retryAfterSeconds: refusal.retryAfterSeconds },
          },
        });
      })
      .catch(async (error: unknown) => {
        meter.logError(error);
        await transport.send({
          jsonrpc: '2.0',
          id,
          error: { code: internalErrorCode, message: 'internal_error: an unexpected error occurred' },
        });
      });
  };
}
