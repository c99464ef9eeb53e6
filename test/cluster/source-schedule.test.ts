// Two replicas over one PostgreSQL database share a registered source's schedule: each due run is refreshed by one
// of them only, and either replica lists the source with its last refresh.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startChangingDocsSite, type ChangingDocsSite } from '../support/changing-docs-site.js';
import { startTestPostgres, type TestPostgres } from '../support/embedded-postgres.js';
import { startService, type TestService } from '../support/service.js';
import { until } from '../support/until.js';

interface Source {
  id: string;
  last_refresh: { trigger: string; finished_at: string; checked: number } | null;
}

describe('a schedule shared by two replicas', () => {
  let postgres: TestPostgres;
  let site: ChangingDocsSite;
  let database: pg.Pool;
  const replicas: TestService[] = [];

  before(async () => {
    postgres = await startTestPostgres();
    const url = await postgres.createDatabase('source_schedule_test');
    database = new pg.Pool({ connectionString: url, max: 2 });
    site = await startChangingDocsSite({
      '/docs/rotation.html':
        '<html><head><title>Rotation</title></head><body><h1>Rotation</h1><p>Keys rotate every thirty days.</p></body></html>',
    });
    for (let replica = 0; replica < 2; replica++) {
      replicas.push(
        await startService({
          apiKey: undefined,
          environment: { KNOWLEDGE_AGENT_DATABASE_URL: url, KNOWLEDGE_AGENT_SOURCE_CHECK_MS: '100' },
        }),
      );
    }
  });

  after(async () => {
    for (const replica of replicas) await replica.dispose();
    await database?.end();
    await site?.close();
    await postgres?.stop();
  });

  const listed = async (replica: TestService) =>
    ((await (await replica.get('/api/sources/shared')).json()) as { sources: Source[] }).sources[0];

  it('refreshes each due run on one replica only', async () => {
    const [first, second] = replicas as [TestService, TestService];
    const added = await first.post('/api/sources/shared', { url: `${site.url}/docs/rotation.html`, every: '1m' });
    assert.equal(added.status, 201, await added.clone().text());
    for (let run = 1; run <= 3; run++) {
      site.resetCounts();
      const previous = (await listed(second))?.last_refresh?.finished_at ?? '';
      // Due now: both replicas look for due sources every 100 ms.
      await database.query(`UPDATE knowledge_sources SET next_run_at = now() - interval '1 second'`);
      let latest: Source | undefined;
      const poll = setInterval(() => {
        void listed(run % 2 === 0 ? first : second).then((source) => {
          latest = source;
        });
      }, 50);
      try {
        await until(
          () => latest?.last_refresh?.trigger === 'schedule' && latest.last_refresh.finished_at > previous,
          `scheduled run ${run}`,
          30_000,
        );
      } finally {
        clearInterval(poll);
      }
      // Long enough for a second replica's refresh of the same run to have shown up at the site.
      await sleep(500);
      assert.equal(site.counts('/docs/rotation.html').requests, 1, `run ${run}: the page was asked for once`);
    }
  });
});
