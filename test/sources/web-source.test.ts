// Docs sites as registered sources, through HTTP: a crawl source and a sitemap source on a local site that changes
// between refreshes (edits, additions, deletions, 304s, failures); careful deletions; a schedule that survives a
// restart; the CLI's sources command.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../src/cli/cli-error.js';
import { sourcesCommand } from '../../src/cli/sources-command.js';
import { docsPageHtml, startChangingDocsSite, type ChangingDocsSite } from '../support/changing-docs-site.js';
import { startService, startServiceWithProvider, type TestService } from '../support/service.js';
import { json, refreshCounts, type SourceAnswer } from '../support/registered-sources.js';
import { until } from '../support/until.js';

const page = (title: string, text: string, links: readonly string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav>${links.map((link) => `<a href="${link}">${link}</a>`).join(' ')}</nav>` +
  `<main><h1>${title}</h1><p>${text}</p></main></body></html>`;

describe('docs sites as registered sources', () => {
  let service: TestService;
  let site: ChangingDocsSite;

  before(async () => {
    site = await startChangingDocsSite({
      '/docs/': page('Docs', 'Start here.', ['/docs/install.html', '/docs/config.html', '/docs/limits.html']),
      '/docs/install.html': page('Install', 'Run the installer with the quiet flag to skip prompts.'),
      '/docs/config.html': page('Config', 'The configuration file lives in the home folder.'),
      '/docs/limits.html': page('Limits', 'Uploads are capped at forty megabytes.'),
    });
    ({ service } = await startServiceWithProvider());
  });

  after(async () => {
    await service?.dispose();
    await site?.close();
  });

  const refresh = async (namespace: string) =>
    (await json<{ refreshes: SourceAnswer[] }>(service.post(`/api/sources/${namespace}/refresh`, {}))).refreshes[0]?.last_refresh;
  const search = (namespace: string, query: string) =>
    json<{ results: { origin: string; excerpt: string; as_of: string }[] }>(service.post('/api/tools/searchDocs', { namespace, query }));

  it('refreshes a crawl source at the cost of what changed: 304s, edits, additions, careful deletions', async () => {
    const added = await json<{ source: SourceAnswer }>(
      service.post('/tools/sources', { namespace: 'site', url: site.startUrl, crawl: { maxPages: 50, maxDepth: 2, prune: false } }),
      201,
    );
    assert.equal(added.source.kind, 'crawl');
    assert.deepEqual(refreshCounts(added.source.last_refresh), { checked: 4, unchanged: 0, updated: 0, added: 4, removed: 0, failed: 0 });

    site.resetCounts();
    assert.deepEqual(refreshCounts(await refresh('site')), { checked: 4, unchanged: 4, updated: 0, added: 0, removed: 0, failed: 0 });
    const docsPages = ['/docs/', '/docs/install.html', '/docs/config.html', '/docs/limits.html'].map((path) => site.counts(path));
    assert.deepEqual(
      docsPages.map((page) => [page.notModified, page.bodyBytes]),
      [
        [1, 0],
        [1, 0],
        [1, 0],
        [1, 0],
      ],
      'every page answered 304, no body sent again',
    );

    site.setPage('/docs/config.html', page('Config', 'The configuration file now lives in the project folder.'));
    site.setPage('/docs/', page('Docs', 'Start here.', ['/docs/install.html', '/docs/config.html', '/docs/limits.html', '/docs/faq.html']));
    site.setPage('/docs/faq.html', page('FAQ', 'Passwords rotate every ninety days.'));
    site.removePage('/docs/install.html', 404);
    site.failPage('/docs/limits.html', 503);
    const changed = await refresh('site');
    // The index's new link is in its navigation, which is not part of its text: its document is unchanged.
    assert.deepEqual(refreshCounts(changed), { checked: 5, unchanged: 1, updated: 1, added: 1, removed: 0, failed: 2 });
    assert.match(changed?.failed.find((failure) => failure.url.endsWith('install.html'))?.message ?? '', /removed if the next refresh/);
    assert.match((await search('site', 'configuration file')).results[0]?.excerpt ?? '', /project folder/);
    assert.equal((await search('site', 'quiet flag installer')).results.length > 0, true, 'gone once: kept');
    assert.equal((await search('site', 'forty megabytes')).results.length > 0, true, 'a 503 never removes');

    const gone = await refresh('site');
    assert.equal(gone?.removed, 1, 'gone twice in a row: removed');
    assert.deepEqual((await search('site', 'quiet flag installer')).results, []);
    assert.equal((await search('site', 'forty megabytes')).results.length > 0, true);
  });

  it('removes what a sitemap no longer lists, and skips unchanged lastmod without a request', async () => {
    site.recoverPage('/docs/limits.html');
    const added = await json<{ source: SourceAnswer }>(service.post('/api/sources/mapped', { url: site.sitemapUrl, every: '1d' }), 201);
    assert.equal(added.source.kind, 'sitemap');
    const listed = added.source.last_refresh?.added ?? 0;
    assert.ok(listed >= 4, `the sitemap's pages were ingested (${listed})`);

    site.resetCounts();
    const unchanged = await refresh('mapped');
    assert.equal(unchanged?.unchanged, unchanged?.checked);
    assert.equal(site.counts('/docs/config.html').requests, 0, 'an unchanged lastmod costs no request');

    site.removePage('/docs/faq.html', 410);
    const removed = await refresh('mapped');
    assert.equal(removed?.removed, 1);
    assert.deepEqual((await search('mapped', 'passwords rotate ninety days')).results, []);
  });

  it('lists, changes and removes sources; the as-of time follows the last refresh', async () => {
    const listed = await json<{ sources: SourceAnswer[] }>(service.get('/tools/sources?namespace=site'));
    assert.equal(listed.sources.length, 1);
    const [source] = listed.sources;
    const before = (await search('site', 'configuration file')).results[0]?.as_of ?? '';
    await refresh('site');
    const afterRefresh = (await search('site', 'configuration file')).results[0]?.as_of ?? '';
    assert.ok(afterRefresh > before, `as_of moved from ${before} to ${afterRefresh}`);
    const metrics = await (await service.get('/metrics')).text();
    assert.match(metrics, /^source_refreshes_total\{trigger="manual"\} [1-9]/m);
    assert.match(metrics, /^source_refresh_pages_total\{result="unchanged"\} [1-9]/m);

    const changed = await json<{ source: SourceAnswer & { every: string } }>(
      service.send('PATCH', `/api/sources/site/${source?.id}`, { every: '30m' }),
    );
    assert.equal(changed.source.every, '30m');
    assert.ok(changed.source.next_run_at !== null);
    const invalid = await service.send('PATCH', `/api/sources/site/${source?.id}`, { every: '30s' });
    assert.equal(invalid.status, 400);

    const removed = await json<{ removed_documents: number }>(
      service.send('DELETE', `/api/sources/site/${source?.id}?remove_documents=true`),
    );
    assert.ok(removed.removed_documents >= 3);
    assert.deepEqual((await search('site', 'configuration file')).results, []);
    assert.equal((await service.send('DELETE', `/api/sources/site/${source?.id}`)).status, 404);
  });

  it('runs a due schedule after a restart', async () => {
    const registry = join(service.storageRoot, 'mapped', '.sources', 'sources.json');
    await service.close();
    const sources = JSON.parse(await readFile(registry, 'utf8')) as SourceAnswer[];
    // The next run came while the service was down.
    await writeFile(
      registry,
      JSON.stringify(sources.map((source) => ({ ...source, nextRunAt: new Date(Date.now() - 1_000).toISOString() }))),
    );
    site.setPage('/docs/config.html', page('Config', 'The configuration file moved to the settings folder.'));
    site.resetCounts();
    const restarted = await startService({ storageRoot: service.storageRoot, environment: { KNOWLEDGE_AGENT_SOURCE_CHECK_MS: '100' } });
    try {
      let trigger: string | undefined;
      const poll = setInterval(() => {
        void json<{ sources: SourceAnswer[] }>(restarted.get('/api/sources/mapped')).then((listed) => {
          trigger = listed.sources[0]?.last_refresh?.trigger;
        });
      }, 100);
      try {
        await until(() => trigger === 'schedule', 'the scheduled refresh', 30_000);
      } finally {
        clearInterval(poll);
      }
      // Long enough for a second run of the same due refresh (claimed from a read made before the first finished) to
      // have read the sitemap and replaced the summary.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(site.counts('/sitemap.xml').requests, 1, 'the due run refreshed once');
      const listed = await json<{ sources: SourceAnswer[] }>(restarted.get('/api/sources/mapped'));
      assert.equal(listed.sources[0]?.last_refresh?.updated, 1);
      assert.ok(Date.parse(listed.sources[0]?.next_run_at ?? '') > Date.now() + 23 * 3_600_000, 'the next run is a day later');
    } finally {
      await restarted.close();
    }
  });

  it('is driven by the CLI: add, list, refresh and remove', async () => {
    // Listening: the sources command talks to the service over HTTP, as from a terminal.
    const restarted = await startService({ listen: true, storageRoot: service.storageRoot });
    const output: string[] = [];
    const stream = { write: (text: string) => output.push(text) > 0 } as unknown as NodeJS.WritableStream;
    const context = { stdout: stream, stderr: stream, env: { KNOWLEDGE_AGENT_URL: restarted.baseUrl }, cwd: process.cwd() };
    const runCli = (args: string[]) => sourcesCommand.run(args.slice(1), context);
    try {
      site.setPage('/docs/page-1.html', docsPageHtml(1, 1));
      const url = `${site.url}/docs/page-1.html`;
      assert.equal(await runCli(['sources', 'add', url, '--namespace', 'cli', '--every', '6h']), 0, output.join(''));
      assert.match(output.join(''), /1 checked, 0 unchanged, 0 updated, 1 added/);
      output.length = 0;
      assert.equal(await runCli(['sources', 'list', '--namespace', 'cli']), 0);
      assert.match(output.join(''), /every 6h/);
      output.length = 0;
      assert.equal(await runCli(['sources', 'refresh', '--namespace', 'cli', url]), 0);
      assert.match(output.join(''), /1 checked, 1 unchanged/);
      output.length = 0;
      await assert.rejects(runCli(['sources', 'add', url, '--namespace', 'cli', '--every', '10s']), UsageError);
      assert.equal(await runCli(['sources', 'remove', url, '--namespace', 'cli']), 0);
      output.length = 0;
      assert.equal(await runCli(['sources', 'list', '--namespace', 'cli']), 0);
      assert.match(output.join(''), /has no sources/);
    } finally {
      await restarted.close();
    }
  });
});
