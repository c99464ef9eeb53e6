// Parses token grant lists ("tokenA:docs,handbook;tokenB:*") and answers which namespaces a token may use.
import { matchesDigest, secretDigest } from './secret-digest.js';

export interface TokenGrant {
  /** SHA-256 of the token, so lookups compare fixed-length digests in constant time. */
  readonly digest: Buffer;
  /** Namespaces this token may use; `*` grants all. */
  readonly namespaces: ReadonlySet<string>;
}

export type TokenGrants = readonly TokenGrant[];

/** Characters a token has at least: 16 random ones are out of reach of guessing, even unthrottled. */
export const minimumTokenLength = 16;

/** Throws an Error whose message says what is wrong with the list (never quoting a token). */
export function parseTokenGrants(text: string): TokenGrants {
  const grants: TokenGrant[] = [];
  const entries = text
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const [index, entry] of entries.entries()) {
    const separator = entry.lastIndexOf(':');
    const token = separator === -1 ? '' : entry.slice(0, separator).trim();
    const namespaces =
      separator === -1
        ? []
        : entry
            .slice(separator + 1)
            .split(',')
            .map((name) => name.trim())
            .filter((name) => name !== '');
    if (token === '' || namespaces.length === 0) {
      throw new Error('each entry must be token:namespace[,namespace...] (or token:*), entries separated by ;');
    }
    if (token.length < minimumTokenLength) {
      throw new Error(
        `the token of entry ${index + 1} is shorter than ${minimumTokenLength} characters (generate one with \`openssl rand -hex 24\`)`,
      );
    }
    grants.push({ digest: secretDigest(token), namespaces: new Set(namespaces) });
  }
  if (grants.length === 0) throw new Error('no token entries found');
  return grants;
}

/** A grant of every namespace to one token. */
export function grantAll(token: string): TokenGrants {
  return [{ digest: secretDigest(token), namespaces: new Set(['*']) }];
}

/** The grant of a presented token, compared in constant time against every known token. */
export function findGrant(grants: TokenGrants, token: string): TokenGrant | undefined {
  let found: TokenGrant | undefined;
  for (const grant of grants) {
    if (matchesDigest(token, grant.digest)) found = grant;
  }
  return found;
}

export function grantAllows(grant: TokenGrant, namespace: string): boolean {
  return grant.namespaces.has('*') || grant.namespaces.has(namespace);
}
