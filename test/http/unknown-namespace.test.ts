// A namespace that does not exist is said, not silent: searches carry a notice (Variant 1) or a warning (Variant 2),
// and every agent route answers that the namespace does not exist, ending "Sources: none". Nothing is created, and
// no other namespace is named (the caller may not be allowed to read it).
import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProviderDouble } from '../support/provider-double.js';
import { startServiceWithProvider, type TestService } from '../support/service.js';
import { parseSseData, variant1Answer } from '../support/sse.js';

type Event = { type: string; [key: string]: unknown };

const missing = /^the namespace "nothing-here" does not exist/;
const answerSaysMissing = /^The namespace "nothing-here" does not exist/;

describe('a namespace that does not exist', () => {
  let provider: ProviderDouble;
  let service: TestService;

  before(async () => {
    ({ provider, service } = await startServiceWithProvider());
    const response = await service.post('/tools/ingest', {
      namespace: 'secret-team',
      sources: [
        { type: 'text', title: 'Vacation Policy', value: '# Vacation Policy\n\nEmployees get twenty-five vacation days per year.' },
      ],
    });
    assert.equal(response.status, 200);
  });

  after(async () => {
    await service.dispose();
  });

  async function json<Body>(response: Promise<Response>): Promise<Body> {
    const answered = await response;
    assert.equal(answered.status, 200, await answered.clone().text());
    return (await answered.json()) as Body;
  }

  async function namespaceFolders(): Promise<string[]> {
    return (await readdir(service.storageRoot, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  }

  it('POST /tools/search answers no matches with a notice saying so, naming no other namespace', async () => {
    const body = await json<{ namespace: string; matches: unknown[]; notice?: string }>(
      service.post('/tools/search', { namespace: 'nothing-here', query: 'vacation days' }),
    );
    assert.equal(body.namespace, 'nothing-here');
    assert.deepEqual(body.matches, []);
    assert.match(body.notice ?? '', missing);
    assert.doesNotMatch(body.notice ?? '', /secret-team/);
    // An existing namespace has no such notice.
    const existing = await json<{ matches: unknown[]; notice?: string }>(
      service.post('/tools/search', { namespace: 'secret-team', query: 'vacation days' }),
    );
    assert.equal(existing.matches.length, 1);
    assert.equal(existing.notice, undefined);
  });

  it('POST /api/tools/searchDocs (and its execute form) answers no results with a warning saying so', async () => {
    for (const [path, body] of [
      ['/api/tools/searchDocs', { namespace: 'nothing-here', query: 'vacation days' }],
      ['/api/tools/searchDocs/execute', { data: { namespace: 'nothing-here', query: 'vacation days' } }],
    ] as const) {
      const answer = await json<{ results: unknown[]; warnings: string[] }>(service.post(path, body));
      assert.deepEqual(answer.results, [], path);
      assert.equal(answer.warnings.length, 1, path);
      assert.match(answer.warnings[0] ?? '', missing, path);
    }
    const existing = await json<{ results: unknown[]; warnings: string[] }>(
      service.post('/api/tools/searchDocs', { namespace: 'secret-team', query: 'vacation days' }),
    );
    assert.equal(existing.results.length, 1);
    assert.deepEqual(existing.warnings, []);
  });

  it('POST /agent (Variant 1) says the namespace does not exist and ends "Sources: none", without calling the model', async () => {
    const chatBefore = provider.chatRequests().length;
    const response = await service.post('/agent', {
      messages: [{ role: 'user', content: '@knowledge how many vacation days?' }],
      tool_params: { namespace: 'nothing-here' },
    });
    assert.equal(response.status, 200);
    const events = parseSseData(await response.text()) as Event[];
    const result = events.find((event) => event.type === 'tool_call_result')?.result as { matches: unknown[]; notice?: string };
    assert.deepEqual(result.matches, []);
    assert.match(result.notice ?? '', missing);
    const answer = variant1Answer(events);
    assert.match(answer, answerSaysMissing);
    assert.doesNotMatch(answer, /could not find anything|secret-team/);
    assert.equal(answer.split('\n').at(-1), 'Sources: none');
    assert.equal(events.at(-1), '[DONE]');
    assert.equal(provider.chatRequests().length, chatBefore);
  });

  it('POST /agent (AG-UI) says so in its text and in the retrieval result', async () => {
    const response = await service.post(
      '/agent',
      {
        threadId: 't1',
        runId: 'r1',
        messages: [{ id: 'm1', role: 'user', content: 'How many vacation days?' }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: { namespace: 'nothing-here' },
      },
      { accept: 'text/event-stream' },
    );
    assert.equal(response.status, 200);
    const events = parseSseData(await response.text()) as Event[];
    const result = JSON.parse(String(events.find((event) => event.type === 'TOOL_CALL_RESULT')?.content)) as {
      results: unknown[];
      warnings?: string[];
    };
    assert.deepEqual(result.results, []);
    assert.match(result.warnings?.[0] ?? '', missing);
    const text = events
      .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
      .map((event) => String(event.delta))
      .join('');
    assert.match(text, answerSaysMissing);
    assert.equal(text.split('\n').at(-1), 'Sources: none');
    assert.equal(events.at(-1)?.type, 'RUN_FINISHED');
  });

  it('POST /api/agents/knowledge/generate says so in its text, with no sources and the warning in its tool call', async () => {
    const body = await json<{ text: string; sources: string[]; toolCalls: { result: { results: unknown[]; warnings?: string[] } }[] }>(
      service.post('/api/agents/knowledge/generate', {
        messages: [{ role: 'user', content: 'How many vacation days?' }],
        toolParams: { namespace: 'nothing-here' },
      }),
    );
    assert.match(body.text, answerSaysMissing);
    assert.equal(body.text.split('\n').at(-1), 'Sources: none');
    assert.deepEqual(body.sources, []);
    assert.deepEqual(body.toolCalls[0]?.result.results, []);
    assert.match(body.toolCalls[0]?.result.warnings?.[0] ?? '', missing);
  });

  it('creates nothing: no folder, and no namespace in the listing', async () => {
    assert.deepEqual(await namespaceFolders(), ['secret-team']);
    const listing = await json<{ namespaces: { name: string }[] }>(service.get('/tools/namespaces'));
    assert.deepEqual(
      listing.namespaces.map((namespace) => namespace.name),
      ['secret-team'],
    );
  });

  it('treats a namespace whose folder was removed by hand as missing, without writing the folder back', async () => {
    const response = await service.post('/tools/ingest', {
      namespace: 'short-lived',
      sources: [{ type: 'text', title: 'Gone', value: 'Soon removed by hand.' }],
    });
    assert.equal(response.status, 200);
    await rm(join(service.storageRoot, 'short-lived'), { recursive: true });
    const body = await json<{ matches: unknown[]; notice?: string }>(
      service.post('/tools/search', { namespace: 'short-lived', query: 'removed' }),
    );
    assert.deepEqual(body.matches, []);
    assert.match(body.notice ?? '', /^the namespace "short-lived" does not exist/);
    assert.deepEqual(await namespaceFolders(), ['secret-team']);
  });
});
