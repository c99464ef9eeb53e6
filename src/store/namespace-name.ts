// Namespace names: letters, digits, - and _ only; anything else is removed, so a name can never leave the storage root.
// A name is never cut short: two long names that shared a prefix would otherwise end up in one namespace.
import { KnowledgeError } from '../errors.js';

export const maxNamespaceLength = 64;

declare const validNamespaceName: unique symbol;

/**
 * A namespace name that has been through `sanitizeNamespace`: made once where a request, the configuration or storage
 * names a namespace, and taken as it is by every service and the store below that point.
 */
export type NamespaceName = string & { readonly [validNamespaceName]: true };

/**
 * The rule `sanitizeNamespace` enforces, as a regular expression over the name as sent: between 1 and 64 letters,
 * digits, - or _, with any other characters around them (they are removed). For the API reference.
 */
export const namespaceNamePattern = `^[^A-Za-z0-9_-]*(?:[A-Za-z0-9_-][^A-Za-z0-9_-]*){1,${maxNamespaceLength}}$`;

/** Whether `text` is a namespace name as sanitizing leaves one (a folder's name, a notification's payload). */
export function isNamespaceName(text: string): text is NamespaceName {
  return text.length <= maxNamespaceLength && /^[A-Za-z0-9_-]+$/.test(text);
}

/** Sanitizes a requested namespace; an empty or over-long result is an `invalid_namespace` error naming the field. */
export function sanitizeNamespace(requested: string, field = 'namespace'): NamespaceName {
  const name = requested.replace(/[^A-Za-z0-9_-]/g, '');
  if (name === '') {
    throw new KnowledgeError('invalid_namespace', `${field}: ${JSON.stringify(requested)} has no letters, digits, - or _`);
  }
  if (name.length > maxNamespaceLength) {
    const shown = requested.length > 80 ? `${JSON.stringify(requested.slice(0, 80))}…` : JSON.stringify(requested);
    throw new KnowledgeError(
      'invalid_namespace',
      `${field}: ${shown} has ${name.length} letters, digits, - and _; at most ${maxNamespaceLength} are allowed`,
    );
  }
  return name as NamespaceName;
}
