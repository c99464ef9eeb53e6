// Structured logs: every line written while a request is handled, by Fastify or by a service through `app.log`,
// is JSON with the request id; a safe client id is kept, echoed and logged, a hostile one replaced; no secret is logged.
import assert from 'node:assert/strict';
import { mkdir, symlink } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServiceWithProvider, testApiKey, type ListeningTestService } from '../support/service.js';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  [key: string]: unknown;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request logs', () => {
  let service: ListeningTestService;

  before(async () => {
    // Listening: a body that arrives on the socket well after the headers is one test's subject.
    ({ service } = await startServiceWithProvider({ listen: true }));
  });

  after(async () => {
    await service.dispose();
  });

  const parsedLogs = (from: number): LogLine[] => service.logs.slice(from).map((line) => JSON.parse(line) as LogLine);

  it('puts the request id on every line of an ingest, a search and an agent run, including service warnings', async () => {
    const from = service.logs.length;
    const ingest = await service.post(
      '/tools/ingest',
      {
        namespace: 'logged',
        sources: [{ type: 'text', title: 'Token rotation', value: '# Token rotation\n\nTokens rotate every ninety days.' }],
      },
      { 'x-request-id': 'ingest-1' },
    );
    assert.equal(ingest.status, 200, await ingest.text());
    // A document placed by hand that cannot be read: the next search's store warning goes through app.log.
    await symlink(join(service.storageRoot, 'no-such-file.md'), join(service.storageRoot, 'logged', 'dangling.md'));
    const search = await service.post('/tools/search', { namespace: 'logged', query: 'token rotation' }, { 'x-request-id': 'search-1' });
    assert.equal(search.status, 200, await search.text());
    const agent = await service.post(
      '/agent',
      {
        messages: [{ role: 'user', content: '@knowledge how often do tokens rotate?' }],
        tool_params: { namespace: 'logged' },
      },
      { 'x-request-id': 'agent-1' },
    );
    assert.match(await agent.text(), /data: \[DONE\]/);

    const lines = parsedLogs(from);
    assert.ok(lines.length >= 6, `expected request logs, got ${lines.length} lines`);
    for (const line of lines) assert.ok(typeof line.reqId === 'string', `a line without reqId: ${JSON.stringify(line)}`);
    // Request loggers bind the id themselves; it is never written twice.
    for (const text of service.logs.slice(from)) assert.equal(text.match(/"reqId"/g)?.length, 1, text);
    const warning = lines.find((line) => line.level === 40 && line.msg.includes('cannot read dangling.md'));
    assert.ok(warning !== undefined, 'the store warned about the unreadable file');
    assert.equal(warning.reqId, 'search-1');
    for (const id of ['ingest-1', 'search-1', 'agent-1']) {
      assert.deepEqual(
        lines.filter((line) => line.reqId === id && /^(incoming request|request completed)$/.test(line.msg)).map((line) => line.msg),
        ['incoming request', 'request completed'],
        `${id} is logged at both ends`,
      );
    }
  });

  it('keeps the request id when the body arrives well after the headers (parsed from later socket events)', async () => {
    await symlink(join(service.storageRoot, 'no-such-file.md'), join(service.storageRoot, 'logged', 'dangling-later.md'));
    const body = JSON.stringify({ namespace: 'logged', query: 'token rotation' });
    const from = service.logs.length;
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        `${service.baseUrl}/tools/search`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-request-id': 'slow-body-1' },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
      request.write(body.slice(0, 10));
      setTimeout(() => request.end(body.slice(10)), 100);
    });
    assert.equal(status, 200);
    const warning = parsedLogs(from).find((line) => line.msg.includes('cannot read dangling-later.md'));
    assert.equal(warning?.reqId, 'slow-body-1');
  });

  it('echoes a safe client request id and logs it', async () => {
    const from = service.logs.length;
    const response = await service.get('/health', { 'x-request-id': 'lb-7f3a:9.b_c-d' });
    await response.text();
    assert.equal(response.headers.get('x-request-id'), 'lb-7f3a:9.b_c-d');
    assert.ok(parsedLogs(from).some((line) => line.reqId === 'lb-7f3a:9.b_c-d'));
  });

  it('replaces a hostile or oversized request id with a generated one', async () => {
    for (const hostile of ['has spaces', '{"json":1}', 'x'.repeat(65), '<script>', 'a\tb']) {
      const from = service.logs.length;
      const response = await service.get('/health', { 'x-request-id': hostile });
      await response.text();
      const echoed = response.headers.get('x-request-id') ?? '';
      assert.match(echoed, uuid, `${JSON.stringify(hostile)} is replaced`);
      const lines = service.logs.slice(from);
      assert.ok(
        lines.every((line) => !line.includes(hostile)),
        `${JSON.stringify(hostile)} never reaches a log line`,
      );
      assert.ok(lines.some((line) => (JSON.parse(line) as LogLine).reqId === echoed));
    }
  });

  it('gives every request its own generated id when none is sent, on streamed responses too', async () => {
    const first = await service.get('/health');
    const second = await service.post('/agent', { messages: [{ role: 'user', content: 'no mention, so only [DONE]' }] });
    await Promise.all([first.text(), second.text()]);
    const ids = [first.headers.get('x-request-id'), second.headers.get('x-request-id')];
    for (const id of ids) assert.match(id ?? '', uuid);
    assert.notEqual(ids[0], ids[1]);
  });

  it('adds no reqId to lines written outside any request', async () => {
    const from = service.logs.length;
    service.app.log.info('outside any request');
    const [line] = parsedLogs(from);
    assert.equal(line?.msg, 'outside any request');
    assert.equal(line?.reqId, undefined);
  });

  it('never writes the provider key or a presented token, even when a message carries them', async () => {
    const from = service.logs.length;
    service.app.log.error({ err: new Error(`provider said: Incorrect API key provided: ${testApiKey}`) }, `echo of ${testApiKey}`);
    const response = await service.request('/tools/namespaces', {
      headers: { authorization: 'Bearer secret-reader-token-123', 'x-api-key': 'secret-reader-token-123' },
    });
    await response.text();
    const lines = service.logs.slice(from);
    assert.ok(
      lines.some((line) => line.includes('[redacted]')),
      'the key was scrubbed, not dropped with its line',
    );
    for (const text of lines) {
      assert.ok(!text.includes(testApiKey), `the provider key leaked: ${text}`);
      assert.ok(!text.includes('secret-reader-token-123'), `a token leaked: ${text}`);
    }
  });
});

describe('request logs of a namespace folder made by hand', () => {
  it('keeps the request id on warnings from namespaces opened during the request', async () => {
    const { service } = await startServiceWithProvider();
    try {
      // A folder created after start-up is opened (and its unreadable file warned about) by the first request naming it.
      await mkdir(join(service.storageRoot, 'late'));
      await symlink(join(service.storageRoot, 'missing.md'), join(service.storageRoot, 'late', 'broken.md'));
      const from = service.logs.length;
      const response = await service.post('/api/tools/searchDocs', { namespace: 'late', query: 'anything' }, { 'x-request-id': 'late-1' });
      assert.equal(response.status, 200, await response.text());
      const warning = service.logs
        .slice(from)
        .map((line) => JSON.parse(line) as LogLine)
        .find((line) => line.msg.includes('cannot read broken.md'));
      assert.equal(warning?.reqId, 'late-1');
    } finally {
      await service.dispose();
    }
  });
});
