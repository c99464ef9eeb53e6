// Bodies whose fields the contract fixes: a field they do not define is a 400 naming it, not silently dropped (a
// `namespace` at the top of a Variant 1 /agent body used to be ignored, and the answer then spoke of another one).
import { z } from 'zod';

/**
 * The object `shape` refusing fields it does not define: `unknown field "namespace" (the fields are thread_id, ...)`,
 * with `hints` saying where a field the caller probably meant belongs.
 */
export function closedBody<Shape extends z.ZodRawShape>(shape: Shape, hints: Readonly<Record<string, string>> = {}) {
  const fields = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      const named = issue.keys.map((key) => JSON.stringify(key)).join(', ');
      const advice = issue.keys.flatMap((key) => (hints[key] === undefined ? [] : [hints[key]]));
      return `unknown field${issue.keys.length === 1 ? '' : 's'} ${named} (the fields are ${fields})${advice.map((hint) => `; ${hint}`).join('')}`;
    },
  });
}
