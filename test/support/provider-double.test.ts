// Proves the provider double speaks the OpenAI wire format by driving it with the real `openai` client.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import OpenAI from 'openai';
import { startProviderDouble, type ProviderDouble } from './provider-double.js';

const apiKey = 'sk-test-secret-1234';

async function startDouble(context: TestContext, options?: Parameters<typeof startProviderDouble>[0]) {
  const double = await startProviderDouble(options);
  context.after(() => double.close());
  return double;
}

function clientFor(double: ProviderDouble, options: { apiKey?: string; maxRetries?: number } = {}): OpenAI {
  return new OpenAI({ apiKey: options.apiKey ?? apiKey, baseURL: double.baseUrl, maxRetries: options.maxRetries ?? 0 });
}

function cosine(left: number[], right: number[]): number {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  left.forEach((value, index) => {
    const other = right[index] ?? 0;
    dot += value * other;
    leftNorm += value * value;
    rightNorm += other * other;
  });
  return dot / Math.sqrt(leftNorm * rightNorm);
}

const relatedTexts = [
  'How do I install the command line tool on Linux?',
  'Install the command line tool with the Linux package manager.',
  'Billing invoices are emailed monthly to the account owner.',
];

test('embeddings round-trip through the default base64 path and rank related texts higher', async (context) => {
  const double = await startDouble(context);
  const response = await clientFor(double).embeddings.create({ model: 'text-embedding-3-small', input: relatedTexts });

  assert.equal(double.embeddingRequests()[0]?.body.encoding_format, 'base64');
  assert.equal(response.model, 'text-embedding-3-small');
  assert.deepEqual(
    response.data.map((item) => item.index),
    [0, 1, 2],
  );
  const [question, related, unrelated] = response.data.map((item) => item.embedding);
  assert.ok(question && related && unrelated);
  assert.equal(question.length, double.embeddingDimensions);
  assert.ok(Math.abs(cosine(question, question) - 1) < 1e-5);
  assert.ok(cosine(question, related) > cosine(question, unrelated) + 0.3);
  assert.ok(response.usage.prompt_tokens > 0);
});

test('embeddings honour encoding_format float and match the base64 vectors', async (context) => {
  const double = await startDouble(context, { embeddingDimensions: 32 });
  const client = clientFor(double);
  const floats = await client.embeddings.create({ model: 'e', input: 'install the tool', encoding_format: 'float' });
  const decoded = await client.embeddings.create({ model: 'e', input: 'install the tool' });

  const floatVector = floats.data[0]?.embedding;
  assert.ok(Array.isArray(floatVector) && typeof floatVector[0] === 'number');
  assert.equal(floatVector.length, 32);
  assert.deepEqual(decoded.data[0]?.embedding, floatVector);
});

test('embeddings reject an empty input like the real provider', async (context) => {
  const double = await startDouble(context);
  await assert.rejects(clientFor(double).embeddings.create({ model: 'e', input: '' }), { status: 400, param: 'input' });
});

test('a streamed chat concatenates to the scripted text in several deltas', async (context) => {
  const double = await startDouble(context);
  double.queueChat({ text: 'Install it with npm install [1].' });
  const stream = await clientFor(double).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'How do I install it?' }],
    stream: true,
  });
  const deltas: string[] = [];
  const finishReasons: Array<string | null | undefined> = [];
  for await (const chunk of stream) {
    assert.equal(chunk.object, 'chat.completion.chunk');
    const choice = chunk.choices[0];
    if (choice?.delta.content) deltas.push(choice.delta.content);
    finishReasons.push(choice?.finish_reason);
  }
  assert.equal(deltas.join(''), 'Install it with npm install [1].');
  assert.ok(deltas.length > 3);
  assert.equal(finishReasons.at(-1), 'stop');
  assert.equal(double.chatRequests()[0]?.body.stream, true);
});

test('streamed tool calls reassemble to names and JSON arguments', async (context) => {
  const double = await startDouble(context);
  const searchArguments = { query: 'install on linux', namespace: 'docs', limit: 5 };
  double.queueChat({
    toolCalls: [
      { id: 'call_search', name: 'search_docs', arguments: JSON.stringify(searchArguments) },
      { name: 'read_page', arguments: '{"path":"guide/install.md"}' },
    ],
  });
  const stream = await clientFor(double).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'How do I install it?' }],
    tools: [{ type: 'function', function: { name: 'search_docs', parameters: { type: 'object' } } }],
    stream: true,
  });
  const calls: Array<{ id: string; name: string; arguments: string; fragments: number }> = [];
  let finishReason: string | null | undefined;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    finishReason = choice?.finish_reason ?? finishReason;
    for (const delta of choice?.delta.tool_calls ?? []) {
      const call = (calls[delta.index] ??= { id: '', name: '', arguments: '', fragments: 0 });
      call.id += delta.id ?? '';
      call.name += delta.function?.name ?? '';
      call.arguments += delta.function?.arguments ?? '';
      if (delta.function?.arguments) call.fragments += 1;
    }
  }
  assert.equal(finishReason, 'tool_calls');
  assert.equal(calls.length, 2);
  assert.equal(calls[0]?.id, 'call_search');
  assert.equal(calls[0]?.name, 'search_docs');
  assert.deepEqual(JSON.parse(calls[0]?.arguments ?? ''), searchArguments);
  assert.ok((calls[0]?.fragments ?? 0) > 2);
  assert.match(calls[1]?.id ?? '', /^call_/);
  assert.deepEqual(JSON.parse(calls[1]?.arguments ?? ''), { path: 'guide/install.md' });
});

test('a non-streaming chat answers a chat.completion with tool calls', async (context) => {
  const double = await startDouble(context);
  double.queueChat({ toolCalls: [{ name: 'search_docs', arguments: '{"query":"x"}' }] });
  const completion = await clientFor(double).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'x' }],
  });
  assert.equal(completion.object, 'chat.completion');
  assert.equal(completion.choices[0]?.finish_reason, 'tool_calls');
  const toolCall = completion.choices[0]?.message.tool_calls?.[0];
  assert.equal(toolCall?.type, 'function');
  assert.equal(toolCall?.type === 'function' ? toolCall.function.name : undefined, 'search_docs');
  assert.equal(completion.choices[0]?.message.content, null);
});

test('stream_options.include_usage adds a final usage chunk with no choices', async (context) => {
  const double = await startDouble(context);
  double.queueChat({ text: 'one two three' });
  const stream = await clientFor(double).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'count' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  const last = chunks.at(-1);
  assert.deepEqual(last?.choices, []);
  assert.equal(last?.usage?.completion_tokens, 3);
});

test('a scripted 500 makes the client throw an APIError with status 500', async (context) => {
  const double = await startDouble(context);
  double.queueChat({ status: 500, errorMessage: 'The model is overloaded.' });
  await assert.rejects(
    clientFor(double).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true }),
    (error: unknown) => error instanceof OpenAI.APIError && error.status === 500 && error.message === '500 The model is overloaded.',
  );
  assert.equal(double.chatRequests().length, 1);
});

test('a broken stream makes iteration throw', async (context) => {
  const double = await startDouble(context);
  double.queueChat({ text: 'This answer will never be finished by the provider.', breakAfterChunks: 3 });
  const stream = await clientFor(double).chat.completions.create({
    model: 'm',
    messages: [{ role: 'user', content: 'x' }],
    stream: true,
  });
  const deltas: string[] = [];
  // undici reports the cut connection as a plain TypeError('terminated'), not as an OpenAI error class.
  await assert.rejects(
    async () => {
      for await (const chunk of stream) deltas.push(chunk.choices[0]?.delta.content ?? '');
    },
    { name: 'TypeError', message: 'terminated' },
  );
  assert.equal(deltas.length, 3);
  assert.equal(double.abortedChatStreams, 0);
});

test('failEmbeddings(1, 429) succeeds after one client retry', async (context) => {
  const double = await startDouble(context);
  double.failEmbeddings(1, 429);
  const started = Date.now();
  const response = await clientFor(double, { maxRetries: 1 }).embeddings.create({ model: 'e', input: 'hello' });

  assert.equal(response.data.length, 1);
  const attempts = double.embeddingRequests();
  assert.equal(attempts.length, 2);
  assert.deepEqual(
    attempts.map((attempt) => attempt.headers['x-stainless-retry-count']),
    ['0', '1'],
  );
  assert.ok(Date.now() - started < 400, 'retry-after-ms should override the 0.5 s default back-off');
});

test('failEmbeddings surfaces the status once retries run out', async (context) => {
  const double = await startDouble(context);
  double.failEmbeddings(2, 503);
  await assert.rejects(clientFor(double, { maxRetries: 1 }).embeddings.create({ model: 'e', input: 'x' }), {
    status: 503,
    type: 'server_error',
  });
  await clientFor(double).embeddings.create({ model: 'e', input: 'x' });
  assert.equal(double.embeddingRequests().length, 3);
});

test('aborting a streamed request is counted by the double', async (context) => {
  const double = await startDouble(context);
  double.queueChat({ text: 'A slow answer that the caller stops reading.', delayMs: 20 });
  const controller = new AbortController();
  const stream = await clientFor(double).chat.completions.create(
    { model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true },
    { signal: controller.signal },
  );
  let received = 0;
  // The client ends the iteration quietly, without throwing, when its signal aborts mid-stream.
  for await (const _chunk of stream) {
    received += 1;
    if (received === 2) controller.abort();
  }
  assert.equal(received, 2);
  await double.waitForAbortedChatStreams(1);
  assert.equal(double.abortedChatStreams, 1);
});

test('a wrong API key gets 401 with only a masked form of the key', async (context) => {
  const double = await startDouble(context, { requiredApiKey: apiKey });
  await assert.rejects(clientFor(double, { apiKey: 'sk-wrong-key-9999' }).models.list(), (error: unknown) => {
    assert.ok(error instanceof OpenAI.AuthenticationError);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'invalid_api_key');
    assert.match(error.message, /sk-wr\*\*\*\*9999/);
    assert.doesNotMatch(error.message, /sk-wrong-key-9999/);
    return true;
  });
  const models = await clientFor(double).models.list();
  assert.ok(models.data.length > 0);
  assert.equal(double.requests.length, 2);
});

test('the default chat answer quotes the first sentence of snippet [1]', async (context) => {
  const double = await startDouble(context);
  const client = clientFor(double);
  const grounded = await client.chat.completions.create({
    model: 'm',
    messages: [
      { role: 'system', content: 'Answer from the snippets and cite them as [1], [2].' },
      {
        role: 'user',
        content: 'Snippets:\n[1] Run npm install to add the tool.\nIt needs Node 20.\n[2] Billing is monthly.\n\nQuestion: install?',
      },
    ],
  });
  assert.equal(grounded.choices[0]?.message.content, 'According to the documentation, Run npm install to add the tool [1].');

  const ungrounded = await client.chat.completions.create({
    model: 'm',
    messages: [{ role: 'user', content: 'What is the weather?' }],
  });
  assert.equal(ungrounded.choices[0]?.message.content, 'I could not find this in the documentation.');
});

test('queued scripts come before the handler, and the handler before the default', async (context) => {
  const double = await startDouble(context);
  const client = clientFor(double);
  const ask = async () =>
    (await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'ping' }] })).choices[0]?.message.content;
  double.setChatHandler((body) => ({ text: `handled ${body.messages[0].content}` }));
  double.queueChat({ text: 'queued' });
  assert.equal(await ask(), 'queued');
  assert.equal(await ask(), 'handled ping');
  double.setChatHandler(null);
  assert.equal(await ask(), 'I could not find this in the documentation.');
});

test('unknown routes answer 404 with an OpenAI-style error body', async (context) => {
  const double = await startDouble(context);
  const response = await fetch(`${double.baseUrl}/completions`, { method: 'POST', body: '{}' });
  assert.equal(response.status, 404);
  const body = (await response.json()) as { error: Record<string, unknown> };
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(body.error.param, null);
  assert.deepEqual(double.requests[0]?.body, {});
});
