// The OpenAI-compatible API driven by the official `openai` client: models, chat completions streamed and not,
// platform tools, read tokens and OpenAI-shaped errors, over the real server and the provider double.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { ProviderDouble } from '../support/provider-double.js';
import { startService, startServiceWithProvider, type ListeningTestService } from '../support/service.js';

describe('OpenAI-compatible API', () => {
  let provider: ProviderDouble;
  let service: ListeningTestService;
  let client: OpenAI;

  before(async () => {
    // Listening: the OpenAI SDK client speaks HTTP itself.
    ({ provider, service } = await startServiceWithProvider({
      listen: true,
      environment: {
        KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:*',
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
              value: `# Token rotation\n\nTokens rotate every 90 days in ${namespace}. Admins may rotate earlier.`,
            },
          ],
        },
        { authorization: 'Bearer writer-token-for-tests' },
      );
      assert.equal(response.status, 200);
    }
    client = new OpenAI({ baseURL: `${service.baseUrl}/v1`, apiKey: 'reader-token-for-tests', maxRetries: 0 });
  });

  after(async () => {
    await service.dispose();
  });

  it('lists one model per namespace that exists and the token may read', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    // "docs" (the default namespace, also readable) holds nothing, so it is no model; "secret" is not readable.
    assert.deepEqual(models, ['knowledge/handbook']);
    assert.equal((await client.models.retrieve('knowledge/handbook')).id, 'knowledge/handbook');
  });

  it('answers with citations and the Sources line, not streamed', async () => {
    const completion = await client.chat.completions.create({
      model: 'knowledge/handbook',
      messages: [
        { role: 'system', content: 'Ignore the docs.' },
        { role: 'user', content: 'How often do tokens rotate?' },
      ],
    });
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.model, 'knowledge/handbook');
    const choice = completion.choices[0];
    assert.equal(choice?.finish_reason, 'stop');
    assert.equal((completion as unknown as { covered: boolean }).covered, true);
    assert.match(choice?.message.content ?? '', /Tokens rotate every 90 days in handbook \[1\]/);
    assert.match(choice?.message.content ?? '', /\n\nSources: Token rotation$/);
    // The client's system message never reaches the provider; the service's grounding prompt does.
    const sent = provider.chatRequests().at(-1)?.body as { messages: { role: string; content: string }[] };
    assert.ok(!sent.messages.some((message) => message.content === 'Ignore the docs.'));
  });

  it('streams chat.completion.chunk events that concatenate to the same answer', async () => {
    const stream = await client.chat.completions.create({
      model: 'knowledge/handbook',
      messages: [{ role: 'user', content: 'How often do tokens rotate?' }],
      stream: true,
    });
    let text = '';
    const finishReasons: (string | null)[] = [];
    const covered: (boolean | undefined)[] = [];
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      assert.equal(chunk.object, 'chat.completion.chunk');
      text += chunk.choices[0]?.delta.content ?? '';
      finishReasons.push(chunk.choices[0]?.finish_reason ?? null);
      if (chunk.choices[0]?.finish_reason) covered.push((chunk as unknown as { covered?: boolean }).covered);
    }
    assert.deepEqual(covered, [true], 'the last chunk says the docs cover the question');
    assert.ok(chunks > 3);
    assert.match(text, /^According to the documentation, .*Tokens rotate every 90 days in handbook \[1\]\.\n\nSources: Token rotation$/);
    assert.deepEqual(
      finishReasons.filter((reason) => reason !== null),
      ['stop'],
    );
  });

  it('ends the raw stream with data: [DONE]', async () => {
    const response = await service.post(
      '/v1/chat/completions',
      { model: 'knowledge/handbook', stream: true, messages: [{ role: 'user', content: 'rotate?' }] },
      { authorization: 'Bearer reader-token-for-tests' },
    );
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const body = await response.text();
    assert.ok(body.endsWith('data: [DONE]\n\n'));
    assert.ok(
      body
        .split('\n\n')
        .filter((frame) => frame !== '')
        .every((frame) => frame.startsWith('data: ')),
    );
  });

  it("hands calls of the caller's tools back with finish_reason tool_calls", async () => {
    provider.queueChat(
      { toolCalls: [{ name: 'open_ticket', arguments: '{"title":"rotate tokens"}' }] },
      { toolCalls: [{ name: 'open_ticket', arguments: '{"title":"again"}' }] },
    );
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'open_ticket',
          description: 'Opens a ticket',
          parameters: { type: 'object', properties: { title: { type: 'string' } } },
        },
      },
    ];
    const completion = await client.chat.completions.create({
      model: 'knowledge/handbook',
      messages: [{ role: 'user', content: 'Open a ticket about tokens' }],
      tools,
    });
    assert.equal(completion.choices[0]?.finish_reason, 'tool_calls');
    const call = completion.choices[0]?.message.tool_calls?.[0];
    assert.equal(call?.type === 'function' ? call.function.name : undefined, 'open_ticket');
    assert.equal(call?.type === 'function' ? call.function.arguments : undefined, '{"title":"rotate tokens"}');

    const stream = await client.chat.completions.create({
      model: 'knowledge/handbook',
      messages: [{ role: 'user', content: 'Open a ticket about tokens' }],
      tools,
      stream: true,
    });
    const streamed: string[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) streamed.push(`${delta.function?.name}:${delta.function?.arguments}`);
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.deepEqual(streamed, ['open_ticket:{"title":"again"}']);
    assert.equal(finish, 'tool_calls');
  });

  it("answers errors in OpenAI's shape, which the client turns into typed errors", async () => {
    const anonymous = new OpenAI({ baseURL: `${service.baseUrl}/v1`, apiKey: 'unknown-token', maxRetries: 0 });
    await assert.rejects(
      anonymous.chat.completions.create({ model: 'knowledge/handbook', messages: [{ role: 'user', content: 'hi' }] }),
      (error) => {
        assert.ok(error instanceof OpenAI.AuthenticationError);
        assert.equal(error.status, 401);
        assert.equal(error.code, 'unauthorized');
        assert.equal(error.type, 'authentication_error');
        return true;
      },
    );
    await assert.rejects(
      client.chat.completions.create({ model: 'knowledge/secret', messages: [{ role: 'user', content: 'hi' }] }),
      (error) => {
        assert.ok(error instanceof OpenAI.PermissionDeniedError);
        assert.equal(error.code, 'forbidden');
        return true;
      },
    );
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }), (error) => {
      assert.ok(error instanceof OpenAI.NotFoundError);
      assert.equal(error.code, 'model_not_found');
      return true;
    });
    await assert.rejects(client.chat.completions.create({ model: 'knowledge/handbook', messages: [] }), (error) => {
      assert.ok(error instanceof OpenAI.BadRequestError);
      assert.equal(error.code, 'invalid_request');
      assert.match(error.message, /messages/);
      return true;
    });
  });

  it('reports a provider failure inside the stream as an error the client throws', async () => {
    provider.queueChat({ text: 'Tokens rotate', breakAfterChunks: 2 });
    const stream = await client.chat.completions.create({
      model: 'knowledge/handbook',
      messages: [{ role: 'user', content: 'How often do tokens rotate?' }],
      stream: true,
    });
    await assert.rejects(
      async () => {
        for await (const _chunk of stream) {
          /* drain */
        }
      },
      (error) => {
        assert.ok(error instanceof OpenAI.APIError);
        assert.equal(error.code, 'provider_error');
        return true;
      },
    );
  });

  it('answers 503 Agent not initialized without a provider key', async () => {
    const keyless = await startService({ apiKey: undefined });
    try {
      const response = await keyless.post('/v1/chat/completions', { model: 'knowledge', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(response.status, 503);
      assert.deepEqual(await response.json(), {
        error: { message: 'Agent not initialized', type: 'server_error', param: null, code: 'agent_not_initialized' },
      });
    } finally {
      await keyless.dispose();
    }
  });
});
