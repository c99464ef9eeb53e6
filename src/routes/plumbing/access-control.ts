// Authentication as a hook: routes declare `config: { access: 'read' | 'write' }`; the token is checked before the
// body is read (401), and each handler authorizes the namespace it acts on (403) with `authorizeNamespace`. Guessing is
// slowed per client: after `failedTokenLimit.attempts` unknown tokens in its window, a client gets 429 `rate_limited`
// on every route that takes a token, even with a right one, until the window has passed.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authorize, type AccessKind, type AccessPolicy, type Credential } from '../../auth/access-policy.js';
import { KnowledgeError } from '../../errors.js';
import { sanitizeNamespace, type NamespaceName } from '../../store/namespace-name.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: AccessKind;
  }
  interface FastifyRequest {
    credential: Credential | null;
    /** Checks the request's token for another kind of access (the MCP endpoint reads, and its ingest tool writes). */
    authenticateAs: ((kind: AccessKind) => Promise<Credential>) | null;
  }
}

/**
 * Unknown tokens a client (its address; IPv6 by /64) may present in a window. A right token is never counted, nor is
 * a known token on a route it does not open (a read token on a write route): only guesses are.
 */
export const failedTokenLimit = { attempts: 20, windowMs: 5 * 60_000 } as const;

/** Thrown while a client is refused for its failed tokens; the hook also sends Retry-After. */
class GuessingRefused extends KnowledgeError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'rate_limited',
      `too many unknown tokens from this client (${failedTokenLimit.attempts} in ${failedTokenLimit.windowMs / 60_000} minutes): every token is refused until the window has passed; retry in ${retryAfterSeconds} s`,
    );
  }
}

/** Needs the rate-limit plugin registered first (installRateLimit), whose store and client keys it shares. */
export function installAccessControl(app: FastifyInstance, policy: AccessPolicy): void {
  const failedTokens = app.createRateLimit({ max: failedTokenLimit.attempts, timeWindow: failedTokenLimit.windowMs });

  async function authenticate(request: FastifyRequest, kind: AccessKind): Promise<Credential> {
    if (policy.isOpen(kind)) return { kind: 'open' };
    const seen = await failedTokens(request, { increment: false });
    if (!seen.isAllowed && seen.remaining === 0) throw new GuessingRefused(seen.ttlInSeconds);
    try {
      return policy.authenticate(kind, request.headers);
    } catch (error) {
      if (policy.isUnknownToken(request.headers)) {
        const counted = await failedTokens(request);
        if (!counted.isAllowed && counted.remaining === 0 && !counted.isExceeded) {
          request.log.warn(
            { client: counted.key },
            'too many unknown tokens from this client: its tokens are refused for the rest of the window',
          );
        }
      }
      throw error;
    }
  }

  app.decorateRequest('credential', null);
  app.decorateRequest('authenticateAs', null);
  app.addHook('onRequest', async (request, reply) => {
    const access = request.routeOptions.config.access;
    if (access === undefined) return;
    request.authenticateAs = (kind) => authenticate(request, kind);
    try {
      request.credential = await authenticate(request, access);
    } catch (error) {
      if (error instanceof GuessingRefused) reply.header('retry-after', error.retryAfterSeconds);
      throw error;
    }
  });
}

/** Whether the request's token covers the namespace (for listings, which leave out what it may not see). */
export function mayAccess(request: FastifyRequest, namespace: string): boolean {
  if (request.credential === null) return true;
  try {
    authorize(request.credential, namespace);
    return true;
  } catch {
    return false;
  }
}

/** Sanitizes the namespace a request acts on and checks that the request's token covers it; returns the sanitized name. */
export function authorizeNamespace(request: FastifyRequest, requestedNamespace: string, field = 'namespace'): NamespaceName {
  const namespace = sanitizeNamespace(requestedNamespace, field);
  if (request.credential !== null) authorize(request.credential, namespace);
  return namespace;
}

/**
 * For a route declared `access: 'read'` that also writes (the MCP endpoint's ingest tool): checks the request's token
 * as a write token (401, counted as a failed token when no list knows it) and that it covers the namespace (403);
 * returns the sanitized name.
 */
export async function authorizeNamespaceForWriting(request: FastifyRequest, requestedNamespace: string): Promise<NamespaceName> {
  const namespace = sanitizeNamespace(requestedNamespace);
  if (request.authenticateAs === null) throw new Error('authorizeNamespaceForWriting needs a route that declares its access');
  authorize(await request.authenticateAs('write'), namespace);
  return namespace;
}
