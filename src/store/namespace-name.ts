// Namespace names: letters, digits, - and _ only; anything else is removed, so a name can never leave the storage root.
import { KnowledgeError } from '../errors.js';

const maxNamespaceLength = 64;

/** Sanitizes a requested namespace; an empty result is an `invalid_namespace` error. */
export function sanitizeNamespace(requested: string): string {
  const name = requested.replace(/[^A-Za-z0-9_-]/g, '').slice(0, maxNamespaceLength);
  if (name === '') {
    throw new KnowledgeError('invalid_namespace', `namespace: ${JSON.stringify(requested)} has no letters, digits, - or _`);
  }
  return name;
}
