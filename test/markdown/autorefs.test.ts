// MkDocs autorefs read as their text where text is quoted to a reader; code, code spans and other brackets stay.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withoutAutorefTargets } from '../../src/markdown/autorefs.js';

describe('withoutAutorefTargets', () => {
  const cases: [name: string, line: string, expected: string][] = [
    ['a dotted target', 'Use [`TypeAdapter`][pydantic.type_adapter.TypeAdapter] here.', 'Use `TypeAdapter` here.'],
    ['an empty target', 'An [`int`][] or a [typing][].', 'An `int` or a typing.'],
    ['a plain name as the target', 'Applied on a [class method][classmethod].', 'Applied on a class method.'],
    ['brackets that index something', 'Set m[i][j] or f(x)[0][k] or a[0][b.c].', 'Set m[i][j] or f(x)[0][k] or a[0][b.c].'],
    ['a target that is no name', 'See [the docs][my-docs] and [x][1].', 'See [the docs][my-docs] and [x][1].'],
    ['brackets inside a code span', 'Write `x[0][obj.attr]` to set it.', 'Write `x[0][obj.attr]` to set it.'],
    ['a code span cutting into the brackets', 'Odd [a `b][c.d]` e].', 'Odd [a `b][c.d]` e].'],
    ['a target ending in a dot', 'Not [this][a.b.] one.', 'Not [this][a.b.] one.'],
    ['two on one line', '[`A`][m.A] and [`B`][m.B]', '`A` and `B`'],
  ];
  for (const [name, line, expected] of cases) it(name, () => assert.equal(withoutAutorefTargets(line), expected));
});
