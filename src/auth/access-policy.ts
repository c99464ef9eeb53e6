// Who may read and write which namespaces: bearer tokens (or X-API-Key) checked against the configured grants.
import type { IncomingHttpHeaders } from 'node:http';
import { KnowledgeError } from '../errors.js';
import { findGrant, grantAllows, type TokenGrant, type TokenGrants } from './token-grants.js';

/** `metrics`: the /metrics scrape, which the metrics token may make too (seeing every namespace). */
export type AccessKind = 'read' | 'write' | 'metrics';

/** What a request proved: nothing needed (open mode), or a token's grants. */
export type Credential = { readonly kind: 'open' } | { readonly kind: 'token'; readonly grants: readonly TokenGrant[] };

function presentedToken(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1] !== undefined) return match[1];
  }
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey.trim() !== '' ? apiKey.trim() : undefined;
}

export class AccessPolicy {
  constructor(
    private readonly writeTokens: TokenGrants | undefined,
    private readonly readTokens: TokenGrants | undefined,
    /** The scrape token: it may make the `metrics` request only, and sees every namespace there. */
    private readonly metricsTokens: TokenGrants | undefined = undefined,
  ) {}

  /** True when anyone may do this kind of request. */
  isOpen(kind: AccessKind): boolean {
    if (kind === 'write') return this.writeTokens === undefined;
    if (kind === 'metrics') return this.readTokens === undefined && this.metricsTokens === undefined;
    return this.readTokens === undefined;
  }

  /** Checks the request's token; 401 when tokens are required and it is missing or unknown. */
  authenticate(kind: AccessKind, headers: IncomingHttpHeaders): Credential {
    if (this.isOpen(kind)) return { kind: 'open' };
    const token = presentedToken(headers);
    if (token === undefined) {
      throw new KnowledgeError('unauthorized', 'this route needs a token: send Authorization: Bearer <token> or X-API-Key: <token>');
    }
    // A write token may also read the namespaces it may write.
    const candidates =
      kind === 'write'
        ? [this.writeTokens]
        : kind === 'read'
          ? [this.readTokens, this.writeTokens]
          : [this.metricsTokens, this.readTokens, this.writeTokens];
    const grants = candidates
      .flatMap((list) => (list === undefined ? [] : [findGrant(list, token)]))
      .filter((grant) => grant !== undefined);
    if (grants.length === 0) throw new KnowledgeError('unauthorized', 'the token is not valid for this route');
    return { kind: 'token', grants };
  }

  /** True when the request presents a token that no list holds: a guess (a known token on the wrong route is not). */
  isUnknownToken(headers: IncomingHttpHeaders): boolean {
    const token = presentedToken(headers);
    if (token === undefined) return false;
    return [this.writeTokens, this.readTokens, this.metricsTokens].every(
      (list) => list === undefined || findGrant(list, token) === undefined,
    );
  }
}

/** 403 when the credential does not cover the (already sanitized) namespace. */
export function authorize(credential: Credential, namespace: string): void {
  if (credential.kind === 'open') return;
  if (!credential.grants.some((grant) => grantAllows(grant, namespace))) {
    throw new KnowledgeError('forbidden', `the token does not grant access to the namespace "${namespace}"`);
  }
}
