// Crawling a whole doc site through HTTP: same-origin links under the start folder, robots.txt, progress as NDJSON,
// re-crawls that update changed pages and (when asked) remove pages that disappeared.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServiceWithProvider, type TestService } from '../support/service.js';
import { startStaticSite, type SitePage, type StaticSite } from '../support/static-site.js';

function page(title: string, body: string, links: string[] = []): SitePage {
  return {
    body: `<!doctype html><html><head><title>${title}</title></head><body><nav>${links.map((link) => `<a href="${link}">${link}</a>`).join(' ')}</nav>
      <main><article><h1>${title}</h1><p>${body}</p></article></main></body></html>`,
  };
}

describe('crawling a doc site', () => {
  let service: TestService;
  let site: StaticSite;
  const pages: Record<string, SitePage> = {};

  before(async () => {
    ({ service } = await startServiceWithProvider());
    Object.assign(pages, {
      '/robots.txt': { contentType: 'text/plain', body: 'User-agent: *\nDisallow: /docs/private/\n' },
      '/docs/index.html': page('Docs Home', 'Welcome to the widget documentation.', [
        'install.html',
        'config.html',
        'private/secret.html',
        '/blog/post.html',
        'https://example.com/elsewhere',
      ]),
      '/docs/install.html': page('Install', 'Install widgets with the installer wizard.', ['index.html', 'config.html#options']),
      '/docs/config.html': page('Config', 'Configure widgets in widgets.toml.', ['deep/level.html']),
      '/docs/deep/level.html': page('Deep Level', 'A page two hops away.'),
      '/docs/private/secret.html': page('Secret', 'Never crawled.'),
      '/blog/post.html': page('Blog', 'Outside the docs folder.'),
    });
    site = await startStaticSite(pages);
  });

  after(async () => {
    await service.dispose();
    await site.close();
  });

  it('ingests the same-origin pages under the start folder, honouring robots.txt and the depth limit', async () => {
    const response = await service.post('/tools/ingest', {
      namespace: 'site',
      sources: [{ type: 'url', value: `${site.url}/docs/index.html`, crawl: { maxPages: 20, maxDepth: 1 } }],
    });
    assert.equal(response.status, 200);
    const result = (await response.json()) as { documents: { title: string; source: string; status: string }[]; errors: unknown[] };
    assert.deepEqual(result.documents.map((document) => document.title).sort(), ['Config', 'Docs Home', 'Install']);
    assert.ok(result.documents.every((document) => document.status === 'saved'));
    assert.ok(!site.requests.includes('/docs/private/secret.html'), 'robots.txt disallows it');
    assert.ok(!site.requests.includes('/blog/post.html'), 'outside the start folder');
    assert.ok(!site.requests.includes('/docs/deep/level.html'), 'beyond maxDepth 1');
    assert.equal(site.requests.filter((path) => path === '/docs/install.html').length, 1, 'each page fetched once');
  });

  it('streams progress as NDJSON when asked, ending with the usual response', async () => {
    const response = await service.request('/api/tools/ingest?progress=ndjson', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        namespace: 'site',
        sources: [{ type: 'url', value: `${site.url}/docs/index.html`, crawl: { maxPages: 20, maxDepth: 2 } }],
      }),
    });
    assert.match(response.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            type: string;
            status?: string;
            file?: string;
            reason?: string;
            result?: { saved: number; skipped: number };
          },
      );
    const documents = lines.filter((line) => line.type === 'document');
    assert.deepEqual(documents.map((line) => line.status).sort(), ['saved', 'skipped', 'skipped', 'skipped']);
    assert.equal(documents.find((line) => line.status === 'saved')?.file, 'deep-level.md');
    assert.ok(lines.some((line) => line.type === 'skipped' && /robots/i.test(line.reason ?? '')));
    const last = lines.at(-1);
    assert.equal(last?.type, 'result');
    assert.deepEqual([last?.result?.saved, last?.result?.skipped], [1, 3]);
  });

  it('re-crawls: changed pages are updated, and with prune the pages no longer reachable are removed', async () => {
    pages['/docs/config.html'] = page('Config', 'Configure widgets in widgets.yaml now.', []);
    const response = await service.post('/tools/ingest', {
      namespace: 'site',
      sources: [{ type: 'url', value: `${site.url}/docs/index.html`, crawl: { maxPages: 20, maxDepth: 3, prune: true } }],
    });
    const result = (await response.json()) as { documents: { title: string; status: string }[]; removed?: { title: string }[] };
    const statusOf = Object.fromEntries(result.documents.map((document) => [document.title, document.status]));
    assert.deepEqual(statusOf, { 'Docs Home': 'skipped', Install: 'skipped', Config: 'updated' });
    assert.deepEqual(
      result.removed?.map((document) => document.title),
      ['Deep Level'],
      'no longer linked from the site',
    );
    const search = (await (await service.post('/api/tools/searchDocs', { namespace: 'site', query: 'widgets.yaml' })).json()) as {
      results: { file: string }[];
    };
    assert.equal(search.results[0]?.file, 'config.md');
    const deep = (await (await service.post('/api/tools/searchDocs', { namespace: 'site', query: 'two hops away' })).json()) as {
      results: unknown[];
    };
    assert.deepEqual(deep.results, []);
  });

  it('refuses crawl limits out of range', async () => {
    const response = await service.post('/tools/ingest', {
      namespace: 'site',
      sources: [{ type: 'url', value: `${site.url}/docs/index.html`, crawl: { maxPages: 5000 } }],
    });
    const result = (await response.json()) as { errors: { code: string; error: string }[] };
    assert.equal(result.errors[0]?.code, 'source_invalid');
    assert.match(result.errors[0]?.error ?? '', /crawl\.maxPages/);
  });
});

describe('pruning safety', () => {
  it('removes nothing when the start page cannot be fetched, and reports a bad start URL per source', async () => {
    const { service } = await startServiceWithProvider();
    const site = await startStaticSite({ '/docs/index.html': page('Home', 'home page', ['a.html']), '/docs/a.html': page('A', 'page a') });
    try {
      const crawl = (prune: boolean) =>
        service.post('/tools/ingest', {
          namespace: 'safe',
          sources: [{ type: 'url', value: `${site.url}/docs/index.html`, crawl: { prune } }],
        });
      assert.equal(((await (await crawl(false)).json()) as { documents: unknown[] }).documents.length, 2);
      await site.close();
      const down = (await (await crawl(true)).json()) as { errors: { code: string }[]; removed?: unknown[] };
      assert.equal(down.errors[0]?.code, 'fetch_failed');
      assert.equal(down.removed, undefined);
      const listed = (await (await service.get('/tools/documents?namespace=safe')).json()) as { documents: unknown[] };
      assert.equal(listed.documents.length, 2, 'the site being down deleted nothing');
      const invalid = await service.post('/tools/ingest', {
        namespace: 'safe',
        sources: [{ type: 'url', value: 'http://', crawl: { prune: true } }],
      });
      assert.equal(invalid.status, 200);
      assert.equal(((await invalid.json()) as { errors: { code: string }[] }).errors.length, 1);
    } finally {
      await service.dispose();
    }
  });
});
