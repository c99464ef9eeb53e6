// `knowledge-agent gaps` against a real service (the extractive model, the local embedding model): the printed
// report, --json with groups/top_questions/counts, --csv, --since, a read token refused, and --export-eval writing a
// question file that `knowledge-agent eval` parses.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { parseQuestionFile } from '../../src/cli/evaluation.js';
import { gapsCommand } from '../../src/cli/gaps-command.js';
import { startService, type ListeningTestService } from '../support/service.js';

const writer = 'writer-token-handbook-0001';
const reader = 'reader-token-handbook-0001';

async function gaps(
  service: ListeningTestService,
  args: string[],
  cwd = tmpdir(),
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  stdout.on('data', (chunk: Buffer) => chunks.stdout.push(chunk));
  stderr.on('data', (chunk: Buffer) => chunks.stderr.push(chunk));
  let code: number;
  try {
    code = await gapsCommand.run(args, { stdout, stderr, env: { KNOWLEDGE_AGENT_URL: service.baseUrl }, cwd });
  } catch (error) {
    return { code: -1, stdout: '', stderr: (error as Error).message };
  }
  return { code, stdout: Buffer.concat(chunks.stdout).toString(), stderr: Buffer.concat(chunks.stderr).toString() };
}

describe('knowledge-agent gaps', () => {
  let service: ListeningTestService;
  let folder: string;

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'knowledge-agent-gaps-'));
    // Listening: the gaps command talks to the service over HTTP, as from a terminal.
    service = await startService({
      listen: true,
      apiKey: undefined,
      environment: {
        KNOWLEDGE_AGENT_MODEL: 'extractive',
        KNOWLEDGE_AGENT_WRITE_TOKENS: `${writer}:handbook`,
        KNOWLEDGE_AGENT_READ_TOKENS: `${reader}:handbook`,
      },
    });
    const headers = { authorization: `Bearer ${writer}` };
    const ingested = await service.post(
      '/tools/ingest',
      {
        namespace: 'handbook',
        sources: [
          { type: 'text', title: 'Vacation', value: '# Vacation\n\nEmployees get twenty-five vacation days per year.' },
          { type: 'text', title: 'Expenses', value: '# Expenses\n\nSubmit expense reports within thirty days through the finance portal.' },
        ],
      },
      headers,
    );
    assert.equal(ingested.status, 200);
    const ask = async (question: string) =>
      (await (
        await service.post(
          '/api/agents/knowledge/generate',
          { messages: [{ role: 'user', content: question }], toolParams: { namespace: 'handbook' } },
          headers,
        )
      ).json()) as { runId: string; covered: boolean };
    for (const question of ['How do I set up single sign-on with Okta?', 'Is SAML SSO supported?', 'configure SSO login for my team']) {
      assert.equal((await ask(question)).covered, false);
    }
    const good = await ask('How many vacation days do employees get per year?');
    assert.equal(good.covered, true);
    const rated = await service.post('/api/feedback', { run_id: good.runId, rating: 'up' }, headers);
    assert.equal(rated.status, 200);
  });

  after(async () => {
    await service.dispose();
    await rm(folder, { recursive: true, force: true });
  });

  it('prints the gap groups, the most asked questions and the counts per day', async () => {
    const result = await gaps(service, ['--namespace', 'handbook', '--token', writer]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^handbook: 4 questions since \d{4}-\d{2}-\d{2}: 1 covered, 3 not covered, 1 rated up, 0 rated down/);
    assert.match(result.stdout, /Gaps:\n\s+3\s+\S.*\n\s+- /);
    assert.match(result.stdout, /Most asked:/);
    assert.match(result.stdout, /\d{4}-\d{2}-\d{2}\s+4\s+1\s+3\s+1\s+0/);
  });

  it('--json prints groups, top_questions and counts; --since narrows them', async () => {
    const result = await gaps(service, ['--namespace', 'handbook', '--json', '--token', writer, '--since', '1h']);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as {
      groups: { label: string; count: number; questions: string[]; pages: unknown[]; comments: string[] }[];
      top_questions: unknown[];
      counts: unknown[];
    };
    assert.equal(report.groups.length, 1);
    assert.equal(report.groups[0]?.count, 3);
    assert.ok(Array.isArray(report.groups[0]?.pages) && Array.isArray(report.groups[0]?.comments));
    assert.equal(report.top_questions.length, 4);
    assert.equal(report.counts.length, 1);
  });

  it('--csv prints the groups as CSV', async () => {
    const result = await gaps(service, ['--namespace', 'handbook', '--csv', '--token', writer]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.split('\r\n')[0], 'label,count,questions,closest_pages,comments');
    assert.equal(result.stdout.trimEnd().split('\r\n').length, 2);
  });

  it('--export-eval writes a question file that eval parses', async () => {
    const result = await gaps(service, ['--namespace', 'handbook', '--export-eval', 'gaps.jsonl', '--token', writer], folder);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /wrote 4 questions to .*gaps\.jsonl/);
    const questions = parseQuestionFile(await readFile(join(folder, 'gaps.jsonl'), 'utf8'), 'gaps.jsonl');
    assert.equal(questions.length, 4);
    assert.deepEqual(
      questions.filter((question) => question.out_of_scope === true).map((question) => question.kind?.startsWith('gap: ')),
      [true, true, true],
    );
    const ratedUp = questions.find((question) => question.kind === 'rated-up');
    assert.equal(ratedUp?.question, 'How many vacation days do employees get per year?');
    assert.deepEqual(Object.values(ratedUp?.pages ?? {}), [2]);
  });

  it('refuses a read token, and a command line without --namespace', async () => {
    const refused = await gaps(service, ['--namespace', 'handbook', '--token', reader]);
    assert.equal(refused.code, -1);
    assert.match(refused.stderr, /401|token/i);
    const usage = await gaps(service, ['--json']);
    assert.equal(usage.code, -1);
    assert.match(usage.stderr, /--namespace is required/);
  });
});
