// Closing the app (what SIGTERM does) while streams and requests are open: AG-UI runs end with RUN_ERROR
// shutting_down, Variant 1, OpenAI chat and Mastra streams with an error event and [DONE], a non-streaming answer with 503, an NDJSON ingest
// in flight finishes with its result, and a request that still arrives gets 503 shutting_down.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isKnowledgeError } from '../../src/errors.js';
import { abortAfterShutdownGrace, unlessStopped } from '../../src/lifecycle/graceful-shutdown.js';
import { startProviderDouble, type ProviderDouble } from '../support/provider-double.js';
import { makeStorageRoot, startService, type ListeningTestService } from '../support/service.js';
import { parseSseData } from '../support/sse.js';
import { until } from '../support/until.js';
import { readStream } from './stream-reader.js';

type Event = { type?: string; code?: string; [key: string]: unknown };

const longAnswer = 'Tokens rotate every ninety days [1]. '.repeat(100);
const question = '@knowledge how often do tokens rotate?';

describe('closing the app with streams and requests open', () => {
  let provider: ProviderDouble;
  let storageRoot: string;
  let service: ListeningTestService;

  before(async () => {
    provider = await startProviderDouble({ embeddingDelayMs: 300 });
    storageRoot = await makeStorageRoot();
  });

  beforeEach(async () => {
    // One storage root for all, so the document ingested first is there for every answer.
    // Listening: streams read as they arrive and requests on a socket while the app closes under them.
    service = await startService({ listen: true, providerUrl: provider.baseUrl, storageRoot });
    const seeded = await service.post('/tools/ingest', {
      namespace: 'ops',
      sources: [{ type: 'text', title: 'Token rotation', value: 'Tokens rotate every ninety days.' }],
    });
    assert.equal(seeded.status, 200, await seeded.text());
  });

  afterEach(async () => {
    await service.close();
  });

  after(async () => {
    await service.dispose();
    await provider.close();
  });

  /** Over a socket, not in-process: these answers are read while they stream, and the app closes under them. */
  function postOverSocket(path: string, body: unknown): Promise<Response> {
    return fetch(`${service.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  async function streamUntilText(body: unknown, path = '/agent') {
    provider.queueChat({ text: longAnswer, delayMs: 20 });
    const response = await postOverSocket(path, body);
    assert.equal(response.status, 200);
    const stream = readStream(response);
    await stream.waitFor((text) => /"type":"(text_message|TEXT_MESSAGE_CONTENT|text-delta)"|"delta":\{"content"/.test(text));
    return stream;
  }

  it('ends an AG-UI run with RUN_ERROR shutting_down and aborts its provider call', async () => {
    const aborted = provider.abortedChatStreams;
    const stream = await streamUntilText({
      threadId: 't1',
      runId: 'r1',
      messages: [{ id: 'm1', role: 'user', content: question }],
      forwardedProps: { namespace: 'ops' },
    });
    const closed = service.close();
    const events = parseSseData(await stream.done) as Event[];
    await closed;
    const last = events.at(-1);
    assert.equal(last?.type, 'RUN_ERROR');
    assert.equal(last?.code, 'shutting_down');
    assert.ok(!events.some((event) => event.type === 'RUN_FINISHED'));
    // The text message was closed before the error, as for a provider failure.
    assert.equal(events.at(-2)?.type, 'TEXT_MESSAGE_END');
    await provider.waitForAbortedChatStreams(aborted + 1);
  });

  it('ends a Variant 1 stream with an error event shutting_down, then [DONE]', async () => {
    const stream = await streamUntilText({ messages: [{ role: 'user', content: question }], tool_params: { namespace: 'ops' } });
    const closed = service.close();
    const events = parseSseData(await stream.done) as (Event | string)[];
    await closed;
    assert.equal(events.at(-1), '[DONE]');
    assert.deepEqual(events.at(-2), {
      type: 'error',
      code: 'shutting_down',
      message: 'the service is shutting down; send the request again',
    });
  });

  it('ends an OpenAI chat stream with an error frame shutting_down, then [DONE]', async () => {
    const stream = await streamUntilText(
      { model: 'knowledge/ops', stream: true, messages: [{ role: 'user', content: 'How often do tokens rotate?' }] },
      '/v1/chat/completions',
    );
    const closed = service.close();
    const events = parseSseData(await stream.done) as (Event | string)[];
    await closed;
    assert.equal(events.at(-1), '[DONE]');
    assert.equal((events.at(-2) as { error?: { code?: string } }).error?.code, 'shutting_down');
  });

  it('ends a Mastra stream with an error chunk shutting_down, then [DONE]', async () => {
    const stream = await streamUntilText(
      { messages: [{ role: 'user', content: 'How often do tokens rotate?' }], runtimeContext: { namespace: 'ops' } },
      '/api/agents/knowledge/stream',
    );
    const closed = service.close();
    const events = parseSseData(await stream.done) as (Event | string)[];
    await closed;
    assert.equal(events.at(-1), '[DONE]');
    const last = events.at(-2) as { type?: string; payload?: { error?: { code?: string } } };
    assert.equal(last.type, 'error');
    assert.equal(last.payload?.error?.code, 'shutting_down');
  });

  it('answers a non-streaming generate cut short with 503 shutting_down', async () => {
    provider.queueChat({ text: longAnswer, delayMs: 20 });
    const answer = postOverSocket('/api/agents/knowledge/generate', {
      messages: [{ role: 'user', content: 'How often do tokens rotate?' }],
      toolParams: { namespace: 'ops' },
    });
    const chats = provider.chatRequests().length;
    await until(() => provider.chatRequests().length > chats, 'the answer to reach the provider');
    const closed = service.close();
    const response = await answer;
    await closed;
    assert.equal(response.status, 503);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'shutting_down');
  });

  it('lets an NDJSON ingest in flight finish, and answers a request arriving meanwhile with 503 shutting_down', async () => {
    // Raw HTTP/1.1 on one connection: the second request arrives while the first is still streaming.
    const socket = connect(Number(new URL(service.baseUrl).port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      received += text;
    });
    const socketClosed = new Promise((resolve) => socket.on('close', resolve));
    const body = JSON.stringify({
      namespace: 'ops',
      sources: [{ type: 'text', title: 'In flight', value: 'This one was being embedded when the app closed.' }],
    });
    const embeddings = provider.embeddingRequests().length;
    socket.write(
      `POST /tools/ingest?progress=ndjson HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await until(() => provider.embeddingRequests().length > embeddings, 'the ingest to reach the embedding provider');

    const closed = service.close();
    await until(() => service.logs.some((line) => line.includes('shutting down: refusing new requests')), 'the app to start closing');
    socket.write('GET /health HTTP/1.1\r\nhost: test\r\nx-request-id: late-arrival\r\n\r\n');
    await socketClosed;
    await closed;

    const [ingestPart, latePart] = received.split(/(?=HTTP\/1\.1 503)/);
    assert.match(ingestPart ?? '', /^HTTP\/1\.1 200/);
    const resultLine = (ingestPart ?? '').split('\n').find((line) => line.startsWith('{"type":"result"'));
    assert.ok(resultLine !== undefined, `the ingest stream ended with its result:\n${received}`);
    assert.equal((JSON.parse(resultLine) as { result: { documents: { status: string }[] } }).result.documents[0]?.status, 'saved');
    assert.match(latePart ?? '', /^HTTP\/1\.1 503/);
    assert.match(latePart ?? '', /\r\nconnection: close\r\n/i);
    assert.match(latePart ?? '', /\r\nx-request-id: late-arrival\r\n/i);
    assert.match(latePart ?? '', /"code":"shutting_down"/);
  });
});

describe('the grace period of work under shutdown', () => {
  it("passes the work's result and failure through while nothing stops it", async () => {
    const signal = new AbortController().signal;
    assert.equal(await unlessStopped(Promise.resolve(7), signal), 7);
    await assert.rejects(unlessStopped(Promise.reject(new Error('boom')), signal), { message: 'boom' });
  });

  it('lets work that ends within the grace period finish after shutdown starts', async () => {
    const shutdown = new AbortController();
    const work = new AbortController();
    const release = abortAfterShutdownGrace(work, shutdown.signal, undefined, 200);
    const result = unlessStopped(
      sleep(20).then(() => 'done'),
      work.signal,
    );
    shutdown.abort();
    assert.equal(await result, 'done');
    release();
    await sleep(250);
    assert.equal(work.signal.aborted, false, 'released work was stopped later');
  });

  it('stops the work with shutting_down once the grace period after shutdown has passed', async () => {
    const shutdown = new AbortController();
    const work = new AbortController();
    abortAfterShutdownGrace(work, shutdown.signal, 'not finished in time', 30);
    const result = unlessStopped(new Promise<string>(() => {}), work.signal);
    await sleep(20);
    assert.equal(work.signal.aborted, false, 'stopped before shutdown');
    shutdown.abort();
    await assert.rejects(
      result,
      (error: unknown) => isKnowledgeError(error) && error.code === 'shutting_down' && error.message === 'not finished in time',
    );
    assert.ok(isKnowledgeError(work.signal.reason) && work.signal.reason.code === 'shutting_down', 'the work itself is told to stop');
  });
});
