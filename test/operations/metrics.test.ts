// GET /metrics: Prometheus text with request counts and latency histograms per route pattern, ingest outcomes, chunks
// and duration, provider calls by kind and outcome, index sizes per namespace; a registry per app; tokens when set.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { register as globalRegistry } from 'prom-client';
import type { ProviderDouble } from '../support/provider-double.js';
import { startService, startServiceWithProvider, type ListeningTestService, type TestService } from '../support/service.js';
import { readStream } from './stream-reader.js';
import { parsePrometheusText, samplesOf, valueOf, type Sample } from './prometheus-text.js';

async function scrape(service: TestService, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await service.get('/metrics', headers);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(text);
}

describe('GET /metrics', () => {
  let provider: ProviderDouble;
  let service: ListeningTestService;

  before(async () => {
    // Listening: a client that walks away from a streamed answer is one test's subject.
    ({ provider, service } = await startServiceWithProvider({ listen: true }));
  });

  after(async () => {
    await service.dispose();
  });

  it('counts requests by route pattern, never by raw URL, and times them in a histogram', async () => {
    const before = await scrape(service);
    for (const query of ['first', 'second']) {
      const response = await service.post('/tools/search', { namespace: 'metered', query, mode: 'lexical' });
      assert.equal(response.status, 200, await response.text());
    }
    await (await service.get('/no/such/page-4711')).text();
    await (await service.request('/tools/namespaces/ghost-4711', { method: 'DELETE' })).text();
    const after = await scrape(service);

    const search = { method: 'POST', route: '/tools/search', status_code: '200' };
    assert.equal(valueOf(after, 'http_requests_total', search) - valueOf(before, 'http_requests_total', search), 2);
    const unmatched = { method: 'GET', route: 'unmatched', status_code: '404' };
    assert.equal(valueOf(after, 'http_requests_total', unmatched) - valueOf(before, 'http_requests_total', unmatched), 1);
    const deleted = { method: 'DELETE', route: '/tools/namespaces/:name', status_code: '404' };
    assert.equal(valueOf(after, 'http_requests_total', deleted) - valueOf(before, 'http_requests_total', deleted), 1);
    for (const sample of after) {
      assert.ok(
        !Object.values(sample.labels).some((value) => value.includes('4711')),
        `a raw URL became a label: ${JSON.stringify(sample)}`,
      );
    }

    const buckets = samplesOf(after, 'http_request_duration_seconds_bucket', search);
    assert.ok(buckets.length > 5, 'the histogram has buckets');
    const counts = buckets.map((bucket) => bucket.value);
    assert.deepEqual(
      counts,
      [...counts].sort((left, right) => left - right),
      'buckets are cumulative',
    );
    const count = valueOf(after, 'http_request_duration_seconds_count', search);
    assert.equal(buckets.find((bucket) => bucket.labels.le === '+Inf')?.value, count);
    assert.equal(count - valueOf(before, 'http_request_duration_seconds_count', search), 2);
    assert.ok(valueOf(after, 'http_request_duration_seconds_sum', search) > 0);
  });

  it('counts ingested sources by outcome, the chunks added, and times each ingest', async () => {
    const before = await scrape(service);
    const first = await service.post('/tools/ingest', {
      namespace: 'metered',
      sources: [
        { type: 'text', title: 'Rotation', value: '# Rotation\n\nTokens rotate every ninety days.' },
        { type: 'text', title: 'Rotation copy', value: '# Rotation\n\nTokens rotate every ninety days.' },
        { type: 'text', title: 'Broken' },
      ],
    });
    const second = await service.post('/tools/ingest', {
      namespace: 'metered',
      sources: [{ type: 'text', title: 'Rotation', value: '# Rotation\n\nTokens rotate every sixty days now.' }],
    });
    const bodies = (await Promise.all([first.json(), second.json()])) as { chunks_added: number; documents: { status: string }[] }[];
    assert.deepEqual(
      bodies.flatMap((body) => body.documents.map((document) => document.status)),
      ['saved', 'skipped', 'updated'],
    );
    const after = await scrape(service);

    const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
    assert.equal(delta('ingest_sources_total', { outcome: 'saved' }), 1);
    assert.equal(delta('ingest_sources_total', { outcome: 'skipped' }), 1);
    assert.equal(delta('ingest_sources_total', { outcome: 'failed' }), 1);
    assert.equal(delta('ingest_sources_total', { outcome: 'updated' }), 1);
    assert.equal(
      delta('ingest_chunks_total'),
      bodies.reduce((sum, body) => sum + body.chunks_added, 0),
    );
    assert.equal(delta('ingest_duration_seconds_count'), 2);
    assert.ok(samplesOf(after, 'ingest_duration_seconds_bucket').length > 5);
    assert.ok(delta('provider_calls_total', { kind: 'embeddings', model: 'text-embedding-3-small', outcome: 'success' }) >= 1);
  });

  it('counts provider calls by kind and outcome, with their latency', async () => {
    const chatSuccess = { kind: 'chat', model: 'gpt-4o-mini', outcome: 'success' };
    const embeddingError = { kind: 'embeddings', model: 'text-embedding-3-small', outcome: 'error' };
    const before = await scrape(service);
    const agent = await service.post('/agent', {
      messages: [{ role: 'user', content: '@knowledge how often do tokens rotate?' }],
      tool_params: { namespace: 'metered' },
    });
    assert.match(await agent.text(), /"type":"text_message"/);
    provider.failEmbeddings(1, 400);
    const failing = await service.post('/tools/ingest', {
      namespace: 'metered',
      sources: [{ type: 'text', title: 'Unlucky', value: 'Embedding this fails.' }],
    });
    assert.equal(((await failing.json()) as { errors: { code: string }[] }).errors[0]?.code, 'embedding_failed');
    const after = await scrape(service);

    assert.equal(valueOf(after, 'provider_calls_total', chatSuccess) - valueOf(before, 'provider_calls_total', chatSuccess), 1);
    assert.ok(valueOf(after, 'provider_calls_total', embeddingError) - valueOf(before, 'provider_calls_total', embeddingError) >= 1);
    const chatLatency = { kind: 'chat', model: 'gpt-4o-mini' };
    assert.equal(
      valueOf(after, 'provider_call_duration_seconds_count', chatLatency) -
        valueOf(before, 'provider_call_duration_seconds_count', chatLatency),
      1,
    );
    assert.ok(samplesOf(after, 'provider_call_duration_seconds_bucket', chatLatency).length > 5);
  });

  it('counts a chat call the client walked away from as aborted', async () => {
    const aborted = { kind: 'chat', model: 'gpt-4o-mini', outcome: 'aborted' };
    const before = valueOf(await scrape(service), 'provider_calls_total', aborted);
    provider.queueChat({ text: 'Tokens rotate every ninety days [1]. '.repeat(50), delayMs: 20 });
    const controller = new AbortController();
    const response = await fetch(`${service.baseUrl}/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: '@knowledge how often do tokens rotate?' }],
        tool_params: { namespace: 'metered' },
      }),
      signal: controller.signal,
    });
    await readStream(response).waitFor((text) => text.includes('"type":"text_message"'));
    controller.abort();
    const deadline = Date.now() + 5_000;
    while (valueOf(await scrape(service), 'provider_calls_total', aborted) === before) {
      assert.ok(Date.now() < deadline, 'the aborted chat call was never counted');
      await sleep(20);
    }
  });

  it('reports the documents, chunks and vectors of every namespace at scrape time', async () => {
    const listing = (await (await service.get('/tools/namespaces')).json()) as {
      namespaces: { name: string; documents: number; chunks: number }[];
    };
    const samples = await scrape(service);
    const metered = listing.namespaces.find((namespace) => namespace.name === 'metered');
    assert.ok(metered !== undefined && metered.documents > 0);
    assert.equal(valueOf(samples, 'index_documents', { namespace: 'metered' }), metered.documents);
    assert.equal(valueOf(samples, 'index_chunks', { namespace: 'metered' }), metered.chunks);
    assert.equal(valueOf(samples, 'index_vectors', { namespace: 'metered' }), metered.chunks, 'every chunk was embedded at ingest');

    const removed = await service.request('/tools/namespaces/metered', { method: 'DELETE' });
    assert.equal(removed.status, 200, await removed.text());
    assert.deepEqual(
      samplesOf(await scrape(service), 'index_documents', { namespace: 'metered' }),
      [],
      'a deleted namespace leaves the gauges',
    );
  });

  it("keeps its metrics in a registry of its own, not in prom-client's global one", async () => {
    const other = await startService({ providerUrl: provider.baseUrl });
    try {
      const fresh = await scrape(other);
      assert.deepEqual(samplesOf(fresh, 'http_requests_total', { route: '/tools/search' }), [], 'another app starts from zero');
      assert.deepEqual(samplesOf(fresh, 'ingest_sources_total'), []);
      assert.deepEqual(globalRegistry.getMetricsAsArray(), []);
    } finally {
      await other.dispose();
    }
  });
});

describe('GET /metrics with tokens', () => {
  let service: TestService;
  const ingested = ['alpha-team', 'beta-team'];

  before(async () => {
    service = await startService({
      apiKey: undefined,
      environment: {
        KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:*;alpha-writer-for-tests:alpha-team',
        KNOWLEDGE_AGENT_READ_TOKENS: 'reader-alpha-for-tests:alpha-team;reader-beta-for-tests:beta-team;reader-none-for-tests:gamma-team',
        KNOWLEDGE_AGENT_METRICS_TOKEN: 'scrape-token-for-tests',
      },
    });
    for (const namespace of ingested) {
      const response = await service.post(
        '/tools/ingest',
        { namespace, sources: [{ type: 'text', title: 'Note', value: `A note in ${namespace}.` }] },
        { authorization: 'Bearer writer-token-for-tests' },
      );
      assert.equal(response.status, 200, await response.text());
    }
  });

  after(async () => {
    await service.dispose();
  });

  async function scrapeText(token: string): Promise<string> {
    const response = await service.request('/metrics', { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return text;
  }

  /** The namespaces a scrape names anywhere in its text. */
  const namedIn = (text: string) => ingested.filter((namespace) => text.includes(namespace));

  it('needs a token: the metrics token, or a read or write token; 401 without one', async () => {
    const statusWith = async (headers: Record<string, string>) => {
      const response = await service.get('/metrics', headers);
      const text = await response.text();
      return [response.status, response.status === 200 ? 'metrics' : (JSON.parse(text) as { error: { code: string } }).error.code];
    };
    assert.deepEqual(await statusWith({}), [401, 'unauthorized']);
    assert.deepEqual(await statusWith({ authorization: 'Bearer not-a-token' }), [401, 'unauthorized']);
    assert.deepEqual(await statusWith({ authorization: 'Bearer scrape-token-for-tests' }), [200, 'metrics']);
    assert.deepEqual(await statusWith({ authorization: 'Bearer reader-alpha-for-tests' }), [200, 'metrics']);
    assert.deepEqual(await statusWith({ 'x-api-key': 'alpha-writer-for-tests' }), [200, 'metrics']);
  });

  it('shows each token only the namespaces it may read; the metrics token sees them all', async () => {
    const documents = (text: string) =>
      samplesOf(parsePrometheusText(text), 'index_documents')
        .map((sample) => sample.labels.namespace)
        .sort();
    const everything = await scrapeText('scrape-token-for-tests');
    assert.deepEqual(documents(everything), ingested);
    assert.deepEqual(namedIn(await scrapeText('reader-alpha-for-tests')), ['alpha-team']);
    assert.deepEqual(documents(await scrapeText('reader-alpha-for-tests')), ['alpha-team']);
    assert.deepEqual(namedIn(await scrapeText('reader-beta-for-tests')), ['beta-team']);
    assert.deepEqual(namedIn(await scrapeText('alpha-writer-for-tests')), ['alpha-team']);
    assert.deepEqual(namedIn(await scrapeText('reader-none-for-tests')), []);
    assert.deepEqual(documents(await scrapeText('writer-token-for-tests')), ingested);
    // The rest of the metrics are the same for every token.
    assert.ok(
      samplesOf(parsePrometheusText(await scrapeText('reader-none-for-tests')), 'ingest_sources_total', { outcome: 'saved' }).length === 1,
    );
  });

  it('never mixes up the namespaces of scrapes made at the same time with different tokens', async () => {
    const tokens = Array.from(
      { length: 24 },
      (_, index) =>
        ['scrape-token-for-tests', 'reader-alpha-for-tests', 'reader-beta-for-tests', 'reader-none-for-tests'][index % 4] as string,
    );
    const texts = await Promise.all(tokens.map(scrapeText));
    const expected: Record<string, string[]> = {
      'scrape-token-for-tests': ingested,
      'reader-alpha-for-tests': ['alpha-team'],
      'reader-beta-for-tests': ['beta-team'],
      'reader-none-for-tests': [],
    };
    tokens.forEach((token, index) => assert.deepEqual(namedIn(texts[index] ?? ''), expected[token], token));
  });

  it('gives the metrics token nothing but the scrape', async () => {
    const search = await service.post(
      '/tools/search',
      { namespace: 'alpha-team', query: 'note', mode: 'lexical' },
      { authorization: 'Bearer scrape-token-for-tests' },
    );
    assert.equal(search.status, 401);
    const listing = await service.get('/tools/namespaces', { authorization: 'Bearer scrape-token-for-tests' });
    assert.equal(listing.status, 401);
  });
});

describe('GET /metrics without read tokens', () => {
  it('is open when only write tokens are configured, like the search routes', async () => {
    const service = await startService({ apiKey: undefined, environment: { KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:docs' } });
    try {
      await scrape(service);
    } finally {
      await service.dispose();
    }
  });
});
