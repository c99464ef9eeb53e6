// The command line's pure parts: progress maths (rate, ETA), the bar's line, per-source lines, batching, tables.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { withMention } from '../../src/cli/ask-command.js';
import { planBatches, type PlannedSource } from '../../src/cli/collect-sources.js';
import { defaultPort } from '../../src/cli/command-options.js';
import {
  estimateRemainingMs,
  formatBar,
  formatDuration,
  formatRate,
  outcomeLine,
  progressLine,
  ratePerSecond,
  replacedLine,
  summaryLine,
} from '../../src/cli/ingest-progress.js';
import { formatNamespaceTable } from '../../src/cli/namespaces-command.js';
import { shortExcerpt } from '../../src/cli/search-command.js';
import { loadConfig } from '../../src/config.js';

describe('ingest progress maths', () => {
  it('computes the rate from what is done and the time it took', () => {
    const cases: [count: number, elapsedMs: number, expected: number | undefined][] = [
      [0, 1_000, undefined],
      [5, 0, undefined],
      [5, 1_000, 5],
      [3, 2_000, 1.5],
      [1, 4_000, 0.25],
    ];
    for (const [count, elapsedMs, expected] of cases)
      assert.equal(ratePerSecond(count, elapsedMs), expected, `${count} in ${elapsedMs} ms`);
  });

  it('estimates the time left at the pace so far, leaving out what was decided before the clock started', () => {
    const cases: [done: number, total: number, elapsedMs: number, doneAtStart: number, expected: number | undefined][] = [
      [0, 10, 5_000, 0, undefined],
      [10, 10, 5_000, 0, 0],
      [12, 10, 5_000, 0, 0],
      [5, 10, 5_000, 0, 5_000],
      [2, 10, 1_000, 0, 4_000],
      [1, 4, 3_000, 0, 9_000],
      // Three refused locally at once: the pace is one file in 2 s, six files are left.
      [4, 10, 2_000, 3, 12_000],
      [3, 10, 2_000, 3, undefined],
    ];
    for (const [done, total, elapsedMs, doneAtStart, expected] of cases) {
      assert.equal(
        estimateRemainingMs(done, total, elapsedMs, doneAtStart),
        expected,
        `${done}/${total} after ${elapsedMs} ms (${doneAtStart} at start)`,
      );
    }
  });

  it('formats durations and rates for people', () => {
    const durations: [number, string][] = [
      [0, '0s'],
      [1, '1s'],
      [999, '1s'],
      [45_000, '45s'],
      [59_001, '1m00s'],
      [125_000, '2m05s'],
      [3_600_000, '1h00m'],
      [3_720_000, '1h02m'],
    ];
    for (const [milliseconds, expected] of durations) assert.equal(formatDuration(milliseconds), expected, String(milliseconds));
    assert.equal(formatRate(undefined, 'files'), '-- files/s');
    assert.equal(formatRate(3.24, 'files'), '3.2 files/s');
    assert.equal(formatRate(0.04, 'files'), '0.0 files/s');
    assert.equal(formatRate(14.6, 'chunks'), '15 chunks/s');
  });

  it('draws the bar in proportion and drops it when there is no room', () => {
    assert.equal(formatBar(0, 10, 10), '[----------] ');
    assert.equal(formatBar(5, 10, 10), '[#####-----] ');
    assert.equal(formatBar(10, 10, 10), '[##########] ');
    assert.equal(formatBar(0, 0, 4), '');
  });

  it('fits the whole line to the terminal width, numbers first', () => {
    const state = { filesDone: 12, filesDoneAtStart: 0, filesTotal: 40, chunks: 340, elapsedMs: 4_000 };
    const wide = progressLine(state, 100);
    assert.equal(wide, '[#########---------------------] 12/40 files | 340 chunks | 3.0 files/s | ETA 10s');
    assert.ok(wide.length < 100);
    assert.equal(progressLine(state, 50), '12/40 files | 340 chunks | 3.0 files/s | ETA 10s');
    assert.equal(
      progressLine({ ...state, filesDone: 0, chunks: 1 }, 100).replace(/^\[-+\] /, ''),
      '0/40 files | 1 chunk | -- files/s | ETA --',
    );
  });
});

describe('ingest output lines', () => {
  it('prints one line per source and the summary', () => {
    assert.equal(outcomeLine({ label: 'docs/a.md', status: 'saved', chunks: 12 }), 'saved  docs/a.md  12 chunks');
    assert.equal(outcomeLine({ label: 'docs/a.md', status: 'updated', chunks: 1 }), 'updated  docs/a.md  1 chunk');
    assert.equal(outcomeLine({ label: 'docs/b.md', status: 'skipped' }), 'skipped  docs/b.md  unchanged');
    assert.equal(
      outcomeLine({ label: 'x.docx', status: 'skipped', reason: 'unsupported file type' }),
      'skipped  x.docx  unsupported file type',
    );
    assert.equal(
      outcomeLine({ label: 'c.pdf', status: 'failed', reason: 'c.pdf: the PDF has no text layer' }),
      'failed  c.pdf  c.pdf: the PDF has no text layer',
    );
    assert.equal(outcomeLine({ label: 'd.md', status: 'saved' }), 'saved  d.md');
    assert.equal(
      outcomeLine({ label: 'e.md', status: 'saved', chunks: 2, warning: 'stored without embeddings: the provider answered HTTP 503' }),
      'saved  e.md  2 chunks, stored without embeddings: the provider answered HTTP 503',
    );
    assert.equal(summaryLine({ saved: 3, updated: 1, skipped: 2, failed: 0, removed: 0 }), 'saved 3, updated 1, skipped 2, failed 0');
    assert.equal(
      outcomeLine({ label: 'https://example.com/docs/old.html', status: 'removed', reason: 'no longer found by the crawl' }),
      'removed  https://example.com/docs/old.html  no longer found by the crawl',
    );
    assert.equal(
      summaryLine({ saved: 3, updated: 0, skipped: 5, failed: 1, removed: 2 }),
      'saved 3, updated 0, skipped 5, failed 1, removed 2',
    );
  });

  it('names what an update replaced, on its line and before the summary', () => {
    assert.equal(
      outcomeLine({
        label: 'docs/advanced/middleware.md',
        status: 'updated',
        chunks: 4,
        replaced: { file: 'advanced-middleware.md', ingestedAt: '2026-11-23T18:04:05.123Z' },
      }),
      'updated  docs/advanced/middleware.md  4 chunks, replaced advanced-middleware.md of 2026-11-23 18:04 UTC',
    );
    assert.equal(
      outcomeLine({ label: 'a.md', status: 'updated', replaced: { file: 'a.md', ingestedAt: 'earlier' } }),
      'updated  a.md  replaced a.md of earlier',
    );
    assert.equal(replacedLine([]), undefined);
    assert.equal(replacedLine(['a.md']), 'replaced 1 stored document: a.md');
    const many = Array.from({ length: 12 }, (_unused, index) => `page-${index}.md`);
    assert.equal(replacedLine(many), `replaced 12 stored documents: ${many.slice(0, 10).join(', ')} and 2 more`);
  });
});

describe('ingest batches', () => {
  const file = (name: string, bytes: number): PlannedSource => ({
    kind: 'file',
    label: name,
    path: `/docs/${name}`,
    uploadName: name,
    bytes,
  });
  const url = (address: string): PlannedSource => ({ kind: 'url', label: address, url: address });

  it('groups files by count and size, a large file alone, then URLs', () => {
    const batches = planBatches(
      [
        file('a.md', 100),
        url('https://example.com/1'),
        file('b.md', 100),
        file('c.md', 100),
        file('big.pdf', 5_000_000),
        file('d.md', 100),
        url('https://example.com/2'),
        url('https://example.com/3'),
      ],
      { maxFiles: 2, maxBytes: 1_000_000, maxUrls: 2 },
    );
    assert.deepEqual(
      batches.map((batch) => `${batch.kind}: ${batch.sources.map((source) => source.label).join(' ')}`),
      [
        'files: a.md b.md',
        'files: c.md',
        'files: big.pdf',
        'files: d.md',
        'urls: https://example.com/1 https://example.com/2',
        'urls: https://example.com/3',
      ],
    );
    assert.deepEqual(planBatches([]), []);
  });

  it('crawls each URL in a request of its own, with the crawl asked for', () => {
    const crawl = { maxPages: 20, prune: true };
    const batches = planBatches([url('https://example.com/a/'), file('a.md', 100), url('https://example.com/b/')], undefined, { crawl });
    assert.deepEqual(
      batches.map((batch) => [
        batch.kind,
        batch.sources.map((source) => source.label).join(' '),
        batch.kind === 'urls' ? batch.crawl : undefined,
      ]),
      [
        ['files', 'a.md', undefined],
        ['urls', 'https://example.com/a/', crawl],
        ['urls', 'https://example.com/b/', crawl],
      ],
    );
  });
});

describe('search, namespaces and ask formatting', () => {
  it('shortens excerpts to one line, cut at a word', () => {
    assert.equal(shortExcerpt('Tokens  rotate\nevery 90 days.'), 'Tokens rotate every 90 days.');
    assert.equal(shortExcerpt('alpha beta gamma delta epsilon', 20), 'alpha beta gamma…');
    assert.equal(shortExcerpt('x'.repeat(30), 20), `${'x'.repeat(20)}…`);
  });

  it('aligns the namespace table, numbers to the right', () => {
    assert.equal(
      formatNamespaceTable([
        { name: 'docs', documents: 12, chunks: 340, embedding_model: 'local:all-MiniLM-L6-v2' },
        { name: 'handbook-archive', documents: 3, chunks: 9, embedding_model: null },
      ]),
      [
        'NAMESPACE         DOCUMENTS  CHUNKS  EMBEDDING MODEL',
        'docs                     12     340  local:all-MiniLM-L6-v2',
        'handbook-archive          3       9  -',
        '',
      ].join('\n'),
    );
  });

  it('puts the mention in front of a question only when it is missing', () => {
    assert.equal(withMention('how do tokens rotate?', '@knowledge'), '@knowledge how do tokens rotate?');
    assert.equal(withMention('@Knowledge how do tokens rotate?', '@knowledge'), '@Knowledge how do tokens rotate?');
    assert.equal(withMention('ask @knowledgebase', '@knowledge'), '@knowledge ask @knowledgebase');
  });
});

describe('command-line defaults', () => {
  it('uses the service default port of src/config.ts', async () => {
    const storage = await mkdtemp(join(tmpdir(), 'knowledge-agent-cli-config-'));
    try {
      assert.equal(loadConfig({ KNOWLEDGE_AGENT_STORAGE_PATH: storage }).port, defaultPort);
    } finally {
      await rm(storage, { recursive: true, force: true });
    }
  });
});
