// The namespace as every request names it (body, query or path), for the routes of both variants.
import { z } from 'zod';
import { maxNamespaceLength, namespaceNamePattern } from '../../store/namespace-name.js';

/**
 * A namespace as a request names it. Only the length of the text is checked here; `sanitizeNamespace` (through
 * `authorizeNamespace`) removes the other characters and answers 400 `invalid_namespace` when 0 or more than 64
 * letters, digits, - and _ remain. The pattern states that rule in the API reference.
 */
export const namespaceNameSchema = z
  .string()
  .max(200)
  .meta({
    pattern: namespaceNamePattern,
    description:
      `Namespace: letters, digits, - and _ are kept, other characters removed; 1 to ${maxNamespaceLength} must remain (never cut short), ` +
      'otherwise 400 `invalid_namespace`.',
  });

/** The namespace field of every request body or query: the default namespace when left out. */
export const namespaceFieldSchema = namespaceNameSchema
  .optional()
  .describe(
    `Namespace: letters, digits, - and _ are kept, other characters removed; 1 to ${maxNamespaceLength} must remain (never cut short), ` +
      'otherwise 400 `invalid_namespace`. KNOWLEDGE_AGENT_DEFAULT_NAMESPACE when left out.',
  );

/** An object holding a namespace (`toolParams`, `tool_params`): other fields are kept and not used. */
export const namespaceHolderSchema = z.object({ namespace: namespaceFieldSchema }).loose();
