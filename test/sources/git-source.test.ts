// A git repository as a registered source, through HTTP: added (ingested), refreshed after commits (only changed
// blobs ingested, deleted files' documents removed, cited by their browsable URLs), refreshed by a signed webhook,
// and kept across a restart.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { startService, startServiceWithProvider, type TestService } from '../support/service.js';
import { json, refreshCounts, type SourceAnswer } from '../support/registered-sources.js';
import { until } from '../support/until.js';

interface SearchResults {
  results: { file: string; origin: string; as_of: string; excerpt: string }[];
}

const secret = 'a-webhook-secret-of-some-length';
const template = 'https://git.example/handbook/blob/{branch}/{path}';

describe('a git repository as a registered source', () => {
  let repository: GitHttpServer;
  let service: TestService;
  let source: SourceAnswer;

  before(async () => {
    repository = await startGitHttpServer();
    repository.commit('first docs', {
      'README.md': '# Handbook repository\n\nNot part of the docs folder.',
      'docs/guide.md': '# Guide\n\nThe deploy pipeline runs on every merge to main.',
      'docs/install.md': '# Install\n\nInstall the agent with the bootstrap script.',
      'docs/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    });
    ({ service } = await startServiceWithProvider());
  });

  after(async () => {
    await service?.dispose();
    await repository?.close();
  });

  const search = (query: string) => json<SearchResults>(service.post('/api/tools/searchDocs', { namespace: 'handbook', query }));

  it('ingests the files of its folder and patterns when added, cited by the link template', async () => {
    const added = await json<{ source: SourceAnswer }>(
      service.post('/api/sources/handbook', {
        url: repository.url,
        git: { branch: 'main', folder: 'docs', link_template: template },
        every: '6h',
        webhook_secret: secret,
      }),
      201,
    );
    source = added.source;
    assert.equal(source.kind, 'git');
    assert.equal(source.every, '6h');
    assert.deepEqual(source.webhook, { path: `/hooks/sources/handbook/${source.id}`, secret_set: true });
    assert.ok(!JSON.stringify(added).includes(secret), 'the secret is never returned');
    assert.deepEqual(refreshCounts(source.last_refresh), { checked: 2, unchanged: 0, updated: 0, added: 2, removed: 0, failed: 0 });
    assert.ok(source.next_run_at !== null && Date.parse(source.next_run_at) > Date.now() + 5 * 3_600_000);
    const found = await search('deploy pipeline merge');
    assert.equal(found.results[0]?.origin, 'https://git.example/handbook/blob/main/docs/guide.md');
    assert.ok(Date.parse(found.results[0]?.as_of ?? '') > Date.now() - 60_000);
    assert.equal((await search('bootstrap script')).results[0]?.origin, 'https://git.example/handbook/blob/main/docs/install.md');
    assert.deepEqual(
      (await search('handbook repository')).results.filter((result) => result.origin.endsWith('README.md')),
      [],
    );
  });

  it('ingests only the changed blobs on refresh and removes the documents of deleted files', async () => {
    repository.commit('edit, add, delete', {
      'docs/guide.md': '# Guide\n\nThe deploy pipeline runs nightly at two o clock.',
      'docs/faq.md': '# FAQ\n\nQuarterly access reviews are run by the security team.',
      'docs/install.md': null,
    });
    const refreshed = await json<{ refreshes: SourceAnswer[] }>(service.post(`/api/sources/handbook/${source.id}/refresh`, {}));
    assert.deepEqual(refreshCounts(refreshed.refreshes[0]?.last_refresh), {
      checked: 2,
      unchanged: 0,
      updated: 1,
      added: 1,
      removed: 1,
      failed: 0,
    });
    assert.equal(refreshed.refreshes[0]?.last_refresh?.trigger, 'manual');
    assert.match((await search('deploy pipeline')).results[0]?.excerpt ?? '', /nightly/);
    assert.deepEqual((await search('bootstrap script')).results, []);

    const again = await json<{ refreshes: SourceAnswer[] }>(service.post('/api/sources/handbook/refresh', {}));
    assert.deepEqual(refreshCounts(again.refreshes[0]?.last_refresh), {
      checked: 2,
      unchanged: 2,
      updated: 0,
      added: 0,
      removed: 0,
      failed: 0,
    });
  });

  it('refreshes from a signed webhook in the background and refuses a forged one', async () => {
    repository.commit('webhook edit', { 'docs/faq.md': '# FAQ\n\nAccess reviews are now run every month by the platform team.' });
    const body = JSON.stringify({ ref: 'refs/heads/main', repository: { clone_url: repository.url } });
    const signature = (key: string) => `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
    const hook = (headers: Record<string, string>) =>
      service.app.inject({
        method: 'POST',
        url: source.webhook.path,
        payload: body,
        headers: { 'content-type': 'application/json', ...headers },
      });

    const forged = await hook({ 'x-hub-signature-256': signature('not-the-secret-at-all'), 'x-github-event': 'push' });
    assert.equal(forged.statusCode, 401, forged.body);
    const otherBranch = await service.app.inject({
      method: 'POST',
      url: source.webhook.path,
      payload: JSON.stringify({ ref: 'refs/heads/release' }),
      headers: { 'content-type': 'application/json', 'x-webhook-token': secret },
    });
    assert.deepEqual([otherBranch.statusCode, otherBranch.json().refreshing], [202, false]);

    const signed = await hook({ 'x-hub-signature-256': signature(secret), 'x-github-event': 'push' });
    assert.equal(signed.statusCode, 202, signed.body);
    assert.equal(signed.json().refreshing, true);
    let excerpt = '';
    const poll = setInterval(() => {
      void search('access reviews').then((found) => {
        excerpt = found.results[0]?.excerpt ?? '';
      });
    }, 100);
    try {
      await until(() => /every month/.test(excerpt), 'the pushed edit to be searchable', 60_000);
    } finally {
      clearInterval(poll);
    }
    assert.ok(!service.logs.some((line) => line.includes(secret)), 'the secret is never logged');
  });

  it('keeps the source and its last refresh across a restart, and deletes mirrors no source uses', async () => {
    await service.close();
    // Untouched for two hours: the source's own mirror, and one a deleted namespace's source left behind.
    const mirrors = join(service.storageRoot, '.git-mirrors');
    const mirrorsIn = async () => (await readdir(mirrors)).filter((name) => name.endsWith('.git'));
    const [used] = await mirrorsIn();
    assert.ok(used !== undefined, 'the source has its mirror');
    const orphan = join(mirrors, '0123456789abcdef01234567.git');
    await mkdir(join(orphan, 'objects'), { recursive: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    for (const directory of [orphan, join(mirrors, used)]) await utimes(directory, twoHoursAgo, twoHoursAgo);
    const restarted = await startService({
      storageRoot: service.storageRoot,
      apiKey: undefined,
      environment: { KNOWLEDGE_AGENT_SOURCE_CHECK_MS: '100' },
    });
    try {
      const listed = await json<{ sources: SourceAnswer[] }>(restarted.get('/api/sources/handbook'));
      assert.equal(listed.sources.length, 1);
      assert.equal(listed.sources[0]?.url, repository.url);
      assert.equal(listed.sources[0]?.last_refresh?.trigger, 'webhook');
      await until(() => !existsSync(orphan), 'the unused mirror is deleted');
      assert.deepEqual(await mirrorsIn(), [used], 'the mirror of the registered source stays');
    } finally {
      await restarted.close();
    }
  });
});
