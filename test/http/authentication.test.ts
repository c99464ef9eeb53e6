// Write and read tokens on every route family: 401 without or with an unknown token, 403 outside the token's namespaces.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
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
      assert.deepEqual(await status(path, body('docs'), bearer('reader-token-for-tests')), [401, 'unauthorized'], 'a read token cannot write');
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
    const anonymous = await fetch(`${service.baseUrl}/api/tools/ingest`, { method: 'POST', body: form });
    assert.equal(anonymous.status, 401);
    const forbidden = await fetch(`${service.baseUrl}/api/tools/ingest`, { method: 'POST', body: form, headers: bearer('alpha-token-for-tests') });
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
    const health = await fetch(`${service.baseUrl}/health`);
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
