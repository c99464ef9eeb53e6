// MkDocs' autorefs: `[text][python.path]` and `[text][]` link to an API page the site resolves when it is built
// (Pydantic's docs hold over 800). In text quoted to a reader (answers, previews) they read as their text; an ingested
// page keeps them, because the words of the target help ranking it.
import { codeSpans, cutByCodeSpan } from './code-context.js';

/**
 * `[text][target]` or `[text][]`: the text holds no bracket, the target is a Python name or dotted path
 * (`[class method][classmethod]`, `[Field][pydantic.fields.Field]`), and the `[` does not follow a word, a `]` or a
 * `)`, where it would index something (`rows[i][j]`).
 */
const reference = /(?<![\w\])])\[([^[\]\n]+)\]\[([A-Za-z_][\w.]*)?\]/g;

const isNamePath = (target: string): boolean => !target.endsWith('.') && !target.includes('..');

/** One line of prose with its autorefs read as their text; code spans, and autorefs a code span cuts into, stay. */
export function withoutAutorefTargets(line: string): string {
  if (!line.includes('][')) return line;
  const spans = codeSpans(line);
  return line.replace(reference, (whole: string, text: string, target: string | undefined, offset: number) => {
    if (target !== undefined && !isNamePath(target)) return whole;
    return cutByCodeSpan(spans, offset, offset + whole.length, offset + 1, offset + 1 + text.length) ? whole : text;
  });
}
