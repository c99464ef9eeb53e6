// KNOWLEDGE_AGENT_QUESTION_LOG and KNOWLEDGE_AGENT_QUESTION_RETENTION: defaults, accepted forms, and start-up errors.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { parseDuration } from '../../src/insights/index.js';

describe('question log configuration', () => {
  let root: string;
  const load = (environment: Record<string, string>) => loadConfig({ KNOWLEDGE_AGENT_STORAGE_PATH: root, ...environment });

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'knowledge-agent-config-'));
  });

  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('keeps everything for 90 days by default', () => {
    assert.deepEqual(load({}).questionLog, { mode: 'full', retentionMs: 90 * 86_400_000 });
  });

  it('takes off, counts and full, and a retention in minutes, hours, days or weeks', () => {
    assert.deepEqual(load({ KNOWLEDGE_AGENT_QUESTION_LOG: ' Counts ', KNOWLEDGE_AGENT_QUESTION_RETENTION: '12h' }).questionLog, {
      mode: 'counts',
      retentionMs: 12 * 3_600_000,
    });
    assert.equal(load({ KNOWLEDGE_AGENT_QUESTION_LOG: 'off' }).questionLog.mode, 'off');
    const table: [string, number | undefined][] = [
      ['30', 30 * 86_400_000],
      ['2w', 14 * 86_400_000],
      ['90m', 90 * 60_000],
      ['7 d', 7 * 86_400_000],
      ['0d', undefined],
      ['-1d', undefined],
      ['1y', undefined],
      ['', undefined],
      ['1.5d', undefined],
    ];
    for (const [text, milliseconds] of table) assert.equal(parseDuration(text), milliseconds, text);
  });

  it('reports bad values as start-up errors naming the variable', () => {
    assert.throws(
      () => load({ KNOWLEDGE_AGENT_QUESTION_LOG: 'everything', KNOWLEDGE_AGENT_QUESTION_RETENTION: 'forever' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.some((problem) => problem.startsWith('KNOWLEDGE_AGENT_QUESTION_LOG: must be off, counts or full')) &&
        error.problems.some((problem) =>
          problem.startsWith('KNOWLEDGE_AGENT_QUESTION_RETENTION: must be a whole number followed by m, h, d or w'),
        ),
    );
  });
});
