// Secrets (access tokens, webhook secrets) compared in constant time: as SHA-256 digests, which have one length
// whatever the secret's, so neither the comparison nor a length check tells a caller how close a guess was.
import { createHash, timingSafeEqual } from 'node:crypto';

export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Whether `given` equals the digest of a known secret, in constant time. */
export function matchesDigest(given: string, digest: Buffer): boolean {
  return timingSafeEqual(secretDigest(given), digest);
}
