// POST /agent with an AG-UI body: the event sequence, the official HttpAgent client, platform tools, failures.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HttpAgent } from '@ag-ui/client';
import type { ProviderDouble } from '../support/provider-double.js';
import { startServiceWithProvider, type ListeningTestService } from '../support/service.js';
import { parseSseData } from '../support/sse.js';

type Event = { type: string; [key: string]: unknown };

describe('POST /agent (AG-UI)', () => {
  let provider: ProviderDouble;
  let service: ListeningTestService;

  before(async () => {
    // Listening: the official AG-UI HttpAgent client speaks HTTP itself.
    ({ provider, service } = await startServiceWithProvider({ listen: true }));
    await service.post('/tools/ingest', {
      namespace: 'ops',
      sources: [
        {
          type: 'text',
          title: 'Restarting',
          value: '# Restarting\n\nRestart the worker with systemctl restart worker. It drains jobs first.',
        },
        { type: 'text', title: 'Scaling', value: '# Scaling\n\nAdd replicas in deploy.yaml to scale the worker pool.' },
      ],
    });
    await service.post('/tools/ingest', {
      namespace: 'other',
      sources: [{ type: 'text', title: 'Other', value: 'Restart nothing here, other namespace.' }],
    });
  });

  after(async () => {
    await service.dispose();
  });

  async function run(body: Record<string, unknown>): Promise<Event[]> {
    const response = await service.post('/agent', body, { accept: 'text/event-stream' });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    return parseSseData(await response.text()) as Event[];
  }

  const input = (extra: Record<string, unknown> = {}) => ({
    threadId: 'thread-1',
    runId: 'run-1',
    messages: [{ id: 'm1', role: 'user', content: 'How do I restart the worker?' }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
    toolParams: { namespace: 'ops' },
    ...extra,
  });

  it('streams RUN_STARTED, the retrieval tool call, the answer, then RUN_FINISHED', async () => {
    const events = await run(input());
    const types = events.map((event) => event.type);
    assert.deepEqual(types.slice(0, 5), ['RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT']);
    assert.equal(types.at(-1), 'RUN_FINISHED');
    assert.equal(types.at(-2), 'TEXT_MESSAGE_END');
    assert.deepEqual({ threadId: events[0]?.threadId, runId: events[0]?.runId }, { threadId: 'thread-1', runId: 'run-1' });
    assert.equal(events[1]?.toolCallName, 'searchDocs');
    assert.deepEqual(JSON.parse(String(events[2]?.delta)), { namespace: 'ops', query: 'How do I restart the worker?' });
    const result = JSON.parse(String(events[4]?.content)) as { results: { file: string }[] };
    assert.equal(result.results[0]?.file, 'restarting.md');
    const text = events
      .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
      .map((event) => event.delta)
      .join('');
    assert.equal(text.split('\n').at(-1), 'Sources: restarting.md');
    // RUN_FINISHED's result says whether the docs cover the question, and what the answer cites.
    assert.deepEqual(events.at(-1)?.result, { covered: true, sources: ['restarting.md'] });
    assert.ok(!events.some((event) => (event as unknown) === '[DONE]'), 'no [DONE] in AG-UI');
  });

  it('takes the namespace from toolParams, then forwardedProps, then state', async () => {
    const namespaceOf = async (extra: Record<string, unknown>) => JSON.parse(String((await run(input(extra)))[2]?.delta)).namespace;
    assert.equal(
      await namespaceOf({ toolParams: { namespace: 'ops' }, forwardedProps: { namespace: 'other' }, state: { namespace: 'other' } }),
      'ops',
    );
    assert.equal(
      await namespaceOf({ toolParams: undefined, forwardedProps: { namespace: 'other' }, state: { namespace: 'ops' } }),
      'other',
    );
    assert.equal(await namespaceOf({ toolParams: undefined, forwardedProps: {}, state: { namespace: 'ops' } }), 'ops');
    assert.equal(await namespaceOf({ toolParams: undefined, forwardedProps: {}, state: {} }), 'docs');
  });

  it('needs no mention', async () => {
    const events = await run(input({ messages: [{ id: 'm1', role: 'user', content: 'scale the worker pool' }] }));
    assert.ok(events.some((event) => event.type === 'TEXT_MESSAGE_CONTENT'));
  });

  it("ends the run after a platform tool call's TOOL_CALL_END", async () => {
    provider.queueChat({ toolCalls: [{ id: 'call_page', name: 'page_oncall', arguments: '{"team":"ops"}' }] });
    const tools = [
      {
        name: 'page_oncall',
        description: 'Page the on-call engineer',
        parameters: { type: 'object', properties: { team: { type: 'string' } } },
      },
    ];
    const events = await run(input({ tools }));
    const types = events.map((event) => event.type);
    assert.deepEqual(types.slice(-4), ['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED']);
    assert.equal(events.at(-4)?.toolCallName, 'page_oncall');
    assert.equal(events.at(-3)?.delta, '{"team":"ops"}');
  });

  it('sends RUN_ERROR and nothing after it when the provider fails', async () => {
    provider.queueChat({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const events = await run(input());
    assert.equal(events.at(-1)?.type, 'RUN_ERROR');
    assert.equal(events.at(-1)?.code, 'provider_error');
    assert.ok(!events.some((event) => event.type === 'RUN_FINISHED'));
  });

  it('answers 400 for an AG-UI body without messages', async () => {
    const response = await service.post('/agent', { threadId: 't', runId: 'r' });
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as { error: { message: string } }).error.message, /^messages/);
  });

  it('runs with the official AG-UI HttpAgent client, which assembles the tool call and the answer', async () => {
    const agent = new HttpAgent({
      url: `${service.baseUrl}/agent`,
      threadId: 'thread-http',
      initialMessages: [{ id: 'u1', role: 'user', content: 'How do I restart the worker?' }],
    });
    const seen: string[] = [];
    const { newMessages } = await agent.runAgent(
      { runId: 'run-http', forwardedProps: { namespace: 'ops' } },
      { onEvent: ({ event }) => void seen.push(event.type) },
    );
    assert.equal(seen[0], 'RUN_STARTED');
    assert.equal(seen.at(-1), 'RUN_FINISHED');
    const toolCallMessage = newMessages.find((message) => message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0);
    assert.equal(toolCallMessage?.role === 'assistant' ? toolCallMessage.toolCalls?.[0]?.function.name : undefined, 'searchDocs');
    const toolResult = newMessages.find((message) => message.role === 'tool');
    assert.match(String(toolResult?.content), /restarting\.md/);
    const answer = newMessages
      .filter((message) => message.role === 'assistant' && typeof message.content === 'string' && message.content !== '')
      .at(-1);
    assert.match(String(answer?.content), /Sources: restarting\.md$/);
  });
});
