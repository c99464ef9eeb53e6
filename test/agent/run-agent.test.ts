// One agent run, called directly with an in-memory chat model and a given retrieval: the order of its events, the
// checked citations and Sources line, platform tool calls, and how failures and aborts end it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentEvent } from '../../src/agent/agent-event.js';
import { runAgent, type AgentRunInput, type Retrieval } from '../../src/agent/run-agent.js';
import type { Snippet } from '../../src/search/snippet.js';
import { KnowledgeError } from '../../src/errors.js';
import type { ToolDefinition } from '../../src/providers/chat-model.js';
import { createFakeChatModel, type FakeChatModel } from '../support/fake-models.js';
import { sanitizeNamespace } from '../../src/store/namespace-name.js';

function snippet(number: number, title: string, text: string): Snippet {
  const file = `${title.toLowerCase().replaceAll(' ', '-')}.md`;
  return {
    number,
    chunkId: `${file}#0`,
    title,
    file,
    headingPath: [title],
    text,
    score: 1 / number,
    origin: `https://handbook.example/${file}`,
    asOf: '2026-01-01T00:00:00.000Z',
    preview: text,
  };
}

const handbook: Snippet[] = [
  snippet(1, 'Vacation Policy', '# Vacation Policy\n\nEmployees get twenty-five vacation days per year.'),
  snippet(2, 'Expense Reports', '# Expense Reports\n\nSubmit expense reports within thirty days.'),
];

const ticketTool: ToolDefinition = {
  name: 'create_ticket',
  description: 'Open a support ticket',
  parameters: { type: 'object', properties: { title: { type: 'string' } } },
};

interface RunOptions {
  readonly chat: FakeChatModel;
  readonly retrieval?: Retrieval | Error;
  readonly platformTools?: readonly ToolDefinition[];
  readonly signal?: AbortSignal;
  readonly coverageCheck?: boolean;
  /** Called with each event as it is yielded, before the run goes on. */
  readonly onEvent?: (event: AgentEvent) => void;
}

async function run(options: RunOptions): Promise<AgentEvent[]> {
  const retrieval = options.retrieval ?? { snippets: handbook, namespaceExists: true };
  const input: AgentRunInput = {
    namespace: sanitizeNamespace('handbook'),
    query: 'how many vacation days?',
    history: [{ role: 'user', content: '@knowledge how many vacation days?' }],
    platformTools: options.platformTools ?? [],
    retrievalToolName: 'search_docs',
    retrieve: async () => {
      if (retrieval instanceof Error) throw retrieval;
      return retrieval;
    },
    sourceLabel: (cited) => cited.title,
    coverageCheck: options.coverageCheck ?? true,
    chat: options.chat,
    signal: options.signal ?? new AbortController().signal,
  };
  const events: AgentEvent[] = [];
  for await (const event of runAgent(input)) {
    events.push(event);
    options.onEvent?.(event);
  }
  return events;
}

const answerText = (events: readonly AgentEvent[]) =>
  events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : [])).join('');
const types = (events: readonly AgentEvent[]) => events.map((event) => event.type);

describe('runAgent', () => {
  it('retrieves, then streams the answer with its checked citations and a Sources line, then finishes', async () => {
    const chat = createFakeChatModel();
    chat.queue({ deltas: ['Employees get twenty-five ', 'days [1]. Reports are due ', 'in thirty days [2][7].'] });
    const events = await run({ chat });
    assert.deepEqual(types(events).slice(0, 3), ['retrieval-start', 'retrieval-result', 'text-start']);
    assert.deepEqual(types(events).slice(-2), ['text-end', 'finish']);
    const [start, result] = events as [Extract<AgentEvent, { type: 'retrieval-start' }>, Extract<AgentEvent, { type: 'retrieval-result' }>];
    assert.equal(start.toolName, 'search_docs');
    assert.deepEqual(start.args, { namespace: 'handbook', query: 'how many vacation days?' });
    assert.equal(result.toolCallId, start.toolCallId);
    assert.deepEqual(result.snippets, handbook);
    assert.equal(
      answerText(events),
      'Employees get twenty-five days [1]. Reports are due in thirty days [2].\n\nSources: Vacation Policy, Expense Reports',
    );
    assert.deepEqual(events.at(-1), {
      type: 'finish',
      text: answerText(events),
      sources: ['Vacation Policy', 'Expense Reports'],
      covered: true,
    });
  });

  it('asks the model with the numbered snippets in the system prompt, the history after it, and the grounding', async () => {
    const chat = createFakeChatModel();
    await run({ chat, platformTools: [ticketTool] });
    const [request] = chat.requests;
    assert.equal(request?.messages[0]?.role, 'system');
    assert.match(request?.messages[0]?.content ?? '', /\[1\] Vacation Policy\n# Vacation Policy[\s\S]*\[2\] Expense Reports/);
    assert.deepEqual(request?.messages.slice(1), [{ role: 'user', content: '@knowledge how many vacation days?' }]);
    assert.deepEqual(request?.tools, [ticketTool]);
    assert.deepEqual(request?.grounding, { query: 'how many vacation days?', snippets: handbook });
  });

  it("replaces the model's own Sources line and lists each cited source once, in order of first citation", async () => {
    const chat = createFakeChatModel();
    chat.queue({ deltas: ['Reports [2], days [1], again [2].\n\nSources: Invented Handbook'] });
    const events = await run({ chat });
    assert.equal(answerText(events), 'Reports [2], days [1], again [2].\n\nSources: Expense Reports, Vacation Policy');
  });

  it('closes a code block the answer left open, so the Sources line stays outside it', async () => {
    const chat = createFakeChatModel();
    chat.queue({ deltas: ['Run this [1]:\n\n```sh\nvacation --days 25'] });
    assert.match(answerText(await run({ chat })), /```sh\nvacation --days 25\n```\n\nSources: Vacation Policy$/);
  });

  it('answers that nothing was found when the model says nothing, suggesting the closest pages', async () => {
    const chat = createFakeChatModel();
    chat.queue({ deltas: [] });
    const events = await run({ chat });
    assert.equal(
      answerText(events),
      'I could not find anything about this in the "handbook" documentation.\n\n' +
        'The closest pages, in case they help:\n- [Vacation Policy](https://handbook.example/vacation-policy.md)\n' +
        '- [Expense Reports](https://handbook.example/expense-reports.md)\n\nSources: none',
    );
    assert.deepEqual(events.at(-1), { type: 'finish', text: answerText(events), sources: [], covered: false });
  });

  it('answers "not covered" without asking the model when the snippets fall below the relevance floor', async () => {
    const chat = createFakeChatModel();
    const weak = { snippets: handbook, namespaceExists: true, relevance: { termCoverage: 0.1, similarity: 0.2 } };
    const events = await run({ chat, retrieval: weak });
    assert.deepEqual(chat.requests, []);
    const text = answerText(events);
    assert.match(text, /^The "handbook" documentation does not seem to cover this/);
    assert.match(text, /The closest pages, in case they help:\n- \[Vacation Policy\]\(https:\/\/handbook\.example\/vacation-policy\.md\)/);
    assert.doesNotMatch(text, /\[\d+\]/);
    assert.match(text, /\n\nSources: none$/);
    assert.deepEqual(events.at(-1), { type: 'finish', text, sources: [], covered: false });
  });

  it('asks the model when the snippets pass the floor, and when the check is off', async () => {
    const strong = { snippets: handbook, namespaceExists: true, relevance: { termCoverage: 0.9, similarity: 0.8 } };
    const chat = createFakeChatModel();
    chat.queue({ deltas: ['Twenty-five days [1].'] });
    const passed = await run({ chat, retrieval: strong });
    assert.equal((passed.at(-1) as Extract<AgentEvent, { type: 'finish' }>).covered, true);
    const unchecked = createFakeChatModel();
    unchecked.queue({ deltas: ['Twenty-five days [1].'] });
    const weak = { snippets: handbook, namespaceExists: true, relevance: { termCoverage: 0, similarity: 0 } };
    const events = await run({ chat: unchecked, retrieval: weak, coverageCheck: false });
    assert.equal(answerText(events), 'Twenty-five days [1].\n\nSources: Vacation Policy');
  });

  it('signals the model\'s own "not covered" answer: no sources, the closest pages suggested', async () => {
    const chat = createFakeChatModel();
    chat.queue({ deltas: ['The documentation does not cover ', 'parental leave.'] });
    const events = await run({ chat });
    assert.equal(
      answerText(events),
      'The documentation does not cover parental leave.\n\nThe closest pages, in case they help:\n' +
        '- [Vacation Policy](https://handbook.example/vacation-policy.md)\n- [Expense Reports](https://handbook.example/expense-reports.md)\n\nSources: none',
    );
    assert.deepEqual(events.at(-1), { type: 'finish', text: answerText(events), sources: [], covered: false });
  });

  it('keeps an answer that cites the docs as covered even when it mentions what they do not cover', async () => {
    const chat = createFakeChatModel();
    chat.queue({ deltas: ['The handbook does not mention carry-over, but employees get twenty-five days [1].'] });
    const events = await run({ chat });
    assert.deepEqual((events.at(-1) as Extract<AgentEvent, { type: 'finish' }>).sources, ['Vacation Policy']);
    assert.equal((events.at(-1) as Extract<AgentEvent, { type: 'finish' }>).covered, true);
  });

  it('without snippets says so without asking the model, for an empty namespace and for a missing one', async () => {
    const chat = createFakeChatModel();
    const empty = await run({ chat, retrieval: { snippets: [], namespaceExists: true } });
    assert.deepEqual(types(empty), ['retrieval-start', 'retrieval-result', 'text-start', 'text-delta', 'text-end', 'finish']);
    assert.match(answerText(empty), /^I could not find anything about this in the "handbook" documentation\.\n\nSources: none$/);
    const missing = await run({ chat, retrieval: { snippets: [], namespaceExists: false, notice: 'no such namespace' } });
    assert.match(answerText(missing), /^The namespace "handbook" does not exist/);
    assert.equal((missing[1] as Extract<AgentEvent, { type: 'retrieval-result' }>).notice, 'no such namespace');
    assert.deepEqual(chat.requests, []);
  });

  it('still asks the model without snippets when it may call a platform tool, telling it the namespace is missing', async () => {
    const chat = createFakeChatModel();
    chat.queue({ toolCalls: [{ id: 'call_ticket', name: 'create_ticket', arguments: '{"title":"x"}' }] });
    const events = await run({ chat, retrieval: { snippets: [], namespaceExists: false }, platformTools: [ticketTool] });
    assert.match(chat.requests[0]?.messages[0]?.content ?? '', /The namespace "handbook" does not exist/);
    assert.deepEqual(events.at(-2), {
      type: 'frontend-tool-call',
      toolCallId: 'call_ticket',
      toolName: 'create_ticket',
      argumentsText: '{"title":"x"}',
    });
  });

  it('hands calls of platform tools back, after the text so far, and ignores calls of tools it did not offer', async () => {
    const chat = createFakeChatModel();
    chat.queue({
      deltas: ['Opening a ticket [1].'],
      toolCalls: [
        { id: 'call_ticket', name: 'create_ticket', arguments: '{"title":"Vacation"}' },
        { id: 'call_other', name: 'delete_everything', arguments: '{}' },
      ],
    });
    const events = await run({ chat, platformTools: [ticketTool] });
    assert.deepEqual(types(events), [
      'retrieval-start',
      'retrieval-result',
      'text-start',
      'text-delta',
      'text-end',
      'frontend-tool-call',
      'finish',
    ]);
    assert.equal(answerText(events), 'Opening a ticket [1].');
    assert.deepEqual(events.at(-1), { type: 'finish', text: 'Opening a ticket [1].', sources: [], covered: true });
  });

  it('ends with an error event after the text so far when the provider fails mid-stream', async () => {
    const chat = createFakeChatModel();
    chat.queue({ deltas: ['Employees get [1'], error: new KnowledgeError('provider_error', 'the provider broke off its stream') });
    const events = await run({ chat });
    assert.deepEqual(types(events).slice(-2), ['text-end', 'error']);
    // The held back start of a citation is let out: the stream is over.
    assert.equal(answerText(events), 'Employees get [1');
    assert.deepEqual(events.at(-1), { type: 'error', code: 'provider_error', message: 'the provider broke off its stream' });
  });

  it('ends with an error event when the retrieval fails with a KnowledgeError', async () => {
    const chat = createFakeChatModel();
    const events = await run({ chat, retrieval: new KnowledgeError('embedding_failed', 'the embedding provider is down') });
    assert.deepEqual(types(events), ['retrieval-start', 'error']);
    assert.deepEqual(events.at(-1), { type: 'error', code: 'embedding_failed', message: 'the embedding provider is down' });
  });

  it('lets an unexpected error propagate, to be logged, instead of turning it into an event', async () => {
    await assert.rejects(run({ chat: createFakeChatModel(), retrieval: new TypeError('a bug') }), TypeError);
    const chat = createFakeChatModel();
    chat.queue({ error: new RangeError('another bug') });
    await assert.rejects(run({ chat }), RangeError);
  });

  it('ends silently when the caller goes away mid-answer', async () => {
    const chat = createFakeChatModel();
    chat.queue({ deltas: ['Employees get '], untilAborted: true });
    const controller = new AbortController();
    const events = await run({ chat, signal: controller.signal, onEvent: (event) => event.type === 'text-delta' && controller.abort() });
    assert.deepEqual(types(events), ['retrieval-start', 'retrieval-result', 'text-start', 'text-delta']);
  });

  it('reports an abort whose reason is a KnowledgeError (shutdown) as the final error event', async () => {
    const chat = createFakeChatModel();
    chat.queue({ deltas: ['Employees get '], untilAborted: true });
    const controller = new AbortController();
    const shutdown = new KnowledgeError('shutting_down', 'the service is shutting down');
    const events = await run({
      chat,
      signal: controller.signal,
      onEvent: (event) => event.type === 'text-delta' && controller.abort(shutdown),
    });
    assert.deepEqual(types(events).slice(-2), ['text-end', 'error']);
    assert.deepEqual(events.at(-1), { type: 'error', code: 'shutting_down', message: 'the service is shutting down' });
  });

  it('stops after retrieval-start when the caller went away during the retrieval', async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await run({ chat: createFakeChatModel(), signal: controller.signal, retrieval: new Error('aborted') });
    assert.deepEqual(types(events), ['retrieval-start']);
  });
});
