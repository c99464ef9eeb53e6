// Parsing token grant lists and matching tokens to namespaces.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findGrant, grantAllows, parseTokenGrants } from '../../src/auth/token-grants.js';

describe('token grants', () => {
  const grants = parseTokenGrants(' tokenA:docs, handbook ; tokenB:* ;');

  const cases: { token: string; namespace: string; allowed: boolean | undefined }[] = [
    { token: 'tokenA', namespace: 'docs', allowed: true },
    { token: 'tokenA', namespace: 'handbook', allowed: true },
    { token: 'tokenA', namespace: 'secret', allowed: false },
    { token: 'tokenB', namespace: 'anything', allowed: true },
    { token: 'tokena', namespace: 'docs', allowed: undefined },
    { token: 'tokenA ', namespace: 'docs', allowed: undefined },
    { token: '', namespace: 'docs', allowed: undefined },
  ];
  for (const { token, namespace, allowed } of cases) {
    it(`${JSON.stringify(token)} on ${namespace}: ${allowed === undefined ? 'unknown token' : allowed ? 'allowed' : 'refused'}`, () => {
      const grant = findGrant(grants, token);
      assert.equal(grant === undefined ? undefined : grantAllows(grant, namespace), allowed);
    });
  }

  it('accepts a colon inside a token (the last colon separates the namespaces)', () => {
    const grant = findGrant(parseTokenGrants('key:with:colons:docs'), 'key:with:colons');
    assert.ok(grant !== undefined && grantAllows(grant, 'docs'));
  });

  for (const invalid of ['', ';', 'tokenOnly', ':docs', 'token:', 'token: , ']) {
    it(`refuses ${JSON.stringify(invalid)}`, () => assert.throws(() => parseTokenGrants(invalid), Error));
  }
});
