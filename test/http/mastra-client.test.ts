// Mastra's own client SDK (@mastra/client-js, from test/clients/) against the real server: generate, stream,
// agent details, agent and tool listings, tool execution, the namespace from the runtime context, and tokens.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadMastraClient, type LoadedMastraClient, type MastraChunk, type MastraClient } from '../support/mastra-client.js';
import type { ProviderDouble } from '../support/provider-double.js';
import { startServiceWithProvider, type ListeningTestService } from '../support/service.js';

describe('Mastra client SDK', () => {
  let provider: ProviderDouble;
  let service: ListeningTestService;
  let mastra: LoadedMastraClient;
  let client: MastraClient;

  before(async () => {
    mastra = await loadMastraClient();
    // Listening: the Mastra client speaks HTTP itself.
    ({ provider, service } = await startServiceWithProvider({
      listen: true,
      environment: {
        KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:handbook',
        KNOWLEDGE_AGENT_READ_TOKENS: 'reader-token-for-tests:handbook,docs',
      },
    }));
    const response = await service.post(
      '/api/tools/ingest',
      {
        namespace: 'handbook',
        sources: [
          {
            type: 'markdown',
            title: 'Token rotation',
            value: '# Token rotation\n\nTokens rotate every 90 days. Admins may rotate earlier.',
          },
        ],
      },
      { authorization: 'Bearer writer-token-for-tests' },
    );
    assert.equal(response.status, 200);
    client = mastra.create({ baseUrl: service.baseUrl, headers: { authorization: 'Bearer reader-token-for-tests' }, retries: 0 });
  });

  after(async () => {
    await service?.dispose();
  });

  it('runs against the client for this Node: 0.17 on Node 20, the newest on Node >= 22.13', () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    assert.equal(mastra.version, major > 22 || (major === 22 && minor >= 13) ? '1.47.0' : '0.17.2');
  });

  it('generates a cited answer, the namespace taken from the runtime context (requestContext in 1.x)', async () => {
    const answer = await client.getAgent('knowledge').generate({
      messages: [{ role: 'user', content: 'How often do tokens rotate?' }],
      [mastra.contextKey]: { namespace: 'handbook' },
    });
    assert.match(answer.text, /Tokens rotate every 90 days \[1\]/);
    assert.match(answer.text, /\n\nSources: token-rotation\.md$/);
    assert.deepEqual(answer.sources, ['token-rotation.md']);
    assert.equal(answer.toolCalls[0]?.args.namespace, 'handbook');
  });

  it('streams the answer in the chunk format the client parses', async () => {
    const response = await client.getAgent('knowledge').stream({
      messages: [{ role: 'user', content: 'How often do tokens rotate?' }],
      [mastra.contextKey]: { namespace: 'handbook' },
    });
    const chunks: MastraChunk[] = [];
    await response.processDataStream({ onChunk: async (chunk) => void chunks.push(chunk) });
    const types = chunks.map((chunk) => chunk.type);
    assert.deepEqual(types.slice(0, 4), ['start', 'step-start', 'tool-call', 'tool-result']);
    assert.deepEqual(types.slice(-2), ['step-finish', 'finish']);
    assert.ok(chunks.every((chunk) => chunk.from === 'AGENT' && chunk.runId === chunks[0]?.runId));
    const toolCall = chunks.find((chunk) => chunk.type === 'tool-call');
    assert.equal(toolCall?.payload.toolName, 'searchDocs');
    assert.equal(toolCall?.payload.args.namespace, 'handbook');
    const toolResult = chunks.find((chunk) => chunk.type === 'tool-result');
    assert.equal(toolResult?.payload.result.results[0]?.file, 'token-rotation.md');
    const text = chunks
      .filter((chunk) => chunk.type === 'text-delta')
      .map((chunk) => chunk.payload.text as string)
      .join('');
    assert.match(text, /Tokens rotate every 90 days \[1\]\.\n\nSources: token-rotation\.md$/);
    const finish = chunks.at(-1);
    assert.equal(finish?.payload.stepResult.reason, 'stop');
    assert.deepEqual(finish?.payload.metadata.sources, ['token-rotation.md']);
  });

  it('streams a provider failure as an error chunk', async () => {
    provider.queueChat({ status: 400, errorMessage: 'bad request' });
    const response = await client
      .getAgent('knowledge')
      .stream({ messages: [{ role: 'user', content: 'tokens?' }], [mastra.contextKey]: { namespace: 'handbook' } });
    const chunks: MastraChunk[] = [];
    await response.processDataStream({ onChunk: async (chunk) => void chunks.push(chunk) });
    assert.equal(chunks.at(-1)?.type, 'error');
    assert.equal(chunks.at(-1)?.payload.error.code, 'provider_error');
  });

  it('describes the agent and lists agents and tools', async () => {
    const details = await client.getAgent('knowledge').details();
    assert.equal(details.name, 'knowledge');
    assert.match(details.instructions, /documentation expert/);
    assert.deepEqual(Object.keys(details.tools), ['searchDocs']);
    assert.equal(details.modelId, 'gpt-4o-mini');

    const agents = await client.agents();
    assert.deepEqual(Object.keys(agents), ['knowledge']);

    const tools = await client.tools();
    assert.deepEqual(Object.keys(tools).sort(), ['ingest', 'searchDocs']);
    const inputSchema = JSON.parse(tools.searchDocs.inputSchema).json;
    assert.deepEqual(inputSchema.required, ['query']);
    assert.ok('namespace' in inputSchema.properties);
    assert.equal((await client.getTool('searchDocs').details()).id, 'searchDocs');
    assert.equal((await client.getAgent('knowledge').getTool('searchDocs')).id, 'searchDocs');
  });

  it('executes searchDocs, the namespace from data or from the runtime context', async () => {
    const fromData = await client
      .getTool('searchDocs')
      .execute({ data: { namespace: 'handbook', query: 'rotate tokens' }, runId: 'run-1' });
    assert.equal(fromData.results[0]?.file, 'token-rotation.md');
    const fromContext = await client
      .getTool('searchDocs')
      .execute({ data: { query: 'rotate tokens' }, [mastra.contextKey]: { namespace: 'handbook' } });
    assert.equal(fromContext.namespace, 'handbook');
    assert.equal(fromContext.results[0]?.file, 'token-rotation.md');
    const throughAgent = await client
      .getAgent('knowledge')
      .executeTool('searchDocs', { data: { query: 'rotate tokens' }, [mastra.contextKey]: { namespace: 'handbook' } });
    assert.equal(throughAgent.results[0]?.file, 'token-rotation.md');
  });

  it('executes ingest with a write token only', async () => {
    await assert.rejects(
      client
        .getTool('ingest')
        .execute({ data: { sources: ['# On call\n\nOn-call changes weekly.'] }, [mastra.contextKey]: { namespace: 'handbook' } }),
      /status: 401/,
    );
    const writer = mastra.create({ baseUrl: service.baseUrl, headers: { authorization: 'Bearer writer-token-for-tests' }, retries: 0 });
    await assert.rejects(writer.getTool('ingest').execute({ data: { namespace: 'docs', sources: ['x'] } }), /status: 403/);
    const saved = await writer.getTool('ingest').execute({
      data: { sources: [{ type: 'markdown', value: '# On call\n\nOn-call changes weekly.' }] },
      [mastra.contextKey]: { namespace: 'handbook' },
    });
    assert.equal(saved.namespace, 'handbook');
    assert.equal(saved.saved, 1);
  });

  it('is refused without a token, by the same rules as every read route', async () => {
    const anonymous = mastra.create({ baseUrl: service.baseUrl, retries: 0 });
    await assert.rejects(anonymous.agents(), /status: 401/);
    await assert.rejects(
      client.getAgent('knowledge').generate({ messages: [{ role: 'user', content: 'hi' }], [mastra.contextKey]: { namespace: 'secret' } }),
      /status: 403/,
    );
  });
});
