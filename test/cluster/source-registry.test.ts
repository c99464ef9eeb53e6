// The registered sources in cluster mode over a real PostgreSQL server: definitions, summaries and state round-trip,
// go with their namespace, and leases keep one refresh of a source at a time, also when two replicas (two pools)
// claim due sources at once. Time is moved by the clock and the `now` given, never by sleeping.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import pg from 'pg';
import { createSchema } from '../../src/store/postgres/cluster-schema.js';
import { PostgresSourceRegistry } from '../../src/store/postgres/postgres-source-registry.js';
import { emptySourceState, type RegisteredSource, type SourceState } from '../../src/store/source-registry.js';
import { startTestPostgres, type TestPostgres } from '../support/embedded-postgres.js';
import { sanitizeNamespace } from '../../src/store/namespace-name.js';

const start = Date.parse('2030-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(start + ms).toISOString();
const minute = 60_000;

function pageSource(namespace: string, id: string, overrides: Partial<RegisteredSource> = {}): RegisteredSource {
  return {
    kind: 'page',
    url: `https://docs.example.com/${id}`,
    everySeconds: 3_600,
    id,
    namespace: sanitizeNamespace(namespace),
    createdAt: at(0),
    lastRefresh: null,
    nextRunAt: at(0),
    ...overrides,
  };
}

const state: SourceState = {
  pages: {
    'https://docs.example.com/a': {
      origin: 'https://docs.example.com/a/',
      etag: '"v1"',
      lastModified: 'Wed, 01 Jan 2030 00:00:00 GMT',
      links: ['https://docs.example.com/b'],
      goneCount: 1,
      checkedAt: at(0),
    },
  },
  git: { commit: 'abc123', checkedAt: at(0), files: { 'docs/a.md': { blob: 'f00d', origin: 'https://git.example.com/a.md' } } },
};

describe('PostgresSourceRegistry', () => {
  let postgres: TestPostgres;
  /** Two pools: two replicas. */
  let pools: [pg.Pool, pg.Pool];
  let clock = start;
  let first: PostgresSourceRegistry;
  let second: PostgresSourceRegistry;

  before(async () => {
    postgres = await startTestPostgres();
    const url = await postgres.createDatabase('source_registry_test');
    pools = [new pg.Pool({ connectionString: url, max: 6 }), new pg.Pool({ connectionString: url, max: 6 })];
    await createSchema(pools[0]);
    first = new PostgresSourceRegistry(pools[0], () => new Date(clock));
    second = new PostgresSourceRegistry(pools[1], () => new Date(clock));
  });

  // Each test alone in the tables: claimDue takes due sources of any namespace.
  beforeEach(async () => {
    await pools[0].query('DELETE FROM knowledge_namespaces');
  });

  after(async () => {
    await Promise.all(pools?.map((pool) => pool.end()) ?? []);
    await postgres?.stop();
  });

  const leaseOf = async (namespace: string, id: string) => {
    const found = await pools[0].query<{ lease_owner: string | null }>(
      'SELECT s.lease_owner FROM knowledge_sources s JOIN knowledge_namespaces n ON n.id = s.namespace_id WHERE n.name = $1 AND s.id = $2',
      [namespace, id],
    );
    return found.rows[0]?.lease_owner;
  };

  it('saves, lists (oldest first), replaces and removes sources; the namespace row is made for them', async () => {
    const git = pageSource('listed', 'repo', {
      kind: 'git',
      url: 'https://git.example.com/repo.git',
      git: { branch: 'main', folder: 'docs', patterns: ['**/*.md'], linkTemplate: 'https://git.example.com/{path}' },
      everySeconds: null,
      nextRunAt: null,
      webhookSecret: 'the-secret',
      createdAt: at(2 * minute),
    });
    const crawl = pageSource('listed', 'crawl', {
      kind: 'crawl',
      crawl: { maxPages: 50, maxDepth: 3, prune: true },
      createdAt: at(minute),
    });
    await first.save(git);
    await first.save(crawl);

    const namespaces = await pools[0].query<{ last_seq: string }>("SELECT last_seq FROM knowledge_namespaces WHERE name = 'listed'");
    assert.deepEqual(
      namespaces.rows.map((row) => row.last_seq),
      ['0'],
    );
    // The webhook secret is kept: hiding it is the API's business.
    assert.deepEqual(await second.list('listed'), [crawl, git]);
    assert.deepEqual(await second.list('elsewhere'), []);

    const refreshed = {
      ...crawl,
      lastRefresh: {
        trigger: 'schedule' as const,
        startedAt: at(3 * minute),
        finishedAt: at(4 * minute),
        checked: 3,
        unchanged: 1,
        updated: 1,
        added: 1,
        removed: 0,
        failed: [{ url: 'https://docs.example.com/gone', code: 'http_404', message: 'not found' }],
      },
      nextRunAt: at(63 * minute),
    };
    await second.save(refreshed);
    assert.deepEqual(await first.list('listed'), [refreshed, git]);

    assert.equal(await first.remove('listed', 'crawl'), true);
    assert.equal(await second.remove('listed', 'crawl'), false);
    assert.equal(await first.remove('nowhere', 'crawl'), false);
    assert.deepEqual(await first.list('listed'), [git]);
  });

  it('keeps each source state apart from its definition, and drops it with the source', async () => {
    const source = pageSource('stateful', 'page');
    assert.deepEqual(await first.readState('stateful', 'page'), emptySourceState);
    await first.save(source);
    assert.deepEqual(await first.readState('stateful', 'page'), emptySourceState);

    await first.writeState('stateful', 'page', state);
    assert.deepEqual(await second.readState('stateful', 'page'), state);
    await second.save({ ...source, everySeconds: 600 });
    assert.deepEqual(await first.readState('stateful', 'page'), state, 'saving the definition keeps the state');

    assert.equal(await first.remove('stateful', 'page'), true);
    await first.writeState('stateful', 'page', state);
    await first.save(source);
    assert.deepEqual(await first.readState('stateful', 'page'), emptySourceState, 'a source added again starts afresh');
  });

  it('removes the sources and their state with their namespace', async () => {
    await first.save(pageSource('doomed', 'one'));
    await first.save(pageSource('doomed', 'two'));
    await first.writeState('doomed', 'one', state);
    await first.save(pageSource('spared', 'one'));

    await pools[0].query("DELETE FROM knowledge_namespaces WHERE name = 'doomed'");
    assert.deepEqual(await first.list('doomed'), []);
    assert.deepEqual(await first.readState('doomed', 'one'), emptySourceState);
    const orphans = await pools[0].query('SELECT 1 FROM knowledge_sources WHERE namespace_id NOT IN (SELECT id FROM knowledge_namespaces)');
    assert.equal(orphans.rowCount, 0);
    assert.equal((await first.list('spared')).length, 1);

    // Saved again, the namespace is made again.
    await first.save(pageSource('doomed', 'one'));
    assert.deepEqual(await first.readState('doomed', 'one'), emptySourceState);
    assert.equal((await second.list('doomed')).length, 1);
  });

  it('leases a source to one owner until it releases it or the lease ends; the owner renews it', async () => {
    clock = start;
    await first.save(pageSource('leased', 'page'));
    await first.writeState('leased', 'page', state);

    assert.equal(await first.acquire('leased', 'page', 'a', minute), true);
    assert.equal(await second.acquire('leased', 'page', 'b', minute), false);
    clock = start + 50_000;
    assert.equal(await first.acquire('leased', 'page', 'a', minute), true, 'renewed until start + 110 s');
    clock = start + 70_000;
    assert.equal(await second.acquire('leased', 'page', 'b', minute), false, 'the renewed lease still holds');
    clock = start + 111_000;
    assert.equal(await second.acquire('leased', 'page', 'b', minute), true, 'the lease ended');
    assert.equal(await first.acquire('leased', 'page', 'a', minute), false);

    await first.release('leased', 'page', 'a');
    assert.equal(await leaseOf('leased', 'page'), 'b', 'only the holder releases');
    assert.equal(await first.acquire('leased', 'page', 'c', minute), false);
    await second.release('leased', 'page', 'b');
    assert.equal(await leaseOf('leased', 'page'), null);
    assert.equal(await first.acquire('leased', 'page', 'c', minute), true);

    assert.equal(await first.acquire('leased', 'missing', 'a', minute), false);
    assert.deepEqual(await first.readState('leased', 'page'), state, 'leases leave the state alone');
    await first.release('leased', 'page', 'c');
  });

  it('claims the due, free sources, the most overdue first, up to the limit', async () => {
    clock = start;
    const now = new Date(start + 10 * minute);
    await first.save(pageSource('due', 'late', { nextRunAt: at(2 * minute) }));
    await first.save(pageSource('due', 'later', { nextRunAt: at(minute) }));
    await first.save(pageSource('due', 'on-time', { nextRunAt: at(10 * minute) }));
    await first.save(pageSource('due', 'future', { nextRunAt: at(11 * minute) }));
    await first.save(pageSource('due', 'unscheduled', { everySeconds: null, nextRunAt: null }));
    await first.save(pageSource('due', 'busy', { nextRunAt: at(0) }));
    // Leased until start + 11 minutes by a refresh running now.
    clock = now.getTime();
    assert.equal(await second.acquire('due', 'busy', 'refresher', minute), true);

    const claimed = await first.claimDue(now, 'a', minute, 2);
    assert.deepEqual(
      claimed.map((source) => source.id),
      ['later', 'late'],
    );
    assert.deepEqual(claimed[0], pageSource('due', 'later', { nextRunAt: at(minute) }));
    assert.deepEqual(
      (await second.claimDue(now, 'b', minute, 10)).map((source) => source.id),
      ['on-time'],
    );
    assert.deepEqual(await first.claimDue(now, 'a', minute, 10), [], 'what is claimed stays claimed while its lease lasts');
    assert.equal(await second.acquire('due', 'late', 'b', minute), false, 'a claim is a lease');

    // Past the leases (start + 11 minutes), every due source is free again, the busy one too.
    const later = new Date(start + 11 * minute + 1);
    assert.deepEqual(
      (await second.claimDue(later, 'b', minute, 10)).map((source) => source.id),
      ['busy', 'later', 'late', 'on-time', 'future'],
    );
    assert.equal(await leaseOf('due', 'unscheduled'), null);
  });

  it('never lets two replicas claim the same source', async () => {
    const namespaces = ['race-a', 'race-b', 'race-c'];
    const sources = namespaces.flatMap((namespace) =>
      Array.from({ length: 20 }, (_, index) => pageSource(namespace, `page-${index}`, { nextRunAt: at(index * 1_000) })),
    );
    for (const source of sources) await first.save(source);
    const leaseMs = minute;
    const rounds = 25;
    for (let round = 0; round < rounds; round += 1) {
      // Each round past the last one's leases: every source is due and free again.
      const now = new Date(start + (round + 1) * 2 * leaseMs);
      const claims = new Map<string, string[]>();
      // Three claimers on each replica, each claiming a few at a time until nothing is left.
      const claimer = async (registry: PostgresSourceRegistry, owner: string) => {
        for (;;) {
          const claimed = await registry.claimDue(now, owner, leaseMs, 3);
          if (claimed.length === 0) return;
          for (const source of claimed) {
            const key = `${source.namespace}/${source.id}`;
            claims.set(key, [...(claims.get(key) ?? []), owner]);
          }
        }
      };
      await Promise.all([
        ...['a1', 'a2', 'a3'].map((owner) => claimer(first, owner)),
        ...['b1', 'b2', 'b3'].map((owner) => claimer(second, owner)),
      ]);
      const twice = [...claims].filter(([, owners]) => owners.length > 1);
      assert.deepEqual(twice, [], `round ${round}: claimed more than once`);
      assert.equal(claims.size, sources.length, `round ${round}: every due source is claimed`);
      for (const [key, [owner]] of [...claims].slice(0, 5)) {
        const [namespace = '', id = ''] = key.split('/');
        assert.equal(await leaseOf(namespace, id), owner);
      }
    }
  });
});
