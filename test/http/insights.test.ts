// The question log, feedback and the gaps report through every route, in-process (app.inject), with the extractive
// model and the local embedding model: every answer channel's run id takes feedback; the report groups five phrasings
// of a missing topic; tokens (a read token gives feedback on its namespace only and never reads the report).
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { GapsReport } from '../../src/insights/index.js';
import { parseSseData } from '../support/sse.js';
import { startService, type ListeningTestService, type TestService } from '../support/service.js';

const writer = 'writer-token-handbook-0001';
const otherWriter = 'writer-token-other-00000001';
const reader = 'reader-token-handbook-0001';
const otherReader = 'reader-token-other-00000001';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const singleSignOn = [
  'How do I set up single sign-on with Okta?',
  'Is SAML SSO supported?',
  'can I log in with my company Okta account',
  'configure SSO login for my team',
  'How to enable single sign on (SAML) for our organisation?',
];
const unrelatedGaps = ['Which Python versions are supported?', 'Does it support webhooks?'];

describe('question log, feedback and gaps report over HTTP', () => {
  let service: ListeningTestService;

  const inject = async (method: 'GET' | 'POST', url: string, token: string, payload?: unknown) =>
    service.app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });

  const generate = async (question: string, namespace = 'handbook', token = reader) => {
    const response = await inject('POST', '/api/agents/knowledge/generate', token, {
      messages: [{ role: 'user', content: question }],
      toolParams: { namespace },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ runId: string; covered: boolean }>();
  };

  const feedback = (path: string, body: unknown, token = reader) => inject('POST', path, token, body);

  before(async () => {
    // Listening: the MCP SDK client of the feedback tool's test speaks HTTP itself.
    service = await startService({
      listen: true,
      apiKey: undefined,
      environment: {
        KNOWLEDGE_AGENT_MODEL: 'extractive',
        KNOWLEDGE_AGENT_WRITE_TOKENS: `${writer}:handbook;${otherWriter}:other`,
        KNOWLEDGE_AGENT_READ_TOKENS: `${reader}:handbook;${otherReader}:other`,
      },
    });
    const handbook = await inject('POST', '/tools/ingest', writer, {
      namespace: 'handbook',
      sources: [
        {
          type: 'text',
          title: 'Vacation',
          value: '# Vacation\n\nEmployees get twenty-five vacation days per year. Unused days expire in March.',
        },
        { type: 'text', title: 'Expenses', value: '# Expenses\n\nSubmit expense reports within thirty days through the finance portal.' },
        {
          type: 'text',
          title: 'Accounts',
          value: '# Accounts\n\nEvery employee gets an account on their first day. Passwords expire every ninety days.',
        },
      ],
    });
    assert.equal(handbook.statusCode, 200, handbook.body);
    const other = await inject('POST', '/tools/ingest', otherWriter, {
      namespace: 'other',
      sources: [{ type: 'text', title: 'Other', value: '# Other\n\nThe other team deploys on Fridays.' }],
    });
    assert.equal(other.statusCode, 200, other.body);
  });

  after(async () => {
    await service.dispose();
  });

  it('keeps each question with its rewrite, channel, pages and scores, coverage, sources and latency', async () => {
    const answer = await generate('How many vacation days do employees get?');
    assert.equal(answer.covered, true);
    const folder = join(service.storageRoot, 'handbook', '.questions');
    await until(async () => (await readdir(folder).catch(() => [])).length > 0);
    const files = await readdir(folder);
    const lines = (await Promise.all(files.map((file) => readFile(join(folder, file), 'utf8')))).join('').trim().split('\n');
    const record = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.runId === answer.runId);
    assert.ok(record !== undefined, 'the question is in the log');
    assert.equal(record.kind, 'question');
    assert.equal(record.channel, 'generate');
    assert.equal(record.question, 'How many vacation days do employees get?');
    assert.equal(record.query, 'How many vacation days do employees get?');
    assert.equal(record.covered, true);
    assert.ok((record.sources as string[]).includes('vacation.md'));
    const pages = record.pages as { file: string; score: number }[];
    assert.equal(pages[0]?.file, 'vacation.md');
    assert.ok(typeof pages[0]?.score === 'number' && pages[0].score > 0);
    assert.equal(record.pageCount, pages.length);
    assert.ok((record.answerLength as number) > 20);
    assert.ok(typeof record.latencyMs === 'number' && record.latencyMs >= 0);
    assert.match(String(record.at), /^\d{4}-\d{2}-\d{2}T/);
  });

  it('takes feedback on the run id of every answer channel, under /tools and /api', async () => {
    const runIds: Record<string, string> = {};
    runIds.generate = (await generate('When do unused vacation days expire?')).runId;

    const variant1 = await inject('POST', '/agent', reader, {
      run_id: 'variant1-run-0001',
      messages: [{ role: 'user', content: '@knowledge how do I submit expense reports?' }],
      tool_params: { namespace: 'handbook' },
    });
    assert.equal(variant1.statusCode, 200);
    runIds.variant1 = 'variant1-run-0001';

    const agUi = await inject('POST', '/agent', reader, {
      threadId: 'thread-1',
      runId: 'ag-ui-run-0001',
      messages: [{ id: 'm1', role: 'user', content: 'when do passwords expire?' }],
      forwardedProps: { namespace: 'handbook' },
    });
    assert.equal(agUi.statusCode, 200);
    runIds['ag-ui'] = 'ag-ui-run-0001';

    const completion = await inject('POST', '/v1/chat/completions', reader, {
      model: 'knowledge/handbook',
      messages: [{ role: 'user', content: 'how many vacation days per year?' }],
    });
    assert.equal(completion.statusCode, 200, completion.body);
    runIds.openai = completion.json<{ id: string }>().id;

    const streamed = await inject('POST', '/v1/chat/completions', reader, {
      model: 'knowledge/handbook',
      stream: true,
      messages: [{ role: 'user', content: 'expense reports deadline?' }],
    });
    runIds['openai-stream'] = (parseSseData(streamed.body)[0] as { id: string }).id;

    const mastra = await inject('POST', '/api/agents/knowledge/stream', reader, {
      messages: [{ role: 'user', content: 'who gets an account?' }],
      toolParams: { namespace: 'handbook' },
      runId: 'mastra-run-0001',
    });
    assert.equal((parseSseData(mastra.body)[0] as { runId: string }).runId, 'mastra-run-0001');
    runIds.mastra = 'mastra-run-0001';

    for (const [channel, runId] of Object.entries(runIds)) {
      for (const path of ['/tools/feedback', '/api/feedback']) {
        const response = await feedback(path, { run_id: runId, rating: 'up' });
        assert.equal(response.statusCode, 200, `${channel} ${path}: ${response.body}`);
        assert.deepEqual(response.json(), { run_id: runId, namespace: 'handbook', rating: 'up' });
      }
    }
    const report = (await inject('GET', '/api/gaps/handbook', writer)).json<GapsReport>();
    const channels = new Set(
      (await readLog(service.storageRoot, 'handbook')).filter((record) => record.kind === 'question').map((record) => record.channel),
    );
    assert.deepEqual([...channels].sort(), ['ag-ui', 'generate', 'mastra', 'openai', 'variant1']);
    assert.ok(report.totals.rated_up >= 6);
  });

  it('answers 404 for an unknown run, 400 for a bad body, 401 without a token, 403 for a token of another namespace', async () => {
    const known = (await generate('How many vacation days do employees get?')).runId;
    assert.equal((await feedback('/tools/feedback', { run_id: 'no-such-run-00000', rating: 'up' })).statusCode, 404);
    assert.equal((await feedback('/api/feedback', { run_id: known, rating: 'sideways' })).statusCode, 400);
    assert.equal((await feedback('/api/feedback', { rating: 'up' })).statusCode, 400);
    assert.equal((await feedback('/api/feedback', { run_id: known, rating: 'down', comment: 'x'.repeat(2_001) })).statusCode, 400);
    const anonymous = await service.app.inject({ method: 'POST', url: '/tools/feedback', payload: { run_id: known, rating: 'up' } });
    assert.equal(anonymous.statusCode, 401);
    const foreign = await feedback('/tools/feedback', { run_id: known, rating: 'down' }, otherReader);
    assert.equal(foreign.statusCode, 403);
    assert.equal(foreign.json<{ error: { code: string } }>().error.code, 'forbidden');
  });

  it('groups five phrasings of a missing topic, with comments and closest pages, under both routes', async () => {
    // The extractive model answers some phrasings from the Accounts page: the reader rates those down.
    let notCovered = 0;
    for (const question of [...singleSignOn, ...unrelatedGaps]) {
      const answer = await generate(question);
      if (answer.covered) assert.equal((await feedback('/tools/feedback', { run_id: answer.runId, rating: 'down' })).statusCode, 200);
      else notCovered++;
    }
    assert.ok(notCovered >= 4, `${notCovered} questions not covered`);
    // A covered answer rated down joins the gaps with its comment.
    const wrong = await generate('How do I log in with Okta SSO?');
    await feedback('/api/feedback', { run_id: wrong.runId, rating: 'down', comment: 'Nothing about Okta here' });

    const response = await inject('GET', '/tools/gaps?namespace=handbook', writer);
    assert.equal(response.statusCode, 200, response.body);
    const report = response.json<GapsReport>();
    assert.equal(report.log, 'full');
    assert.equal(report.grouping, 'embedding');
    const group = report.groups[0];
    assert.ok(group !== undefined);
    assert.ok(
      singleSignOn.every((question) => group.questions.includes(question)),
      JSON.stringify(report.groups),
    );
    assert.ok(!unrelatedGaps.some((question) => group.questions.includes(question)));
    assert.ok(group.count >= 5);
    assert.match(group.label, /okta|sso|saml|sign/i);
    assert.ok(group.pages.length > 0 && group.pages.every((page) => typeof page.title === 'string' && page.origin !== ''));
    assert.deepEqual(group.comments, ['Nothing about Okta here']);
    assert.ok(report.top_questions.length > 0);
    const today = new Date().toISOString().slice(0, 10);
    const counts = report.counts.find((day) => day.day === today);
    assert.ok(counts !== undefined && counts.not_covered >= notCovered && counts.rated_down === 8 - notCovered && counts.rated_up >= 6);
    assert.ok(report.rated_up.some((entry) => entry.pages.length > 0));

    const api = await inject('GET', '/api/gaps/handbook?since=1d', writer);
    assert.equal(api.statusCode, 200);
    assert.deepEqual(
      api.json<GapsReport>().groups.map((entry) => entry.label),
      report.groups.map((entry) => entry.label),
    );

    const csv = await inject('GET', '/api/gaps/handbook?format=csv', writer);
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    const [header, ...rows] = csv.body.split('\r\n');
    assert.equal(header, 'label,count,questions,closest_pages,comments');
    assert.match(rows[0] ?? '', new RegExp(`^${group.label},${group.count},"`));
  });

  it('only write tokens of the namespace read the report', async () => {
    assert.equal((await inject('GET', '/tools/gaps?namespace=handbook', reader)).statusCode, 401);
    assert.equal((await inject('GET', '/api/gaps/handbook', reader)).statusCode, 401);
    assert.equal((await inject('GET', '/api/gaps/handbook', otherWriter)).statusCode, 403);
    assert.equal((await inject('GET', '/tools/gaps?namespace=handbook', otherWriter)).statusCode, 403);
    assert.equal((await service.app.inject({ method: 'GET', url: '/api/gaps/handbook' })).statusCode, 401);
    assert.equal((await inject('GET', '/api/gaps/handbook?since=yesterday', writer)).statusCode, 400);
    // The other namespace's report holds none of this namespace's questions.
    const other = (await inject('GET', '/api/gaps/other', otherWriter)).json<GapsReport>();
    assert.equal(other.totals.questions, 0);
  });

  it('takes feedback through the MCP feedback tool, with the same tokens', async () => {
    const runId = (await generate('When do passwords expire?')).runId;
    const call = async (token: string, runIdentifier: string) => {
      const client = new Client({ name: 'insights-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${service.baseUrl}/mcp`), { requestInit: { headers: bearer(token) } }),
      );
      try {
        return (await client.callTool({ name: 'feedback', arguments: { run_id: runIdentifier, rating: 'down', comment: 'outdated' } })) as {
          isError?: boolean;
          content: { text: string }[];
        };
      } finally {
        await client.close();
      }
    };
    const given = await call(reader, runId);
    assert.equal(given.isError, undefined, given.content[0]?.text);
    assert.deepEqual(JSON.parse(given.content[0]?.text ?? ''), { run_id: runId, namespace: 'handbook', rating: 'down' });
    const foreign = await call(otherReader, runId);
    assert.equal(foreign.isError, true);
    assert.match(foreign.content[0]?.text ?? '', /forbidden/);
    const unknown = await call(reader, 'no-such-run-00000');
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0]?.text ?? '', /not_found/);
    const records = await readLog(service.storageRoot, 'handbook');
    assert.ok(records.some((record) => record.kind === 'feedback' && record.runId === runId && record.comment === 'outdated'));
  });

  it('documents the routes in /openapi.json', async () => {
    const paths = (await service.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, unknown> }>().paths;
    for (const path of ['/tools/feedback', '/api/feedback', '/tools/gaps', '/api/gaps/{namespace}']) assert.ok(path in paths, path);
  });
});

async function readLog(root: string, namespace: string): Promise<Record<string, unknown>[]> {
  const folder = join(root, namespace, '.questions');
  const files = await readdir(folder);
  return (await Promise.all(files.map((file) => readFile(join(folder, file), 'utf8'))))
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail('the condition never held');
}

describe('question log with KNOWLEDGE_AGENT_QUESTION_LOG=counts and off, over HTTP', () => {
  const services: TestService[] = [];

  after(async () => {
    await Promise.all(services.map((service) => service.dispose()));
  });

  async function serviceWith(mode: string): Promise<TestService> {
    const service = await startService({
      apiKey: undefined,
      environment: { KNOWLEDGE_AGENT_MODEL: 'extractive', KNOWLEDGE_AGENT_QUESTION_LOG: mode },
    });
    services.push(service);
    const ingested = await service.app.inject({
      method: 'POST',
      url: '/tools/ingest',
      payload: {
        namespace: 'handbook',
        sources: [{ type: 'text', title: 'Vacation', value: '# Vacation\n\nEmployees get twenty-five vacation days.' }],
      },
    });
    assert.equal(ingested.statusCode, 200);
    return service;
  }

  const ask = async (service: TestService, question: string) =>
    (
      await service.app.inject({
        method: 'POST',
        url: '/api/agents/knowledge/generate',
        payload: { messages: [{ role: 'user', content: question }], toolParams: { namespace: 'handbook' } },
      })
    ).json<{ runId: string }>().runId;

  it('counts keeps counts, feedback and run ids, and no text: no question, page, source or comment', async () => {
    const service = await serviceWith('counts');
    const runId = await ask(service, 'How do I configure Okta single sign-on?');
    const rated = await service.app.inject({
      method: 'POST',
      url: '/api/feedback',
      payload: { run_id: runId, rating: 'down', comment: 'Okta missing' },
    });
    assert.equal(rated.statusCode, 200, rated.body);
    const folder = join(service.storageRoot, 'handbook', '.questions');
    const stored = (await Promise.all((await readdir(folder)).map((file) => readFile(join(folder, file), 'utf8')))).join('');
    assert.match(stored, new RegExp(runId));
    assert.doesNotMatch(stored, /Okta|sign-on|vacation|Vacation/);
    const report = (await service.app.inject({ method: 'GET', url: '/api/gaps/handbook' })).json<GapsReport>();
    assert.equal(report.log, 'counts');
    assert.equal(report.totals.questions, 1);
    assert.equal(report.totals.rated_down, 1);
    assert.deepEqual([report.groups, report.top_questions, report.rated_up], [[], [], []]);
  });

  it('off keeps nothing, and feedback is 404', async () => {
    const service = await serviceWith('off');
    const runId = await ask(service, 'How do I configure Okta single sign-on?');
    const rated = await service.app.inject({ method: 'POST', url: '/api/feedback', payload: { run_id: runId, rating: 'up' } });
    assert.equal(rated.statusCode, 404);
    assert.match(rated.json<{ error: { message: string } }>().error.message, /KNOWLEDGE_AGENT_QUESTION_LOG=off/);
    assert.deepEqual(
      await readdir(join(service.storageRoot, 'handbook')).then((names) => names.filter((name) => name === '.questions')),
      [],
    );
    assert.equal((await service.app.inject({ method: 'GET', url: '/api/gaps/handbook' })).json<GapsReport>().totals.questions, 0);
  });
});
