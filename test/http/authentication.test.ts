// Write and read tokens on every route family: 401 without or with an unknown token, 403 outside the token's namespaces;
// a client that keeps presenting unknown tokens is refused with 429 for the rest of the window, even with a right one.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, describe, it, mock } from 'node:test';
import { startService, startServiceWithProvider, type TestService } from '../support/service.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('tokens', () => {
  let service: TestService;

  before(async () => {
    ({ service } = await startServiceWithProvider({
      environment: {
        KNOWLEDGE_AGENT_WRITE_TOKENS: 'alpha-token-for-tests:docs,handbook;omni-token-for-tests:*',
        KNOWLEDGE_AGENT_READ_TOKENS: 'reader-token-for-tests:docs',
      },
    }));
  });

  after(async () => {
    await service.dispose();
  });

  async function status(path: string, body: unknown, headers: Record<string, string> = {}): Promise<[number, string | undefined]> {
    const response = await service.post(path, body, headers);
    const text = await response.text();
    const code = response.headers.get('content-type')?.startsWith('application/json')
      ? (JSON.parse(text) as { error?: { code: string } }).error?.code
      : undefined;
    return [response.status, code];
  }

  const ingestBodies: [string, (namespace: string) => unknown][] = [
    ['/tools/ingest', (namespace) => ({ namespace, sources: [{ type: 'text', value: `v1 text for ${namespace}`, title: 'T1' }] })],
    ['/api/tools/ingest', (namespace) => ({ namespace, sources: [`v2 text for ${namespace}`] })],
    ['/api/tools/ingest/execute', (namespace) => ({ data: { namespace, sources: [`execute text for ${namespace}`] } })],
  ];

  for (const [path, body] of ingestBodies) {
    it(`${path}: 401 without or with an unknown token, 403 outside the token's namespaces, 200 inside`, async () => {
      assert.deepEqual(await status(path, body('docs')), [401, 'unauthorized']);
      assert.deepEqual(await status(path, body('docs'), bearer('wrong-token')), [401, 'unauthorized']);
      assert.deepEqual(
        await status(path, body('docs'), bearer('reader-token-for-tests')),
        [401, 'unauthorized'],
        'a read token cannot write',
      );
      assert.deepEqual(await status(path, body('secret'), bearer('alpha-token-for-tests')), [403, 'forbidden']);
      assert.deepEqual(await status(path, body('docs'), bearer('alpha-token-for-tests')), [200, undefined]);
      assert.deepEqual(await status(path, body('secret'), { 'x-api-key': 'omni-token-for-tests' }), [200, undefined]);
      assert.deepEqual(
        await status(path, body('hand/book'), { authorization: 'bearer alpha-token-for-tests' }),
        [200, undefined],
        'the namespace is sanitized before it is checked',
      );
    });
  }

  it('refuses a multipart upload to a namespace outside the token and writes nothing', async () => {
    const form = new FormData();
    form.append('namespace', 'private');
    form.append('file', new Blob(['# Leak\n\nshould not be stored']), 'leak.md');
    const anonymous = await service.request('/api/tools/ingest', { method: 'POST', body: form });
    assert.equal(anonymous.status, 401);
    const forbidden = await service.request('/api/tools/ingest', {
      method: 'POST',
      body: form,
      headers: bearer('alpha-token-for-tests'),
    });
    assert.equal(forbidden.status, 403);
    const files = await readdir(join(service.storageRoot, 'private')).catch(() => []);
    assert.deepEqual(files, []);
  });

  const readBodies: [string, (namespace: string) => unknown][] = [
    ['/tools/search', (namespace) => ({ namespace, query: 'text' })],
    ['/api/tools/searchDocs', (namespace) => ({ namespace, query: 'text' })],
    ['/api/tools/searchDocs/execute', (namespace) => ({ data: { namespace, query: 'text' } })],
    ['/api/agents/knowledge/generate', (namespace) => ({ messages: [{ role: 'user', content: 'text?' }], toolParams: { namespace } })],
    ['/agent', (namespace) => ({ messages: [{ role: 'user', content: '@knowledge text?' }], tool_params: { namespace } })],
    [
      '/agent',
      (namespace) => ({
        threadId: 't',
        runId: 'r',
        messages: [{ id: 'm', role: 'user', content: 'text?' }],
        forwardedProps: { namespace },
      }),
    ],
  ];

  for (const [path, body] of readBodies) {
    it(`${path}${JSON.stringify(body('x')).includes('threadId') ? ' (AG-UI)' : ''}: read tokens, and write tokens for their own namespaces`, async () => {
      assert.deepEqual(await status(path, body('docs')), [401, 'unauthorized']);
      assert.deepEqual(await status(path, body('docs'), bearer('wrong-token')), [401, 'unauthorized']);
      assert.deepEqual(await status(path, body('handbook'), bearer('reader-token-for-tests')), [403, 'forbidden']);
      assert.deepEqual(await status(path, body('docs'), bearer('reader-token-for-tests')), [200, undefined]);
      assert.deepEqual(await status(path, body('handbook'), bearer('alpha-token-for-tests')), [200, undefined]);
      assert.deepEqual(await status(path, body('secret'), bearer('alpha-token-for-tests')), [403, 'forbidden']);
    });
  }

  it('leaves /health open, without naming the namespaces', async () => {
    const health = await service.get('/health');
    assert.equal(health.status, 200);
    assert.equal(((await health.json()) as { namespaces?: unknown }).namespaces, undefined);
  });

  it('logs no open-mode warning when write tokens are set', () => {
    assert.ok(!service.logs.some((line) => line.includes('KNOWLEDGE_AGENT_WRITE_TOKENS is not set')));
  });
});

describe('open mode', () => {
  it('lets anyone ingest and logs a warning at start-up', async () => {
    const service = await startService({ apiKey: undefined });
    try {
      assert.equal((await service.post('/tools/ingest', { sources: [{ type: 'text', value: 'open' }] })).status, 200);
      const warning = service.logs
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .find((line) => line.msg.includes('KNOWLEDGE_AGENT_WRITE_TOKENS is not set'));
      assert.equal(warning?.level, 40, 'logged at warn level');
    } finally {
      await service.dispose();
    }
  });
});

describe('failed tokens, per client', () => {
  const writer = 'writer-token-for-tests';
  const reader = 'reader-token-for-tests';
  let service: TestService;

  before(async () => {
    service = await startService({
      apiKey: undefined,
      environment: { KNOWLEDGE_AGENT_WRITE_TOKENS: `${writer}:*`, KNOWLEDGE_AGENT_READ_TOKENS: `${reader}:*` },
    });
  });
  after(async () => {
    await service.dispose();
  });
  afterEach(() => {
    mock.timers.reset();
  });

  /** A request from `client` (its address) with `token`; the answer's status, code and Retry-After. */
  async function attempt(client: string, token: string, url = '/tools/search', payload: unknown = { query: 'anything' }) {
    const response = await service.app.inject({
      method: 'POST',
      url,
      remoteAddress: client,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify(payload),
    });
    const code = response.statusCode === 200 ? undefined : (JSON.parse(response.body) as { error?: { code: string } }).error?.code;
    return { status: response.statusCode, code, retryAfter: response.headers['retry-after'], message: response.body };
  }

  it('refuses every token of a client after 20 unknown ones, until the 5-minute window has passed; other clients go on', async () => {
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const guesser = '203.0.113.7';
    for (let guess = 0; guess < 20; guess++) {
      assert.deepEqual(await attempt(guesser, `guess-${guess}-0123456789abcdef`).then(({ status, code }) => [status, code]), [
        401,
        'unauthorized',
      ]);
    }
    const refused = await attempt(guesser, reader);
    assert.deepEqual([refused.status, refused.code], [429, 'rate_limited']);
    assert.equal(refused.retryAfter, '300');
    assert.match(refused.message, /too many unknown tokens from this client \(20 in 5 minutes\)/);
    const mcp = await attempt(guesser, reader, '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.deepEqual([mcp.status, mcp.code], [429, 'rate_limited'], 'the MCP endpoint too');
    assert.equal((await attempt('203.0.113.8', reader)).status, 200, 'another client is not refused');

    mock.timers.tick(299_000);
    assert.equal((await attempt(guesser, writer)).status, 429, 'still within the window');
    mock.timers.tick(1_000);
    assert.equal((await attempt(guesser, writer)).status, 200, 'the window has passed');
    assert.ok(
      service.logs.some((line) => line.includes('too many unknown tokens from this client')),
      'the refusal is logged',
    );
  });

  it('never counts a right token, nor a known token on a route it does not open', async () => {
    const client = '198.51.100.20';
    for (let round = 0; round < 25; round++) {
      assert.equal((await attempt(client, reader)).status, 200);
      const misplaced = await attempt(client, reader, '/tools/ingest', { sources: [{ type: 'text', value: 'x' }] });
      assert.deepEqual([misplaced.status, misplaced.code], [401, 'unauthorized'], 'a read token cannot write');
    }
    for (let guess = 0; guess < 19; guess++) assert.equal((await attempt(client, `guess-${guess}-0123456789abcdef`)).status, 401);
    for (let round = 0; round < 30; round++) assert.equal((await attempt(client, reader)).status, 200, 'right tokens still pass');
  });
});
