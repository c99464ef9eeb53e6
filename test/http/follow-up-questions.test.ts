// Follow-up questions ("and how do I test it?"): the agent searches with a standalone query built from the conversation,
// by asking the model to rewrite it, or, with the extractive model, by carrying the earlier question's key words.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultChat, type ProviderDouble } from '../support/provider-double.js';
import { startService, startServiceWithProvider, type TestService } from '../support/service.js';
import { parseSseData } from '../support/sse.js';

type Event = { type?: string; args?: { query?: string }; result?: { matches?: { title: string }[] } };

const pages = [
  {
    type: 'text',
    title: 'WebSockets',
    value: '# WebSockets\n\nUse the `@app.websocket` decorator to accept WebSocket connections and `await websocket.accept()` first.',
  },
  {
    type: 'text',
    title: 'Testing WebSockets',
    value: '# Testing WebSockets\n\nTo test WebSockets, open a connection with `client.websocket_connect()` in a `with` block.',
  },
  {
    type: 'text',
    title: 'Testing',
    value: '# Testing\n\nTo test your app, use `TestClient` with pytest and call its methods like requests.',
  },
  { type: 'text', title: 'Middleware', value: '# Middleware\n\nAdd code that runs for every request with `@app.middleware("http")`.' },
];

const conversation = [
  { role: 'user', content: '@knowledge How do I accept websocket connections?' },
  { role: 'assistant', content: 'Use the `@app.websocket` decorator [1].\n\nSources: WebSockets' },
  { role: 'user', content: '@knowledge and how do I test it?' },
];

async function retrieval(service: TestService, messages: unknown[]): Promise<{ query: string; titles: string[] }> {
  const events = parseSseData(await (await service.post('/agent', { messages, tool_params: { namespace: 'guide' } })).text()) as Event[];
  const start = events.find((event) => event.type === 'tool_call_start');
  const result = events.find((event) => event.type === 'tool_call_result');
  return { query: start?.args?.query ?? '', titles: (result?.result?.matches ?? []).map((match) => match.title) };
}

describe('follow-up questions', () => {
  describe('with a language model', () => {
    let provider: ProviderDouble;
    let service: TestService;

    before(async () => {
      ({ provider, service } = await startServiceWithProvider());
      assert.equal((await service.post('/tools/ingest', { namespace: 'guide', sources: pages })).status, 200);
    });

    after(async () => {
      await service.dispose();
    });

    it('asks the model for a standalone query and searches with it', async () => {
      const before = provider.chatRequests().length;
      provider.queueChat({ text: 'How do I test WebSockets?' });
      const { query, titles } = await retrieval(service, conversation);
      assert.equal(query, 'How do I test WebSockets?');
      assert.equal(titles[0], 'Testing WebSockets');
      const [rewrite] = provider.chatRequests().slice(before);
      const prompt = JSON.stringify(rewrite?.body.messages);
      assert.match(prompt, /standalone search query/);
      assert.match(prompt, /accept websocket connections/);
      assert.match(prompt, /and how do I test it\?/);
    });

    it('asks nothing extra for a first question or one that stands on its own', async () => {
      const before = provider.chatRequests().length;
      assert.equal((await retrieval(service, [conversation[0]])).query, 'How do I accept websocket connections?');
      assert.equal(
        (
          await retrieval(service, [
            ...conversation.slice(0, 2),
            { role: 'user', content: '@knowledge How do I add middleware to every request?' },
          ])
        ).query,
        'How do I add middleware to every request?',
      );
      // One answer per run, no rewrite.
      assert.equal(provider.chatRequests().length - before, 2);
    });

    it("carries the earlier question's words when the rewrite fails", async () => {
      provider.setChatHandler((body) =>
        JSON.stringify(body.messages).includes('standalone search query') ? { status: 500, errorMessage: 'down' } : defaultChat(body),
      );
      const { query } = await retrieval(service, conversation).finally(() => provider.setChatHandler(null));
      assert.equal(query, 'and how do I test it? accept websocket connections');
    });
  });

  describe('with the extractive model', () => {
    let service: TestService;

    before(async () => {
      service = await startService({ apiKey: undefined, environment: { KNOWLEDGE_AGENT_MODEL: 'extractive' } });
      assert.equal((await service.post('/tools/ingest', { namespace: 'guide', sources: pages })).status, 200);
    });

    after(async () => {
      await service.dispose();
    });

    it("carries the earlier question's key words into the search", async () => {
      const { query, titles } = await retrieval(service, conversation);
      assert.equal(query, 'and how do I test it? accept websocket connections');
      assert.equal(titles[0], 'Testing WebSockets');
    });

    it('follows a chain of follow-ups back to the question that started it', async () => {
      const { query } = await retrieval(service, [
        ...conversation,
        { role: 'assistant', content: 'Open a connection with `client.websocket_connect()` [1].\n\nSources: Testing WebSockets' },
        { role: 'user', content: '@knowledge and in async tests?' },
      ]);
      assert.match(query, /^and in async tests\? .*websocket/);
    });
  });
});
