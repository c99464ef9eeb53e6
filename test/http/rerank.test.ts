// The rerank stage through the service (KNOWLEDGE_AGENT_RERANK_MODEL): a search's best candidates go to the provider
// double's /v1/rerank and come back in its order on both API families, MCP and the agent's sources; a reranker that
// fails, answers nonsense or is too slow leaves the fused order with a notice.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ProviderDouble, RerankScript } from '../support/provider-double.js';
import { startService, startServiceWithProvider, type ListeningTestService, type TestService } from '../support/service.js';

const namespace = 'rerank';
const query = 'how do I rotate api tokens';
const documents = [
  ['Token rotation', 'API tokens rotate every 90 days. Rotate an API token early with `rotate-now`.'],
  ['Token expiry', 'API tokens expire after 90 days unless you rotate the tokens.'],
  ['Token scopes', 'API tokens carry scopes; rotate API tokens when their scopes change.'],
  ['Audit log', 'The audit log records who rotated which API token, and when.'],
  ['Service accounts', 'Service accounts own API tokens; rotate them from the admin page.'],
  ['Archive policy', 'Old API tokens are archived. The kestrel job rotates archived tokens once a year.'],
  ['Billing', 'Invoices are sent on the first day of each month.'],
  ['Backups', 'Backups run nightly at 02:00 and are kept for 30 days.'],
].map(([title, text]) => ({ type: 'text', title, value: `# ${title}\n\n${text}` }));

/** The reranker's judgement: the document naming the kestrel job first, then shorter documents before longer ones. */
const relevance = (_query: string, document: string) => (document.includes('kestrel') ? 100 : 0) - document.length / 1000;

/** The titles of the documents a rerank request sent, in the order the reranker's scores put them. */
function rerankedTitles(body: { query: string; documents: string[] }): string[] {
  return [...body.documents]
    .sort((left, right) => relevance(body.query, right) - relevance(body.query, left))
    .map((document) => document.split('\n')[0] as string);
}

interface Variant1Result {
  mode: string;
  notice?: string;
  matches: { chunk_id: string; title: string; score: number }[];
}

async function search(service: TestService, body: object): Promise<Variant1Result> {
  const response = await service.app.inject({ method: 'POST', url: '/tools/search', payload: { namespace, query, ...body } });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<Variant1Result>();
}

describe('reranking', () => {
  let provider: ProviderDouble;
  /**
   * Reranks with the default 40 candidates and a 1 s time limit: short for the slow reranker's test, long enough to
   * read the first megabyte of a 5 MB answer on a loaded machine (250 ms was not, under a full CI run beside others).
   */
  let reranked: ListeningTestService;
  /** Reranks 5 candidates. */
  let fewCandidates: TestService;
  /** No reranker: the fused order, for comparison. */
  let plain: TestService;

  before(async () => {
    // Listening: the MCP SDK client of the search_docs test speaks HTTP itself.
    ({ provider, service: reranked } = await startServiceWithProvider({
      listen: true,
      environment: { KNOWLEDGE_AGENT_RERANK_MODEL: 'test-reranker', KNOWLEDGE_AGENT_RERANK_TIMEOUT_MS: '1000' },
    }));
    fewCandidates = await startService({
      providerUrl: provider.baseUrl,
      environment: { KNOWLEDGE_AGENT_RERANK_MODEL: 'test-reranker', KNOWLEDGE_AGENT_RERANK_CANDIDATES: '5' },
    });
    plain = await startService({ providerUrl: provider.baseUrl });
    for (const service of [reranked, fewCandidates, plain]) {
      const response = await service.app.inject({ method: 'POST', url: '/tools/ingest', payload: { namespace, sources: documents } });
      assert.equal(response.statusCode, 200, response.body);
    }
    provider.setRerank({ score: relevance });
  });

  after(async () => {
    await fewCandidates?.dispose();
    await plain?.dispose();
    await reranked?.dispose();
  });

  it('reorders Variant 1 results in every mode, each scored by the reranker', async () => {
    for (const mode of ['embedding', 'lexical', 'hybrid']) {
      const before = provider.rerankRequests().length;
      const result = await search(reranked, { mode, top_k: 4 });
      const requests = provider.rerankRequests().slice(before);
      assert.equal(requests.length, 1, mode);
      assert.equal(result.mode, mode);
      assert.equal(result.notice, undefined, mode);
      assert.deepEqual(
        result.matches.map((match) => match.title),
        rerankedTitles(requests[0]?.body).slice(0, 4),
        mode,
      );
      assert.equal(result.matches[0]?.title, 'Archive policy', mode);
      const sent = (requests[0]?.body.documents as string[]).find((document) => document.startsWith('Archive policy')) as string;
      assert.equal(result.matches[0]?.score, relevance(query, sent), `${mode}: the reranker's score`);
    }
  });

  it('sends the configured model, the query and the candidate count (at least the results asked for)', async () => {
    const before = provider.rerankRequests().length;
    await search(fewCandidates, { mode: 'embedding', top_k: 3 });
    await search(fewCandidates, { mode: 'embedding', top_k: 8 });
    const [three, eight] = provider.rerankRequests().slice(before);
    assert.equal(three?.body.model, 'test-reranker');
    assert.equal(three?.body.query, query);
    assert.equal(three?.body.documents.length, 5);
    assert.equal(three?.body.top_n, 5);
    assert.equal(eight?.body.documents.length, 8);
    // Each candidate as title and heading path, then its text.
    assert.ok(
      (three?.body.documents as string[]).every((document) => /^[A-Z][\w ]+\n\n\S/.test(document)),
      JSON.stringify(three?.body.documents),
    );
  });

  it('reorders Variant 2 searchDocs results', async () => {
    const response = await reranked.app.inject({
      method: 'POST',
      url: '/api/tools/searchDocs',
      payload: { namespace, query, mode: 'hybrid', limit: 3 },
    });
    const result = response.json<{ results: { file: string }[]; warnings: string[] }>();
    assert.equal(result.results[0]?.file, 'archive-policy.md');
    assert.deepEqual(result.warnings, []);
  });

  it("reorders the agent's snippets: the answer quotes and cites the reranked first one", async () => {
    const response = await reranked.app.inject({
      method: 'POST',
      url: '/api/agents/knowledge/generate',
      payload: { messages: [{ role: 'user', content: `${query}?` }], runtimeContext: { namespace } },
    });
    assert.equal(response.statusCode, 200, response.body);
    const answer = response.json<{ text: string; sources: string[] }>();
    assert.match(answer.text, /Old API tokens are archived/);
    assert.deepEqual(answer.sources, ['archive-policy.md']);
  });

  it('reorders MCP search_docs results', async () => {
    const client = new Client({ name: 'rerank-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${reranked.baseUrl}/mcp`)));
    try {
      const result = (await client.callTool({ name: 'search_docs', arguments: { query, namespace, top_k: 3 } })) as {
        content: { text: string }[];
      };
      const parsed = JSON.parse(result.content[0]?.text ?? '{}') as { results: { title: string }[]; notice?: string };
      assert.equal(parsed.results[0]?.title, 'Archive policy');
      assert.equal(parsed.notice, undefined);
    } finally {
      await client.close();
    }
  });

  it('counts its calls in the provider metrics, as kind rerank', async () => {
    provider.setRerank({ status: 500 });
    try {
      await search(reranked, { mode: 'lexical', top_k: 2 });
    } finally {
      provider.setRerank({ score: relevance });
    }
    const metrics = (await reranked.app.inject({ method: 'GET', url: '/metrics' })).body;
    for (const outcome of ['success', 'error']) {
      assert.match(metrics, new RegExp(`^provider_calls_total\\{kind="rerank",model="test-reranker",outcome="${outcome}"\\} [1-9]`, 'm'));
    }
  });

  describe('a reranker that fails leaves the fused order, with a notice', () => {
    const failures: { name: string; script: RerankScript; reason: RegExp }[] = [
      { name: 'HTTP 500', script: { status: 500 }, reason: /the reranker answered HTTP 500/ },
      { name: 'malformed JSON', script: { malformed: 'not-json' }, reason: /the reranker's answer is malformed: it is not JSON/ },
      { name: 'no scores', script: { malformed: 'no-scores' }, reason: /malformed/ },
      { name: 'an answer of 5 MB', script: { malformed: 'oversized' }, reason: /the reranker's answer is over 1 MB/ },
      { name: 'too slow', script: { delayMs: 3000 }, reason: /the reranker did not answer within 1000 ms/ },
    ];
    for (const { name, script, reason } of failures) {
      it(name, async () => {
        provider.setRerank(script);
        try {
          for (const mode of ['hybrid', 'lexical']) {
            const result = await search(reranked, { mode, top_k: 4 });
            const fused = await search(plain, { mode, top_k: 4 });
            assert.match(result.notice ?? '', /^reranking with test-reranker failed \(/);
            assert.match(result.notice ?? '', reason);
            assert.match(result.notice ?? '', /these results are in the search's own order$/);
            const ranking = (matches: Variant1Result['matches']) =>
              matches.map(({ chunk_id, title, score }) => ({ chunk_id, title, score }));
            assert.deepEqual(ranking(result.matches), ranking(fused.matches), mode);
          }
        } finally {
          provider.setRerank({ score: relevance });
        }
      });
    }

    it('on Variant 2 as a warning, and the agent still answers', async () => {
      provider.setRerank({ status: 503 });
      try {
        const response = await reranked.app.inject({
          method: 'POST',
          url: '/api/tools/searchDocs',
          payload: { namespace, query, mode: 'hybrid', limit: 3 },
        });
        const result = response.json<{ warnings: string[] }>();
        assert.equal(result.warnings.length, 1);
        assert.match(result.warnings[0] ?? '', /^reranking with test-reranker failed \(the reranker answered HTTP 503/);
        const answer = await reranked.app.inject({
          method: 'POST',
          url: '/api/agents/knowledge/generate',
          payload: { messages: [{ role: 'user', content: `${query}?` }], runtimeContext: { namespace } },
        });
        assert.equal(answer.statusCode, 200, answer.body);
        assert.equal(answer.json<{ sources: string[] }>().sources.length, 1);
      } finally {
        provider.setRerank({ score: relevance });
      }
    });
  });
});
