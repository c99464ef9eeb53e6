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
