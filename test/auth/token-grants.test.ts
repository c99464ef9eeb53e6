// Parsing token grant lists and matching tokens to namespaces.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findGrant, grantAllows, parseTokenGrants } from '../../src/auth/token-grants.js';

describe('token grants', () => {
  const grants = parseTokenGrants(' token-a-for-tests:docs, handbook ; token-b-for-tests:* ;');

  const cases: { token: string; namespace: string; allowed: boolean | undefined }[] = [
    { token: 'token-a-for-tests', namespace: 'docs', allowed: true },
    { token: 'token-a-for-tests', namespace: 'handbook', allowed: true },
    { token: 'token-a-for-tests', namespace: 'secret', allowed: false },
    { token: 'token-b-for-tests', namespace: 'anything', allowed: true },
    { token: 'token-A-for-tests', namespace: 'docs', allowed: undefined },
    { token: 'token-a-for-tests ', namespace: 'docs', allowed: undefined },
    { token: '', namespace: 'docs', allowed: undefined },
  ];
  for (const { token, namespace, allowed } of cases) {
    it(`${JSON.stringify(token)} on ${namespace}: ${allowed === undefined ? 'unknown token' : allowed ? 'allowed' : 'refused'}`, () => {
      const grant = findGrant(grants, token);
      assert.equal(grant === undefined ? undefined : grantAllows(grant, namespace), allowed);
    });
  }

  it('accepts a colon inside a token (the last colon separates the namespaces)', () => {
    const grant = findGrant(parseTokenGrants('key:with:colons:0123456789:docs'), 'key:with:colons:0123456789');
    assert.ok(grant !== undefined && grantAllows(grant, 'docs'));
  });

  for (const invalid of ['', ';', 'tokenOnly', ':docs', 'token:', 'token: , ', 'fifteen-chars-x:docs', 'token-a-for-tests:docs;short:*']) {
    it(`refuses ${JSON.stringify(invalid)}`, () => assert.throws(() => parseTokenGrants(invalid), Error));
  }
});
