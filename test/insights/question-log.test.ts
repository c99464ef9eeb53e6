// The question log in the folder layout and the recorder over it: daily files kept with the namespace, retention,
// what `counts` and `off` keep, feedback finding its run, and a failing log that never fails (or delays) an answer.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { QuestionRecorder, type QuestionLogMode } from '../../src/insights/index.js';
import { FolderQuestionLog } from '../../src/store/folder/folder-question-log.js';
import type { AskedQuestion, QuestionLog } from '../../src/store/question-log.js';

const day = 86_400_000;

function asked(runId: string, at: Date, question = `question of ${runId}`): AskedQuestion {
  return {
    kind: 'question',
    runId,
    at: at.toISOString(),
    channel: 'generate',
    question,
    query: question,
    pages: [{ file: 'sso.md', title: 'Single sign-on', origin: 'https://docs.example.com/sso', score: 0.42 }],
    pageCount: 1,
    answerLength: 120,
    covered: false,
    sources: [],
    latencyMs: 12,
  };
}

describe('question log (folder layout)', () => {
  let root: string;
  let log: FolderQuestionLog;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'knowledge-agent-questions-'));
    await mkdir(join(root, 'handbook'));
    await mkdir(join(root, 'other'));
    log = new FolderQuestionLog(root, async () => ['handbook', 'other']);
  });

  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('appends to a file per UTC day in the namespace folder and reads back from a time on', async () => {
    const now = Date.now();
    await log.append('handbook', [asked('old', new Date(now - 3 * day)), asked('new', new Date(now))]);
    assert.deepEqual((await readdir(join(root, 'handbook', '.questions'))).length, 2);
    const since = await log.read('handbook', new Date(now - day));
    assert.deepEqual(
      since.map((record) => record.runId),
      ['new'],
    );
    assert.equal((await log.read('handbook', new Date(now - 4 * day))).length, 2);
  });

  it('keeps nothing for a namespace whose folder does not exist, and does not create it', async () => {
    assert.equal(await log.append('missing', [asked('lost', new Date())]), false);
    assert.deepEqual((await readdir(root)).sort(), ['handbook', 'other']);
  });

  it('finds the namespace of a run, and skips lines that are not records', async () => {
    await log.append('other', [asked('run-in-other', new Date())]);
    const file = join(root, 'other', '.questions', `${new Date().toISOString().slice(0, 10)}.jsonl`);
    await writeFile(file, `${await readFile(file, 'utf8')}{"torn":\nnot json\n`);
    assert.equal(await log.namespaceOfRun('run-in-other'), 'other');
    assert.equal(await log.namespaceOfRun('new'), 'handbook');
    assert.equal(await log.namespaceOfRun('never'), undefined);
    assert.equal((await log.read('other', new Date(0))).length, 1);
  });

  it('prunes the days older than the retention', async () => {
    await log.prune(new Date(Date.now() - day));
    assert.deepEqual(
      (await log.read('handbook', new Date(0))).map((record) => record.runId),
      ['new'],
    );
    assert.equal((await readdir(join(root, 'handbook', '.questions'))).length, 1);
  });
});

describe('QuestionRecorder', () => {
  let root: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'knowledge-agent-recorder-'));
  });

  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function recorder(mode: QuestionLogMode, name: string, retentionMs = 90 * day) {
    await mkdir(join(root, name));
    const warnings: string[] = [];
    const log = new FolderQuestionLog(root, async () => [name]);
    return { recorder: new QuestionRecorder({ log, mode, retentionMs, warn: (message) => warnings.push(message) }), warnings, log };
  }

  async function storedText(name: string): Promise<string> {
    const folder = join(root, name, '.questions');
    const files = await readdir(folder).catch(() => []);
    return (await Promise.all(files.map((file) => readFile(join(folder, file), 'utf8')))).join('');
  }

  it('full keeps the question, its pages and sources, and feedback with its comment', async () => {
    const { recorder: full } = await recorder('full', 'full');
    full.record('full', asked('run-full', new Date(), 'How do I set up SAML single sign-on?'));
    assert.equal(await full.feedback({ runId: 'run-full', rating: 'down', comment: 'nothing about Okta' }, () => undefined), 'full');
    const text = await storedText('full');
    assert.match(text, /SAML single sign-on/);
    assert.match(text, /nothing about Okta/);
    assert.match(text, /"score":0\.42/);
    await full.close();
  });

  it('counts keeps when, how and how well, but no text: no question, pages, sources or comment', async () => {
    const { recorder: counts } = await recorder('counts', 'counts');
    counts.record('counts', asked('run-counts', new Date(), 'How do I set up SAML single sign-on?'));
    await counts.feedback({ runId: 'run-counts', rating: 'down', comment: 'nothing about Okta' }, () => undefined);
    const text = await storedText('counts');
    assert.doesNotMatch(text, /SAML|Okta|sso|Single sign-on/);
    const records = await counts.records('counts', new Date(0));
    assert.deepEqual(
      records.map((record) => record.kind),
      ['question', 'feedback'],
    );
    assert.deepEqual(
      { ...records[0], at: undefined },
      {
        kind: 'question',
        runId: 'run-counts',
        at: undefined,
        channel: 'generate',
        pageCount: 1,
        answerLength: 120,
        covered: false,
        latencyMs: 12,
      },
    );
    await counts.close();
  });

  it('feedback on a run whose namespace was deleted since is 404', async () => {
    const { recorder: full } = await recorder('full', 'deleted');
    full.record('deleted', asked('run-deleted', new Date()));
    await full.flush();
    await rm(join(root, 'deleted'), { recursive: true });
    await assert.rejects(
      full.feedback({ runId: 'run-deleted', rating: 'up' }, () => undefined),
      { code: 'not_found' },
    );
    await full.close();
  });

  it('off keeps nothing, and feedback is then 404', async () => {
    const { recorder: off } = await recorder('off', 'off');
    off.record('off', asked('run-off', new Date()));
    await off.flush();
    assert.equal(await storedText('off'), '');
    await assert.rejects(
      off.feedback({ runId: 'run-off', rating: 'up' }, () => undefined),
      { code: 'not_found' },
    );
    await off.close();
  });

  it('feedback on an unknown run is 404; the authorization sees the run namespace before anything is written', async () => {
    const { recorder: full } = await recorder('full', 'authorized');
    await assert.rejects(
      full.feedback({ runId: 'no-such-run', rating: 'up' }, () => undefined),
      { code: 'not_found' },
    );
    full.record('authorized', asked('run-authorized', new Date()));
    const refused = new Error('not yours');
    await assert.rejects(
      full.feedback({ runId: 'run-authorized', rating: 'up' }, (namespace) => {
        assert.equal(namespace, 'authorized');
        throw refused;
      }),
      refused,
    );
    await full.flush();
    assert.doesNotMatch(await storedText('authorized'), /"kind":"feedback"/);
    // A restarted service finds the run in the log.
    const restarted = new QuestionRecorder({
      log: new FolderQuestionLog(root, async () => ['authorized']),
      mode: 'full',
      retentionMs: day,
      warn: () => undefined,
    });
    assert.equal(await restarted.feedback({ runId: 'run-authorized', rating: 'up' }, () => undefined), 'authorized');
    await restarted.close();
    await full.close();
  });

  it('reads nothing older than the retention, and prunes it on start', async () => {
    const name = 'retained';
    await mkdir(join(root, name));
    const log = new FolderQuestionLog(root, async () => [name]);
    await log.append(name, [asked('ancient', new Date(Date.now() - 10 * day)), asked('recent', new Date(Date.now() - 2 * day))]);
    const recorder = new QuestionRecorder({ log, mode: 'full', retentionMs: 5 * day, warn: () => undefined });
    assert.deepEqual(
      (await recorder.records(name, new Date(0))).map((record) => record.runId),
      ['recent'],
    );
    await recorder.close();
    assert.equal((await readdir(join(root, name, '.questions'))).length, 1, 'the old day file is removed');
  });

  it('a log that fails is warned about once, and record() neither throws nor waits for it', async () => {
    let appends = 0;
    const failing: QuestionLog = {
      async append(): Promise<boolean> {
        appends++;
        throw new Error('disk on fire');
      },
      read: async () => [],
      namespaceOfRun: async () => undefined,
      prune: async () => undefined,
    };
    const warnings: string[] = [];
    const recorder = new QuestionRecorder({ log: failing, mode: 'full', retentionMs: day, warn: (message) => warnings.push(message) });
    for (let index = 0; index < 3; index++) {
      assert.doesNotThrow(() => recorder.record('docs', asked(`failing-${index}`, new Date())));
      assert.equal(appends, index, 'the write happens after record() returned');
      await recorder.flush();
    }
    assert.equal(appends, 3);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /disk on fire/);
    await recorder.close();
  });
});
