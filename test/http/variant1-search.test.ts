// POST /tools/search through HTTP: cosine ranking, the Match fields, top_k rules, persistence across restarts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProviderDouble } from '../support/provider-double.js';
import { startService, startServiceWithProvider, type TestService } from '../support/service.js';

interface SearchResponse {
  namespace: string;
  query: string;
  matches: { chunk_id: string; score: number; source: string; title: string; preview: string; as_of: string }[];
}

const documents = [
  { title: 'Installing', value: '# Installing\n\nInstall the package with npm install knowledge. Node 20 is required to install it.' },
  {
    title: 'Authentication',
    value: '# Authentication\n\nRequests carry a bearer token in the Authorization header. Tokens are scoped per namespace.',
  },
  { title: 'Rate Limits', value: '# Rate Limits\n\nEach client may send sixty requests per minute; beyond that the server answers 429.' },
  { title: 'Backups', value: '# Backups\n\nSnapshots of the storage folder are taken nightly and kept for thirty days.' },
  { title: 'Logging', value: '# Logging\n\nLogs are JSON lines with a request id on every line.' },
  { title: 'Metrics', value: '# Metrics\n\nPrometheus metrics are served at the metrics endpoint.' },
];

describe('POST /tools/search', () => {
  let provider: ProviderDouble;
  let service: TestService;

  before(async () => {
    ({ provider, service } = await startServiceWithProvider());
    const response = await service.post('/tools/ingest', {
      namespace: 'manual',
      sources: documents.map((document) => ({ type: 'text', ...document })),
    });
    assert.equal(response.status, 200);
  });

  after(async () => {
    await service.dispose();
  });

  async function search(body: unknown): Promise<SearchResponse> {
    const response = await service.post('/tools/search', body);
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as SearchResponse;
  }

  it('ranks by cosine similarity and returns exactly the Match fields', async () => {
    const result = await search({ namespace: 'manual', query: 'bearer token authorization header' });
    assert.equal(result.namespace, 'manual');
    assert.equal(result.query, 'bearer token authorization header');
    assert.equal(result.matches.length, 4, 'KNOWLEDGE_AGENT_TOP_K defaults to 4');
    const [best] = result.matches;
    assert.equal(best?.title, 'Authentication');
    assert.deepEqual(Object.keys(best ?? {}).sort(), ['as_of', 'chunk_id', 'preview', 'score', 'source', 'title']);
    assert.ok(Date.parse(best?.as_of ?? '') > Date.now() - 600_000, 'as of the ingest');
    assert.match(best?.source ?? '', /manual\/authentication\.md$/);
    assert.match(best?.preview ?? '', /bearer token/);
    for (let index = 1; index < result.matches.length; index++) {
      assert.ok((result.matches[index - 1]?.score ?? 0) >= (result.matches[index]?.score ?? 0), 'scores descend');
    }
    assert.ok((best?.score ?? 0) <= 1 && (best?.score ?? 0) > (result.matches[1]?.score ?? 0));
  });

  it('applies top_k: 0 gives none, a larger value more, never above 20', async () => {
    assert.deepEqual((await search({ namespace: 'manual', query: 'install', top_k: 0 })).matches, []);
    assert.equal((await search({ namespace: 'manual', query: 'install', top_k: 6 })).matches.length, 6);
    assert.equal((await search({ namespace: 'manual', query: 'install', top_k: 500 })).matches.length, 6, 'only six chunks exist');
  });

  it('honours KNOWLEDGE_AGENT_TOP_K and its 0 setting', async () => {
    const zero = await startService({
      providerUrl: provider.baseUrl,
      storageRoot: service.storageRoot,
      environment: { KNOWLEDGE_AGENT_TOP_K: '0' },
    });
    try {
      const response = await zero.post('/tools/search', { namespace: 'manual', query: 'install' });
      assert.deepEqual(((await response.json()) as SearchResponse).matches, []);
    } finally {
      await zero.close();
    }
  });

  it('answers an unknown namespace with no matches, a notice saying so, and creates no folder', async () => {
    const result = await search({ namespace: 'nothing-here', query: 'anything' });
    assert.deepEqual(result.matches, []);
    assert.match((result as { notice?: string }).notice ?? '', /^the namespace "nothing-here" does not exist/);
    const health = (await (await service.get('/health')).json()) as { namespaces: string[] };
    assert.ok(!health.namespaces.includes('nothing-here'));
  });

  it('validates the body', async () => {
    for (const body of [
      { namespace: 'manual' },
      { query: '' },
      { query: 'x', top_k: -1 },
      { query: 'x', top_k: 2.5 },
      { query: 'x', top_k: '3' },
      { query: 'x', limit: 3 },
    ]) {
      const response = await service.post('/tools/search', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'invalid_request');
    }
  });

  it('names a field the body does not have', async () => {
    const response = await service.post('/tools/search', { query: 'x', limit: 3 });
    assert.match(
      ((await response.json()) as { error: { message: string } }).error.message,
      /^body: unknown field "limit" \(the fields are namespace, query, top_k, mode\); Variant 1 names it top_k$/,
    );
  });

  it('keeps vectors in memory and on disk: a restarted service searches without re-embedding documents', async () => {
    const restarted = await startService({ providerUrl: provider.baseUrl, storageRoot: service.storageRoot });
    try {
      const before = provider.embeddingRequests().length;
      const response = await restarted.post('/tools/search', { namespace: 'manual', query: 'nightly snapshots' });
      const result = (await response.json()) as SearchResponse;
      assert.equal(result.matches[0]?.title, 'Backups');
      const requests = provider.embeddingRequests().slice(before);
      assert.equal(requests.length, 1, 'only the query was embedded');
      assert.deepEqual(requests[0]?.body.input, ['nightly snapshots']);
    } finally {
      await restarted.close();
    }
  });
});
