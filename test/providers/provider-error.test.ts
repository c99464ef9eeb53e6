// Which provider failures are temporary (worth storing a document without embeddings, to embed it later) and which not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as sdk from 'openai';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { toProviderError } from '../../src/providers/provider-error.js';

describe('toProviderError', () => {
  it('marks a provider that is down as temporary, and a refusal or a malformed answer as not', () => {
    const cases: [string, unknown, boolean][] = [
      ['unreachable', new APIConnectionError({ message: 'Connection error.' }), true],
      ['timed out', new APIConnectionTimeoutError(), true],
      ...[408, 429, 500, 502, 503].map((status): [string, unknown, boolean] => [
        `HTTP ${status}`,
        APIError.generate(status, undefined, 'failed', new Headers()),
        true,
      ]),
      ...[400, 401, 403, 404, 422].map((status): [string, unknown, boolean] => [
        `HTTP ${status}`,
        APIError.generate(status, undefined, 'refused', new Headers()),
        false,
      ]),
      ['a malformed answer', new Error('expected 3 embeddings, got 2'), false],
    ];
    for (const [name, error, temporary] of cases) {
      const converted = toProviderError(error, 'embedding_failed', 'sk-secret', sdk);
      assert.equal(converted.code, 'embedding_failed', name);
      assert.equal(converted.temporary, temporary, name);
    }
  });
});
