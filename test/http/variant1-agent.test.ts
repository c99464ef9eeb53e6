// POST /agent with a Variant 1 body: mention gate, retrieval events, cited streamed answer, platform tools, failures.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProviderDouble } from '../support/provider-double.js';
import { startService, startServiceWithProvider, testApiKey, type ListeningTestService } from '../support/service.js';
import { parseSseData, variant1Answer } from '../support/sse.js';

type Event = { type?: string; [key: string]: unknown };

describe('POST /agent (Variant 1)', () => {
  let provider: ProviderDouble;
  let service: ListeningTestService;

  before(async () => {
    // Listening: a client that disconnects in the middle of the stream, stopping the provider call, is one test's subject.
    ({ provider, service } = await startServiceWithProvider({ listen: true }));
    const response = await service.post('/tools/ingest', {
      namespace: 'handbook',
      sources: [
        {
          type: 'text',
          title: 'Vacation Policy',
          value: '# Vacation Policy\n\nEmployees get twenty-five vacation days per year. Unused days expire in March.',
        },
        {
          type: 'text',
          title: 'Expense Reports',
          value: '# Expense Reports\n\nSubmit expense reports within thirty days through the finance portal.',
        },
      ],
    });
    assert.equal(response.status, 200);
  });

  after(async () => {
    await service.dispose();
  });

  async function run(body: unknown): Promise<{ response: Response; events: Event[]; raw: string }> {
    const response = await service.post('/agent', body);
    const raw = await response.text();
    return { response, events: parseSseData(raw) as Event[], raw };
  }

  const ask = (content: string, extra: Record<string, unknown> = {}) => ({
    thread_id: 't1',
    run_id: 'r1',
    messages: [{ role: 'user', content }],
    tool_params: { namespace: 'handbook' },
    ...extra,
  });

  it('stays silent (only [DONE]) without the mention', async () => {
    const chatBefore = provider.chatRequests().length;
    const { response, raw } = await run(ask('how many vacation days do I get?'));
    assert.equal(response.status, 200);
    assert.equal(raw, 'data: [DONE]\n\n');
    assert.equal(provider.chatRequests().length, chatBefore);
  });

  it('retrieves, then streams a cited answer ending with the Sources line, then [DONE]', async () => {
    const { response, events, raw } = await run(ask('@Knowledge how many vacation days do I get?'));
    assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.ok(raw.endsWith('data: [DONE]\n\n'));
    for (const frame of raw.split('\n\n').filter((part) => part !== '')) assert.match(frame, /^data: /);

    const [start, result] = events;
    assert.equal(start?.type, 'tool_call_start');
    assert.equal(start?.tool_name, 'search_docs');
    assert.deepEqual(start?.args, { namespace: 'handbook', query: 'how many vacation days do I get?' });
    assert.equal(result?.type, 'tool_call_result');
    assert.equal(result?.tool_call_id, start?.tool_call_id);
    assert.equal(result?.is_frontend_tool, false);
    const matches = (result?.result as { matches: { title: string; source: string }[] }).matches;
    assert.equal(matches[0]?.title, 'Vacation Policy');
    assert.equal(
      matches[0]?.source,
      join(service.config.storagePath, 'handbook', 'vacation-policy.md'),
      'the stored file, as /tools/search names it',
    );

    const answer = variant1Answer(events);
    assert.match(answer, /twenty-five vacation days per year \[1\]/);
    assert.equal(answer.split('\n').at(-1), 'Sources: Vacation Policy');
    assert.equal(events.at(-1), '[DONE]');

    const prompt = provider.chatRequests().at(-1)?.body.messages[0].content as string;
    assert.match(prompt, /\[1\] Vacation Policy\n# Vacation Policy/);
  });

  it("removes citations of snippets that do not exist and replaces the model's own Sources line", async () => {
    provider.queueChat({ text: 'Submit reports within thirty days [2]. Also see [9] and [1].\n\nSources: Invented Handbook' });
    const { events } = await run(ask('@knowledge when are expense reports due?'));
    const answer = variant1Answer(events);
    assert.doesNotMatch(answer, /\[9\]|Invented Handbook/);
    const matches = (events[1]?.result as { matches: { title: string }[] }).matches;
    const lines = answer.split('\n');
    assert.equal(lines.at(-1), `Sources: ${[matches[1]?.title, matches[0]?.title].join(', ')}`);
  });

  it('closes a code block the answer left open, so the Sources line stays outside it', async () => {
    provider.queueChat({ text: 'Run this [1]:\n\n```sh\nvacation --days 25' });
    const answer = variant1Answer((await run(ask('@knowledge vacation command?'))).events);
    assert.match(answer, /```sh\nvacation --days 25\n```\n\nSources: Vacation Policy$/);
  });

  it('says so and ends with "Sources: none" when nothing was found, without calling the model', async () => {
    // A namespace that exists but holds nothing (one that does not exist is said as such: unknown-namespace.test.ts).
    const stored = await service.post('/tools/ingest', {
      namespace: 'empty-namespace',
      sources: [{ type: 'text', title: 'Brief', value: 'Soon deleted.' }],
    });
    assert.equal(stored.status, 200);
    assert.equal((await service.request('/tools/documents?namespace=empty-namespace&file=brief.md', { method: 'DELETE' })).status, 200);
    const chatBefore = provider.chatRequests().length;
    const { events } = await run(ask('@knowledge anything?', { tool_params: { namespace: 'empty-namespace' } }));
    const answer = variant1Answer(events);
    assert.match(answer, /could not find/i);
    assert.equal(answer.split('\n').at(-1), 'Sources: none');
    assert.equal(provider.chatRequests().length, chatBefore);
  });

  it('offers platform tools to the model and hands a call back with is_frontend_tool', async () => {
    provider.queueChat({ toolCalls: [{ id: 'call_ticket', name: 'create_ticket', arguments: '{"title":"Vacation question"}' }] });
    const tools = [
      {
        name: 'create_ticket',
        description: 'Open a support ticket',
        parameters: { type: 'object', properties: { title: { type: 'string' } } },
      },
    ];
    const { events } = await run(ask('@knowledge open a ticket about my vacation', { tools }));
    const offered = provider.chatRequests().at(-1)?.body.tools;
    assert.equal(offered?.[0]?.function?.name, 'create_ticket');
    const types = events.map((event) => (typeof event === 'string' ? event : event.type));
    assert.deepEqual(types, ['tool_call_start', 'tool_call_result', 'tool_call_start', 'tool_call_result', '[DONE]']);
    assert.deepEqual(events[2], {
      type: 'tool_call_start',
      tool_call_id: 'call_ticket',
      tool_name: 'create_ticket',
      args: { title: 'Vacation question' },
    });
    assert.deepEqual(events[3], { type: 'tool_call_result', tool_call_id: 'call_ticket', result: null, is_frontend_tool: true });

    // The platform runs the tool and calls again with the history.
    const { events: second } = await run({
      thread_id: 't1',
      run_id: 'r2',
      tool_params: { namespace: 'handbook' },
      tools,
      messages: [
        { role: 'user', content: '@knowledge open a ticket about my vacation' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_ticket', type: 'function', function: { name: 'create_ticket', arguments: '{"title":"Vacation question"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_ticket', content: 'Ticket #42 created' },
      ],
    });
    const sent = provider.chatRequests().at(-1)?.body.messages as { role: string; tool_call_id?: string; content: string }[];
    assert.deepEqual(
      sent.slice(-2).map((message) => message.role),
      ['assistant', 'tool'],
    );
    assert.equal(sent.at(-1)?.content, 'Ticket #42 created');
    assert.match(variant1Answer(second), /Sources: /);
  });

  it('turns a provider error into an error event followed by [DONE]', async () => {
    provider.queueChat({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const { events } = await run(ask('@knowledge vacation days?'));
    const error = events.find((event) => event?.type === 'error');
    assert.equal(error?.code, 'provider_error');
    assert.match(String(error?.message), /500/);
    assert.equal(events.at(-1), '[DONE]');
  });

  it('turns a broken provider stream into an error event followed by [DONE]', async () => {
    provider.queueChat({ text: 'Employees get twenty-five days and more words here', breakAfterChunks: 3 });
    const { events } = await run(ask('@knowledge vacation days?'));
    assert.equal(events.at(-2)?.type, 'error');
    assert.equal(events.at(-2)?.code, 'provider_error');
    assert.equal(events.at(-1), '[DONE]');
  });

  it('aborts the provider call when the client disconnects', async () => {
    const abortedBefore = provider.abortedChatStreams;
    provider.queueChat({ text: 'word '.repeat(400), delayMs: 20 });
    const controller = new AbortController();
    const response = await fetch(`${service.baseUrl}/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ask('@knowledge vacation days?')),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    let seen = '';
    while (!seen.includes('text_message')) {
      const { value, done } = (await reader?.read()) ?? { done: true, value: undefined };
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    controller.abort();
    await provider.waitForAbortedChatStreams(abortedBefore + 1);
    assert.equal(provider.abortedChatStreams, abortedBefore + 1);
  });

  it('validates the body, and names a field it does not have instead of ignoring it', async () => {
    const response = await service.post('/agent', { thread_id: 't', messages: 'hello' });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'invalid_request');

    const misplaced = await service.post('/agent', { namespace: 'handbook', messages: [{ role: 'user', content: '@knowledge hi' }] });
    assert.equal(misplaced.status, 400);
    assert.deepEqual(await misplaced.json(), {
      error: {
        code: 'invalid_request',
        message:
          'body: unknown field "namespace" (the fields are thread_id, run_id, messages, tool_params, tools); the namespace goes in tool_params.namespace',
      },
    });
  });
});

describe('without a provider key', () => {
  it('answers 503 "Agent not initialized" on /agent, and ingests and searches with the local embedding model', async () => {
    const service = await startService({ apiKey: undefined });
    try {
      const agent = await service.post('/agent', { messages: [{ role: 'user', content: '@knowledge hi' }] });
      assert.equal(agent.status, 503);
      assert.deepEqual(await agent.json(), { error: { code: 'agent_not_initialized', message: 'Agent not initialized' } });

      const ingest = await service.post('/tools/ingest', { sources: [{ type: 'text', value: 'Stored without vectors.', title: 'Plain' }] });
      assert.equal(ingest.status, 200);
      assert.equal(((await ingest.json()) as { documents: { status: string }[] }).documents[0]?.status, 'saved');

      const search = await service.post('/tools/search', { query: 'stored without vectors' });
      assert.equal(search.status, 200);
      const result = (await search.json()) as { mode: string; matches: { title: string; score: number }[] };
      assert.equal(result.mode, 'embedding');
      assert.equal(result.matches[0]?.title, 'Plain');
      assert.ok((result.matches[0]?.score ?? 0) > 0.5, 'a cosine from the local model');
      const health = (await (await service.get('/health')).json()) as { embedding_model: string; chat_model: string | null };
      assert.equal(health.embedding_model, 'local:all-MiniLM-L6-v2-int8');
      assert.equal(health.chat_model, null);
    } finally {
      await service.dispose();
    }
  });
});

describe('the provider key', () => {
  it('appears in no response, event or log line of any route, even when the provider echoes it in an error', async () => {
    // Lexical retrieval needs no embedding, so the Variant 2 runs reach the chat model and its refusal.
    const { service } = await startServiceWithProvider({
      provider: { requiredApiKey: 'sk-the-real-key-that-differs-9999' },
      environment: { KNOWLEDGE_AGENT_RETRIEVAL: 'lexical' },
    });
    try {
      const ingest = await service.post('/tools/ingest', { sources: [{ type: 'text', value: 'some text', title: 'T' }] });
      const ingestBody = await ingest.text();
      const response = await service.post('/agent', {
        messages: [{ role: 'user', content: '@knowledge hi' }],
        tool_params: { namespace: 'docs' },
      });
      const raw = await response.text();
      // A document placed by hand gives lexical retrieval a hit, so Variant 2 runs reach the provider too. The folder is
      // made here: the failed ingest above stored nothing, so it created no namespace.
      await mkdir(join(service.storageRoot, 'docs'), { recursive: true });
      await writeFile(join(service.storageRoot, 'docs', 'greeting.md'), '# Greeting\n\nhi there\n');
      const generate = await (await service.post('/api/agents/knowledge/generate', { messages: [{ role: 'user', content: 'hi' }] })).text();
      const agUi = await (
        await service.post('/agent', { threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'user', content: 'hi' }] })
      ).text();
      assert.match(generate, /provider_error/);
      const search = await (await service.post('/tools/search', { query: 'hi' })).text();
      assert.match(agUi, /RUN_ERROR/);
      // The other wire formats of the same run: OpenAI chat (streamed and not) and Mastra's stream.
      const chat = await (
        await service.post('/v1/chat/completions', { model: 'knowledge/docs', messages: [{ role: 'user', content: 'hi' }] })
      ).text();
      const chatStream = await (
        await service.post('/v1/chat/completions', { model: 'knowledge/docs', stream: true, messages: [{ role: 'user', content: 'hi' }] })
      ).text();
      const mastraStream = await (
        await service.post('/api/agents/knowledge/stream', { messages: [{ role: 'user', content: 'hi' }] })
      ).text();
      assert.match(chat, /provider_error/);
      assert.match(chatStream, /provider_error/);
      assert.match(mastraStream, /provider_error/);
      for (const text of [ingestBody, raw, generate, agUi, search, chat, chatStream, mastraStream, ...service.logs]) {
        assert.ok(!text.includes(testApiKey), `key leaked: ${text.slice(0, 200)}`);
        assert.ok(!/sk-te\*+/.test(text), `masked key leaked: ${text.slice(0, 200)}`);
      }
      assert.match(ingestBody, /embedding_failed/);
      assert.match(ingestBody, /credentials/);
    } finally {
      await service.dispose();
    }
  });
});
