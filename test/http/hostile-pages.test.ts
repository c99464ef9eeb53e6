// Hostile HTML pages ingested from URLs, and a 6 MB upload of pathological Markdown, must not stall the service: each
// page ends stored or as a per-source error with a catalogue code, an ordinary page of the same request is stored,
// /health answers every check meanwhile, and the process's RSS grows by less than 300 MB (the bounds of issues 13 and
// 26). How fast /health answers meanwhile (p99 under 100 ms) is a figure of `npm run bench:hostile`: on a shared machine
// a percentile is no pass/fail criterion. What this test holds is that nothing freezes: no check waits seconds, as
// every check did for 33 s to over 200 s before the parsers were made linear and moved off the event loop.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  limitCodes,
  manySpans,
  nestedDivs,
  pathologicalMarkdown,
  startHostileScenario,
  type HealthMeasurement,
  type HostileScenario,
} from '../support/hostile-inputs.js';

/** Far above the benchmark's 100 ms and far below the freezes of before: a stall, not a slow machine. */
const freezeMs = 5_000;

async function assertNoFreeze(measured: HealthMeasurement<unknown>): Promise<void> {
  const { latencies, statuses, growthMb } = await measured.health;
  assert.ok(latencies.length >= 5, `only ${latencies.length} health checks ran`);
  assert.ok(
    statuses.every((status) => status === 200),
    `/health answered ${statuses.filter((status) => status !== 200).join(', ')}`,
  );
  const slowest = Math.max(...latencies);
  assert.ok(slowest < freezeMs, `a /health check waited ${Math.round(slowest)} ms: the event loop froze`);
  assert.ok(growthMb < 300, `RSS grew by ${growthMb.toFixed(0)} MB`);
}

describe('hostile HTML pages from URLs', () => {
  let scenario: HostileScenario;

  before(async () => {
    scenario = await startHostileScenario();
  });

  after(async () => {
    await scenario?.dispose();
  });

  it('are ingested without freezing the service or growing its memory past the bound', async () => {
    assert.ok(nestedDivs.length > 1_000_000 && manySpans.length > 5_400_000, 'the pages are as large as the measured ones');
    assert.deepEqual(
      scenario.warmUp.documents.map((document) => document.status),
      ['saved', 'saved'],
    );
    assert.deepEqual(
      scenario.warmUp.errors.map((error) => error.code),
      ['document_too_complex'],
    );
    const measured = scenario.ingestHostilePages('hostile');
    const result = await measured.result;

    for (const path of ['/nested-divs.html', '/many-spans.html']) {
      const source = `${scenario.siteUrl}${path}`;
      const stored = result.documents.find((document) => document.source === source);
      const failed = result.errors.find((error) => error.source === source);
      assert.ok(stored !== undefined || failed !== undefined, `${path} has an outcome`);
      if (failed !== undefined) assert.ok(limitCodes.has(failed.code), `${path}: ${failed.code} ${failed.error}`);
    }
    assert.equal(result.documents.find((document) => document.source === `${scenario.siteUrl}/rollback.html`)?.status, 'saved');
    await assertNoFreeze(measured);
  });

  it('take a 6 MB upload of pathological Markdown without freezing the service', async () => {
    assert.equal(pathologicalMarkdown().length, 6_000_000, 'as large as an upload may be');
    const measured = scenario.uploadPathologicalMarkdown('hostile-markdown');
    const { status, body } = await measured.result;
    assert.equal(status, 200);
    // Stored, or refused by a conversion limit on a machine too slow for the 30 s time limit: never a stall.
    if (body.saved !== 1) assert.ok(limitCodes.has(body.errors[0]?.code ?? ''), JSON.stringify(body.errors));
    await assertNoFreeze(measured);
  });
});
