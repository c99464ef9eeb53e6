// One request budget per client, whatever the door: the ingest and agent routes and the MCP endpoint's tool calls
// (each call of a JSON-RPC batch on its own) spend from the same KNOWLEDGE_AGENT_RATE_LIMIT, and the MCP ingest tool
// keeps the HTTP routes' per-request caps.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../support/service.js';

interface JsonRpcAnswer {
  id: number;
  result?: { isError?: boolean; content: { text: string }[] };
  error?: { code: number; message: string; data?: { code: string; retryAfterSeconds: number } };
}

/** A tools/call of the MCP ingest tool with one text source. */
function ingestCall(id: number, namespace: string) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'ingest', arguments: { namespace, sources: [{ type: 'text', value: `# Call ${id}\n\nStored by call ${id}.` }] } },
  };
}

function toolCall(id: number, name: string, toolArguments: Record<string, unknown>) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: toolArguments } };
}

async function mcp(service: TestService, body: unknown): Promise<JsonRpcAnswer[]> {
  const response = await service.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
    payload: JSON.stringify(body),
  });
  assert.equal(response.statusCode, 200, response.body);
  const answer = JSON.parse(response.body) as JsonRpcAnswer | JsonRpcAnswer[];
  return Array.isArray(answer) ? answer : [answer];
}

async function storedDocuments(service: TestService, namespace: string): Promise<number> {
  const [answer] = await mcp(service, toolCall(0, 'list_documents', { namespace }));
  const text = answer?.result?.content[0]?.text ?? '';
  // A namespace nothing was stored in does not exist.
  if (answer?.result?.isError === true && text.startsWith('not_found:')) return 0;
  return (JSON.parse(text) as { documents: unknown[] }).documents.length;
}

describe('request budget shared by HTTP routes and MCP tool calls', () => {
  let service: TestService;

  before(async () => {
    service = await startService({ apiKey: undefined, environment: { KNOWLEDGE_AGENT_RATE_LIMIT: '3' } });
  });
  after(async () => {
    await service.dispose();
  });

  it('counts MCP ingest calls against the HTTP routes, answers the call over budget with a JSON-RPC error, and leaves free tools alone', async () => {
    const http = () =>
      service.app.inject({
        method: 'POST',
        url: '/tools/ingest',
        payload: { namespace: 'shared', sources: [{ type: 'text', value: `x ${Math.random()}` }] },
      });
    assert.equal((await http()).statusCode, 200);
    const [first] = await mcp(service, ingestCall(1, 'shared'));
    assert.notEqual(first?.result?.isError, true, JSON.stringify(first));
    const [second] = await mcp(service, ingestCall(2, 'shared'));
    assert.notEqual(second?.result?.isError, true, JSON.stringify(second));

    const [refused] = await mcp(service, ingestCall(3, 'shared'));
    assert.equal(refused?.id, 3);
    assert.equal(refused?.error?.code, -32029);
    assert.equal(refused?.error?.data?.code, 'rate_limited');
    const retryAfter = refused?.error?.data?.retryAfterSeconds ?? 0;
    assert.ok(retryAfter > 0 && retryAfter <= 60, String(retryAfter));
    assert.match(
      refused?.error?.message ?? '',
      /^rate_limited: too many requests from this client: at most 3 a minute .*; retry in \d+ s$/,
    );

    const limited = await http();
    assert.equal(limited.statusCode, 429);
    assert.equal(JSON.parse(limited.body).error.code, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);

    for (let attempt = 0; attempt < 5; attempt++) {
      const [search] = await mcp(service, toolCall(10 + attempt, 'search_docs', { namespace: 'shared', query: 'stored', mode: 'lexical' }));
      assert.equal(search?.error, undefined, JSON.stringify(search));
    }
    assert.equal(await storedDocuments(service, 'shared'), 3, 'the refused call stored nothing');
  });
});

describe('a JSON-RPC batch on the MCP endpoint', () => {
  let service: TestService;

  before(async () => {
    service = await startService({ apiKey: undefined, environment: { KNOWLEDGE_AGENT_RATE_LIMIT: '20' } });
  });
  after(async () => {
    await service.dispose();
  });

  it('counts each call: of 100 ingest calls on a 20-a-minute instance, 20 run and 80 are refused', async () => {
    const answers = await mcp(
      service,
      Array.from({ length: 100 }, (_, index) => ingestCall(index + 1, 'batch')),
    );
    assert.equal(answers.length, 100);
    const refused = answers.filter((answer) => answer.error !== undefined);
    const ran = answers.filter((answer) => answer.result !== undefined && answer.result.isError !== true);
    assert.equal(ran.length, 20);
    assert.equal(refused.length, 80);
    assert.ok(refused.every((answer) => answer.error?.code === -32029 && answer.error.data?.code === 'rate_limited'));
    assert.equal(await storedDocuments(service, 'batch'), 20);
  });
});

describe('the MCP ingest tool keeps the per-request caps of the HTTP routes', () => {
  let service: TestService;

  before(async () => {
    service = await startService({ apiKey: undefined });
  });
  after(async () => {
    await service.dispose();
  });

  it('refuses more than 100 sources in one call, and stores none of them', async () => {
    const sources = Array.from({ length: 101 }, (_, index) => ({ type: 'text', value: `# Source ${index}\n\nText ${index}.` }));
    const [answer] = await mcp(service, toolCall(1, 'ingest', { namespace: 'capped', sources }));
    assert.equal(answer?.result?.isError, true);
    assert.match(answer?.result?.content[0]?.text ?? '', /sources/);
    assert.match(answer?.result?.content[0]?.text ?? '', /100/);
    assert.equal(await storedDocuments(service, 'capped'), 0);
  });

  it('reports a text over the per-source size limit as that source failing, like the HTTP routes', async () => {
    const [answer] = await mcp(
      service,
      toolCall(2, 'ingest', {
        namespace: 'capped',
        sources: [
          { type: 'text', value: `# Large\n\n${'word '.repeat(50_000)}` },
          { type: 'text', value: '# Small\n\nA small page.' },
        ],
      }),
    );
    const documents = (JSON.parse(answer?.result?.content[0]?.text ?? '{}') as { documents: { status: string; code?: string }[] })
      .documents;
    assert.deepEqual(
      documents.map((document) => document.code ?? document.status),
      ['source_too_large', 'saved'],
    );
  });
});
