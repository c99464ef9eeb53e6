// The MCP endpoint driven by the official SDK client (StreamableHTTPClientTransport) against the real server:
// tool listing, a cited answer (or "not covered"), search in each mode, reading a document, listings limited to the
// token, ingest and registered sources with write tokens only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServiceWithProvider, type ListeningTestService } from '../support/service.js';
import { startStaticSite, type StaticSite } from '../support/static-site.js';

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[] };

interface Source {
  kind: string;
  url: string;
  every: string | null;
  last_refresh: { trigger: string; checked: number; added: number; unchanged: number; failed: unknown[] } | null;
}

const counts = (summary: Source['last_refresh']) =>
  summary && {
    trigger: summary.trigger,
    checked: summary.checked,
    added: summary.added,
    unchanged: summary.unchanged,
    failed: summary.failed.length,
  };

function textOf(result: unknown): string {
  return (result as ToolResult).content.map((part) => part.text ?? '').join('');
}

describe('MCP server', () => {
  let service: ListeningTestService;
  const clients: Client[] = [];

  async function connect(token?: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${service.baseUrl}/mcp`), {
      requestInit: token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'knowledge-agent-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  before(async () => {
    // Listening: the MCP SDK client speaks HTTP itself.
    ({ service } = await startServiceWithProvider({
      listen: true,
      environment: {
        KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:handbook;omni-token-for-tests:*',
        KNOWLEDGE_AGENT_READ_TOKENS: 'reader-token-for-tests:handbook,docs',
      },
    }));
    for (const namespace of ['handbook', 'secret']) {
      const response = await service.post(
        '/tools/ingest',
        {
          namespace,
          sources: [
            {
              type: 'text',
              title: 'Token rotation',
              value: '# Token rotation\n\nTokens rotate every 90 days. Admins may rotate earlier with `rotate-now`.',
            },
            { type: 'text', title: 'Backups', value: '# Backups\n\nBackups run nightly at 02:00 and are kept for 30 days.' },
          ],
        },
        { authorization: 'Bearer omni-token-for-tests' },
      );
      assert.equal(response.status, 200);
    }
  });

  after(async () => {
    for (const client of clients) await client.close();
    await service.dispose();
  });

  it('lists its tools with their input schemas', async () => {
    const client = await connect('reader-token-for-tests');
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      'add_source',
      'ask_docs',
      'feedback',
      'ingest',
      'list_documents',
      'list_namespaces',
      'list_sources',
      'read_document',
      'refresh_sources',
      'remove_source',
      'search_docs',
    ]);
    const search = tools.find((tool) => tool.name === 'search_docs');
    assert.deepEqual(Object.keys(search?.inputSchema.properties ?? {}).sort(), ['mode', 'namespace', 'query', 'top_k']);
    assert.deepEqual(search?.inputSchema.required, ['query']);
    const addSource = tools.find((tool) => tool.name === 'add_source');
    assert.deepEqual(Object.keys(addSource?.inputSchema.properties ?? {}).sort(), ['crawl', 'every', 'git', 'kind', 'namespace', 'url']);
  });

  it('answers a question with its citations and a run id for feedback, and says plainly when the docs do not cover it', async () => {
    const client = await connect('reader-token-for-tests');
    const asked = await client.callTool({
      name: 'ask_docs',
      arguments: { namespace: 'handbook', question: 'How often do tokens rotate?' },
    });
    assert.notEqual(asked.isError, true, textOf(asked));
    const answer = JSON.parse(textOf(asked)) as { namespace: string; run_id: string; covered: boolean; answer: string; sources: string[] };
    assert.equal(answer.namespace, 'handbook');
    assert.equal(answer.covered, true);
    assert.match(answer.answer, /Tokens rotate every 90 days.*\[1\]/s);
    assert.match(answer.answer, /\nSources: .*Token rotation/);
    assert.deepEqual(answer.sources, ['Token rotation']);
    const rated = await client.callTool({ name: 'feedback', arguments: { run_id: answer.run_id, rating: 'up' } });
    assert.notEqual(rated.isError, true, textOf(rated));

    const silent = await client.callTool({
      name: 'ask_docs',
      arguments: { namespace: 'handbook', question: 'What hydration percentage suits Neapolitan pizza dough?' },
    });
    const refusal = JSON.parse(textOf(silent)) as { covered: boolean; answer: string; sources: string[] };
    assert.equal(refusal.covered, false);
    assert.match(refusal.answer, /^The "handbook" documentation (never mentions|does not seem to cover)/);
    assert.deepEqual(refusal.sources, []);

    const forbidden = await client.callTool({
      name: 'ask_docs',
      arguments: { namespace: 'secret', question: 'How often do tokens rotate?' },
    });
    assert.equal(forbidden.isError, true);
    assert.match(textOf(forbidden), /^forbidden: /);
  });

  it('searches a namespace in each mode, with top_k', async () => {
    const client = await connect('reader-token-for-tests');
    for (const mode of ['lexical', 'embedding', 'hybrid']) {
      const result = await client.callTool({
        name: 'search_docs',
        arguments: { namespace: 'handbook', query: 'how often do tokens rotate', mode, top_k: 1 },
      });
      assert.notEqual(result.isError, true, textOf(result));
      const body = JSON.parse(textOf(result)) as { mode: string; results: { file: string; title: string; source: string; text: string }[] };
      assert.equal(body.mode, mode);
      assert.equal(body.results.length, 1);
      if (mode === 'lexical') assert.equal(body.results[0]?.file, 'token-rotation.md');
    }
  });

  it('gives the same results, excerpts and ranks as the search route, with each document origin', async () => {
    const query = 'how long are backups kept';
    const client = await connect('reader-token-for-tests');
    const result = await client.callTool({ name: 'search_docs', arguments: { namespace: 'handbook', query, mode: 'lexical', top_k: 2 } });
    const { results } = JSON.parse(textOf(result)) as {
      results: { rank: number; file: string; source: string; excerpt: string; headings: string[] }[];
    };
    const response = await service.post(
      '/api/tools/searchDocs',
      { namespace: 'handbook', query, mode: 'lexical', limit: 2 },
      { authorization: 'Bearer reader-token-for-tests' },
    );
    const route = (await response.json()) as { results: { file: string; excerpt: string }[] };
    assert.deepEqual(
      results.map(({ rank, file, excerpt }) => ({ rank, file, excerpt })),
      route.results.map(({ file, excerpt }, index) => ({ rank: index + 1, file, excerpt })),
    );
    assert.equal(results[0]?.file, 'backups.md');
    assert.equal(results[0]?.source, 'text');
    assert.deepEqual(results[0]?.headings, ['Backups']);
  });

  it('reads a stored document', async () => {
    const client = await connect('reader-token-for-tests');
    const result = await client.callTool({ name: 'read_document', arguments: { namespace: 'handbook', file: 'backups.md' } });
    assert.match(textOf(result), /^# Backups\n\nSource: text\n/);
    assert.match(textOf(result), /Backups run nightly at 02:00/);
    const missing = await client.callTool({ name: 'read_document', arguments: { namespace: 'handbook', file: 'nope.md' } });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /^not_found: /);
  });

  it('lists only the namespaces and documents the token may read', async () => {
    const client = await connect('reader-token-for-tests');
    const namespaces = JSON.parse(textOf(await client.callTool({ name: 'list_namespaces', arguments: {} }))) as {
      namespaces: { name: string; documents: number }[];
    };
    assert.deepEqual(
      namespaces.namespaces.map((namespace) => namespace.name),
      ['handbook'],
    );
    const documents = JSON.parse(textOf(await client.callTool({ name: 'list_documents', arguments: { namespace: 'handbook' } }))) as {
      documents: { file: string }[];
    };
    assert.deepEqual(
      documents.documents.map((document) => document.file),
      ['backups.md', 'token-rotation.md'],
    );
    const forbidden = await client.callTool({ name: 'search_docs', arguments: { namespace: 'secret', query: 'tokens' } });
    assert.equal(forbidden.isError, true);
    assert.match(textOf(forbidden), /^forbidden: /);
  });

  it('ingests with a write token only, into the namespaces it covers', async () => {
    const reader = await connect('reader-token-for-tests');
    const refused = await reader.callTool({
      name: 'ingest',
      arguments: { namespace: 'handbook', sources: [{ type: 'text', value: '# On call\n\nThe on-call rotation changes weekly.' }] },
    });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /^unauthorized: /);

    const writer = await connect('writer-token-for-tests');
    const outside = await writer.callTool({ name: 'ingest', arguments: { namespace: 'docs', sources: [{ type: 'text', value: 'x' }] } });
    assert.match(textOf(outside), /^forbidden: /);
    const saved = await writer.callTool({
      name: 'ingest',
      arguments: { namespace: 'handbook', sources: [{ type: 'text', value: '# On call\n\nThe on-call rotation changes weekly.' }] },
    });
    assert.notEqual(saved.isError, true, textOf(saved));
    assert.deepEqual(
      (JSON.parse(textOf(saved)) as { documents: { status: string; file: string }[] }).documents.map((document) => [
        document.status,
        document.file,
      ]),
      [['saved', 'on-call.md']],
    );
    const found = await writer.callTool({
      name: 'search_docs',
      arguments: { namespace: 'handbook', query: 'on-call rotation weekly', mode: 'lexical' },
    });
    assert.equal((JSON.parse(textOf(found)) as { results: { file: string }[] }).results[0]?.file, 'on-call.md');
  });

  it('registers, lists, refreshes and removes a source with a write token; a read token only lists', async () => {
    const site: StaticSite = await startStaticSite({
      '/escalation': {
        body: '<html><head><title>Escalation</title></head><body><main><h1>Escalation</h1><p>Page the duty manager after 15 minutes.</p></main></body></html>',
      },
    });
    try {
      const url = `${site.url}/escalation`;
      const reader = await connect('reader-token-for-tests');
      const refused = await reader.callTool({ name: 'add_source', arguments: { namespace: 'handbook', url } });
      assert.match(textOf(refused), /^unauthorized: /);

      const writer = await connect('writer-token-for-tests');
      const added = await writer.callTool({ name: 'add_source', arguments: { namespace: 'handbook', url, every: '6h' } });
      assert.notEqual(added.isError, true, textOf(added));
      const { source } = JSON.parse(textOf(added)) as { source: Source };
      assert.deepEqual([source.kind, source.url, source.every], ['page', url, '6h']);
      assert.deepEqual(counts(source.last_refresh), { trigger: 'added', checked: 1, added: 1, unchanged: 0, failed: 0 });

      const listed = JSON.parse(textOf(await reader.callTool({ name: 'list_sources', arguments: { namespace: 'handbook' } }))) as {
        sources: Source[];
      };
      assert.deepEqual(
        listed.sources.map((registered) => registered.url),
        [url],
      );

      const refreshed = await writer.callTool({ name: 'refresh_sources', arguments: { namespace: 'handbook', url } });
      assert.notEqual(refreshed.isError, true, textOf(refreshed));
      const { refreshes } = JSON.parse(textOf(refreshed)) as { refreshes: Source[] };
      assert.deepEqual(
        refreshes.map((registered) => counts(registered.last_refresh)),
        [{ trigger: 'manual', checked: 1, added: 0, unchanged: 1, failed: 0 }],
      );

      const removed = await writer.callTool({ name: 'remove_source', arguments: { namespace: 'handbook', url, remove_documents: true } });
      assert.notEqual(removed.isError, true, textOf(removed));
      assert.equal((JSON.parse(textOf(removed)) as { removed_documents: number }).removed_documents, 1);
      const again = await writer.callTool({ name: 'remove_source', arguments: { namespace: 'handbook', url } });
      assert.match(textOf(again), /^not_found: /);
      const empty = JSON.parse(textOf(await writer.callTool({ name: 'list_sources', arguments: { namespace: 'handbook' } }))) as {
        sources: Source[];
      };
      assert.deepEqual(empty.sources, []);
    } finally {
      await site.close();
    }
  });

  it('refuses a client without a token before any MCP message is handled', async () => {
    await assert.rejects(connect(), /401|unauthorized/i);
    const response = await service.get('/mcp', { authorization: 'Bearer reader-token-for-tests' });
    assert.equal(response.status, 405);
  });
});
