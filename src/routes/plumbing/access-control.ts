// Authentication as a hook: routes declare `config: { access: 'read' | 'write' }`; the token is checked before the
// body is read (401), and each handler authorizes the namespace it acts on (403) with `authorizeNamespace`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authorize, type AccessKind, type AccessPolicy, type Credential } from '../../auth/access-policy.js';
import { sanitizeNamespace } from '../../store/namespace-name.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: AccessKind;
  }
  interface FastifyRequest {
    credential: Credential | null;
    /** The policy, for routes that act with more than one kind of access (the MCP endpoint reads and writes). */
    accessPolicy: AccessPolicy | null;
  }
}

export function installAccessControl(app: FastifyInstance, policy: AccessPolicy): void {
  app.decorateRequest('credential', null);
  app.decorateRequest('accessPolicy', null);
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (access === undefined) return;
    request.accessPolicy = policy;
    request.credential = policy.authenticate(access, request.headers);
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
export function authorizeNamespace(request: FastifyRequest, requestedNamespace: string, field = 'namespace'): string {
  const namespace = sanitizeNamespace(requestedNamespace, field);
  if (request.credential !== null) authorize(request.credential, namespace);
  return namespace;
}

/**
 * For a route declared `access: 'read'` that also writes (the MCP endpoint's ingest tool): checks the request's token
 * as a write token (401) and that it covers the namespace (403); returns the sanitized name.
 */
export function authorizeNamespaceForWriting(request: FastifyRequest, requestedNamespace: string): string {
  const namespace = sanitizeNamespace(requestedNamespace);
  if (request.accessPolicy === null) throw new Error('authorizeNamespaceForWriting needs a route that declares its access');
  authorize(request.accessPolicy.authenticate('write', request.headers), namespace);
  return namespace;
}
