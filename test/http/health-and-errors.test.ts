// GET /health and the shape of errors for unknown routes and unsupported content types.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../support/service.js';

describe('health and errors', () => {
  let service: TestService;
  before(async () => {
    service = await startService({ apiKey: undefined });
  });
  after(async () => {
    await service.dispose();
  });

  it('GET /health answers healthy with the version and namespaces', async () => {
    await service.post('/tools/ingest', { namespace: 'alpha', sources: [{ type: 'text', value: 'x y z', title: 'A' }] });
    const response = await fetch(`${service.baseUrl}/health`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { status: string; version: string; namespaces: string[] };
    assert.equal(body.status, 'healthy');
    assert.match(body.version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(body.namespaces, ['alpha']);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const response = await fetch(`${service.baseUrl}/no/such/route?x=1`);
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), { error: { code: 'not_found', message: 'no route GET /no/such/route' } });
  });

  it('answers an unsupported content type with a JSON 415', async () => {
    const response = await fetch(`${service.baseUrl}/tools/search`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<q/>' });
    assert.equal(response.status, 415);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'unsupported_media_type');
  });

  it('answers an oversized body with a JSON 413', async () => {
    const response = await service.post('/tools/ingest', { sources: [{ type: 'text', value: 'x'.repeat(9_000_000) }] });
    assert.equal(response.status, 413);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'payload_too_large');
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After once a client exceeds the ingest limit, and leaves search alone', async () => {
    const service = await startService({ apiKey: undefined, environment: { KNOWLEDGE_AGENT_RATE_LIMIT: '2' } });
    try {
      const ingest = () => service.post('/tools/ingest', { sources: [{ type: 'text', value: `limited ${Math.random()}` }] });
      assert.equal((await ingest()).status, 200);
      assert.equal((await ingest()).status, 200);
      const limited = await ingest();
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      assert.equal(((await limited.json()) as { error: { code: string } }).error.code, 'rate_limited');
      for (let attempt = 0; attempt < 4; attempt++) {
        assert.equal((await service.post('/api/tools/searchDocs', { query: 'limited' })).status, 200);
      }
    } finally {
      await service.dispose();
    }
  });
});
