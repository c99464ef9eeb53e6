// GET /health and the shape of errors for unknown routes and unsupported content types.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type ListeningTestService, type TestService } from '../support/service.js';

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
    const response = await service.get('/health');
    assert.equal(response.status, 200);
    const body = (await response.json()) as { status: string; version: string; namespaces: string[] };
    assert.equal(body.status, 'healthy');
    assert.match(body.version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(body.namespaces, ['alpha']);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const response = await service.get('/no/such/route?x=1');
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), { error: { code: 'not_found', message: 'no route GET /no/such/route' } });
  });

  it('answers a wrong method on a known path with a JSON 405 and the Allow header, on every kind of route', async () => {
    const cases: [method: string, path: string, allow: string][] = [
      ['GET', '/tools/search', 'POST'],
      ['PUT', '/health?x=1', 'GET, HEAD'],
      ['DELETE', '/api/agents/knowledge/generate', 'POST'],
      ['GET', '/api/namespaces/some-name', 'DELETE'],
      ['POST', '/tools/documents', 'DELETE, GET, HEAD'],
      ['PATCH', '/openapi.json', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await service.request(path, { method });
      assert.equal(response.status, 405, `${method} ${path}`);
      assert.equal(response.headers.get('allow'), allow, `${method} ${path}`);
      const body = (await response.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'method_not_allowed');
      assert.match(body.error.message, new RegExp(`does not take ${method}; it takes ${allow}$`));
    }
    // HEAD gets the status and the header, without a body.
    const head = await service.request('/agent', { method: 'HEAD' });
    assert.deepEqual([head.status, head.headers.get('allow')], [405, 'POST']);
    // An unknown path stays a 404, whatever the method.
    for (const method of ['GET', 'POST', 'DELETE']) {
      const response = await service.request('/tools/searching', { method });
      assert.equal(response.status, 404, method);
      assert.equal(response.headers.get('allow'), null);
    }
  });

  it('answers an unsupported content type with a JSON 415', async () => {
    const response = await service.request('/tools/search', {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<q/>',
    });
    assert.equal(response.status, 415);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'unsupported_media_type');
  });

  it('answers a compressed body with a JSON 415 naming Content-Encoding, on JSON, multipart and MCP routes', async () => {
    const { gzipSync } = await import('node:zlib');
    for (const [path, contentType] of [
      ['/tools/ingest', 'application/json'],
      ['/api/tools/ingest', 'multipart/form-data; boundary=x'],
      ['/mcp', 'application/json'],
    ] as const) {
      const response = await service.request(path, {
        method: 'POST',
        headers: { 'content-type': contentType, 'content-encoding': 'gzip', accept: 'application/json, text/event-stream' },
        body: gzipSync(JSON.stringify({ sources: [{ type: 'text', value: 'compressed' }] })),
      });
      assert.equal(response.status, 415, path);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      assert.equal(error.code, 'unsupported_media_type');
      assert.match(error.message, /Content-Encoding "gzip" are not accepted: send the body uncompressed/);
    }
    // identity is no encoding at all.
    const plain = await service.request('/tools/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      body: JSON.stringify({ query: 'anything' }),
    });
    assert.equal(plain.status, 200);
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

describe('hostile requests found by fuzzing', () => {
  let service: ListeningTestService;
  before(async () => {
    // Listening: Node's HTTP parser, not the app, refuses an oversized request line (431).
    service = await startService({ listen: true, environment: { KNOWLEDGE_AGENT_MODEL: 'extractive' }, apiKey: undefined });
  });
  after(async () => {
    await service.dispose();
  });

  it('answers an oversized request line with the JSON error body and 431', async () => {
    const response = await fetch(`${service.baseUrl}/${'a'.repeat(17_000)}`);
    assert.equal(response.status, 431);
    assert.deepEqual(await response.json(), { error: { code: 'headers_too_large', message: 'the request line or headers are too large' } });
  });

  it('gives up a multipart body the parser stalls on, instead of hanging', async () => {
    const boundary = 'B';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a\nb.md"\r\n\r\n`),
      Buffer.alloc(17_000, 'x'),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const response = await service.request('/api/tools/ingest', {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      signal: AbortSignal.timeout(15_000),
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'invalid_request');
  });

  it('ends the agent stream properly when tool-call arguments are deeply nested', async () => {
    // Written as text: serializing it here would overflow this process's stack too.
    const nested = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    const body = `{"messages":[{"role":"assistant","content":"","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":${nested}}}]},{"role":"user","content":"@knowledge hi"}]}`;
    const response = await service.request('/agent', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(response.status, 200);
    assert.ok((await response.text()).endsWith('data: [DONE]\n\n'));
  });
});
