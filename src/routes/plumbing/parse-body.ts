// Validates a value against a schema where the route cannot declare it up front; failures name the field.
import type { z } from 'zod';
import { KnowledgeError } from '../../errors.js';

export function describeIssues(error: z.ZodError, prefix = ''): string {
  return error.issues
    .map((issue) => {
      const path = [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.');
      return `${path === '' ? 'body' : path}: ${issue.message}`;
    })
    .join('; ');
}

export function parseBody<Schema extends z.ZodType>(schema: Schema, value: unknown, prefix = ''): z.infer<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new KnowledgeError('invalid_request', describeIssues(parsed.error, prefix));
  return parsed.data;
}
