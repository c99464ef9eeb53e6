// Namespace names: sanitizing removes what a name may not hold and refuses what is left empty or too long, naming the
// field; a text is a namespace name exactly when sanitizing would leave it as it is.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isNamespaceName, maxNamespaceLength, sanitizeNamespace } from '../../src/store/namespace-name.js';

describe('sanitizeNamespace', () => {
  it('keeps letters, digits, - and _, and removes anything else', () => {
    assert.equal(sanitizeNamespace('team-docs_2'), 'team-docs_2');
    assert.equal(sanitizeNamespace('../team.docs/ v2'), 'teamdocsv2');
  });

  it('refuses a name left empty or too long, naming the field', () => {
    assert.throws(() => sanitizeNamespace('../..', 'tool_params.namespace'), {
      code: 'invalid_namespace',
      message: /^tool_params\.namespace: "\.\.\/\.\." has no letters, digits, - or _$/,
    });
    assert.throws(() => sanitizeNamespace('a'.repeat(maxNamespaceLength + 1)), {
      code: 'invalid_namespace',
      message: /has 65 letters, digits, - and _; at most 64 are allowed/,
    });
  });
});

describe('isNamespaceName', () => {
  const texts = ['docs', 'team-docs_2', 'a'.repeat(maxNamespaceLength), 'a'.repeat(maxNamespaceLength + 1), '', 'team.docs', '../x', 'ü'];
  for (const text of texts) {
    it(`agrees with sanitizing for ${JSON.stringify(text.length > 20 ? `${text.slice(0, 8)}… (${text.length})` : text)}`, () => {
      let unchanged: boolean;
      try {
        unchanged = sanitizeNamespace(text) === text;
      } catch {
        unchanged = false;
      }
      assert.equal(isNamespaceName(text), unchanged);
    });
  }
});
