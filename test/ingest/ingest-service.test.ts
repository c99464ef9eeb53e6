// The ingest service called directly over a temporary store with an in-memory embedding model: outcomes per source,
// progress events, updates and duplicates, a provider that is down or refuses, and a pruning crawl.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { KnowledgeError } from '../../src/errors.js';
import type { IngestProgress, IngestReport } from '../../src/ingest/ingest-service.js';
import type { IngestSource } from '../../src/ingest/ingest-source.js';
import { createFakeEmbeddingModel, type FakeEmbeddingModel } from '../support/fake-models.js';
import { startEndlessSite, type EndlessSite } from '../support/endless-site.js';
import { createServiceParts, textSource, type ServiceParts } from '../support/service-parts.js';
import { startStaticSite, type SitePage, type StaticSite } from '../support/static-site.js';
import { sanitizeNamespace } from '../../src/store/namespace-name.js';

const vacation = textSource(
  'Vacation Policy',
  '# Vacation Policy\n\nEmployees get twenty-five vacation days per year.\n\n## Carry-over\n\nUnused days expire in March.',
);
const expenses = textSource('Expense Reports', '# Expense Reports\n\nSubmit expense reports within thirty days.');

const providerDown = () => new KnowledgeError('embedding_failed', 'the embedding provider answered 503', { temporary: true });

describe('IngestService', () => {
  let embeddings: FakeEmbeddingModel;
  let parts: ServiceParts;
  const ingested: { report: IngestReport; seconds: number }[] = [];

  before(async () => {
    embeddings = createFakeEmbeddingModel();
    parts = await createServiceParts({ embeddings, ingest: { onIngested: (report, seconds) => ingested.push({ report, seconds }) } });
  });

  after(async () => {
    await parts.dispose();
  });

  it('saves each source with its chunks embedded, reports progress per source, and tells onIngested', async () => {
    const progress: IngestProgress[] = [];
    const callsBefore = embeddings.calls.length;
    const report = await parts.ingest.ingest(sanitizeNamespace('Hand book!'), [vacation, expenses], {
      onProgress: (event) => progress.push(event),
    });
    assert.equal(report.namespace, 'Handbook');
    assert.deepEqual(
      report.outcomes.map((outcome) => [outcome.index, outcome.source, outcome.status]),
      [
        [0, 'text', 'saved'],
        [1, 'text', 'saved'],
      ],
    );
    const [first] = report.outcomes;
    assert.ok(first?.status === 'saved');
    assert.equal(first.document.title, 'Vacation Policy');
    assert.equal(first.document.file, 'vacation-policy.md');
    assert.deepEqual(
      first.document.chunks.map((chunk) => chunk.headingPath.at(-1)),
      ['Vacation Policy', 'Carry-over'],
    );
    assert.equal(first.warning, undefined);
    // One call per source, each with the texts of its chunks, titled.
    const calls = embeddings.calls.slice(callsBefore);
    assert.deepEqual(calls.map((texts) => texts.length).sort(), [1, 2]);
    assert.ok(calls.flat().every((text) => /Vacation Policy|Expense Reports/.test(text)));
    const namespace = await parts.store.namespace(sanitizeNamespace('Handbook'));
    assert.equal(namespace.pendingChunkCount, 0);
    assert.equal(namespace.vectorCount, 3);

    assert.deepEqual(
      progress.map((event) => (event.type === 'document' ? [event.index, event.status, event.file, event.chunks] : event.type)).sort(),
      [
        [0, 'saved', 'vacation-policy.md', 2],
        [1, 'saved', 'expense-reports.md', 1],
      ],
    );
    assert.equal(ingested.at(-1)?.report, report);
    assert.ok((ingested.at(-1)?.seconds ?? -1) >= 0);
  });

  it('skips content already stored, and updates a source ingested again with new content, saying what it replaced', async () => {
    const progress: IngestProgress[] = [];
    const changed = textSource('Expense Reports', '# Expense Reports\n\nSubmit expense reports within fourteen days.');
    const report = await parts.ingest.ingest(sanitizeNamespace('Handbook'), [vacation, changed], {
      onProgress: (event) => progress.push(event),
    });
    const [skipped, updated] = report.outcomes;
    assert.equal(skipped?.status, 'skipped');
    assert.ok(updated?.status === 'updated');
    assert.equal(updated.document.file, 'expense-reports.md');
    assert.match(updated.replaced.file, /^expense-reports\.md$/);
    const namespace = await parts.store.namespace(sanitizeNamespace('Handbook'));
    assert.equal(namespace.documentCount, 2);
    assert.match((await namespace.documentBody('expense-reports.md')) ?? '', /fourteen days/);
    const updatedEvent = progress.find((event) => event.type === 'document' && event.status === 'updated');
    assert.deepEqual(updatedEvent?.type === 'document' ? updatedEvent.replaced?.file : undefined, 'expense-reports.md');
  });

  it('reports each failing source at its index with its code, and still stores the others', async () => {
    const progress: IngestProgress[] = [];
    const invalid = {
      kind: 'invalid' as const,
      label: 'sources[1]',
      error: new KnowledgeError('source_invalid', 'sources[1].value is required'),
    };
    const report = await parts.ingest.ingest(
      sanitizeNamespace('mixed'),
      [
        textSource('Kept', 'Kept text.'),
        invalid,
        textSource('Blank', '   \n\n  '),
        { kind: 'file', path: '/etc/hostname' },
        { kind: 'file', path: join(parts.root, 'missing.md') },
        { kind: 'file', path: 'relative.md' },
      ],
      { onProgress: (event) => progress.push(event) },
    );
    assert.deepEqual(
      report.outcomes.map((outcome) =>
        outcome.status === 'failed' ? [outcome.index, outcome.source, outcome.error.code] : [outcome.index, outcome.status],
      ),
      [
        [0, 'saved'],
        [1, 'sources[1]', 'source_invalid'],
        [2, 'text', 'document_empty'],
        [3, '/etc/hostname', 'file_not_allowed'],
        [4, join(parts.root, 'missing.md'), 'file_not_found'],
        [5, 'relative.md', 'source_invalid'],
      ],
    );
    assert.deepEqual(
      progress
        .filter((event) => event.type === 'failed')
        .map((event) => event.type === 'failed' && event.code)
        .sort(),
      ['document_empty', 'file_not_allowed', 'file_not_found', 'source_invalid', 'source_invalid'],
    );
    assert.deepEqual(parts.loggedErrors, []);
  });

  it('reads file sources inside the allowed roots, named by their path', async () => {
    const path = join(parts.root, 'runbook.md');
    await writeFile(path, '# Runbook\n\nRestart the worker with systemctl.\n');
    const report = await parts.ingest.ingest(sanitizeNamespace('files'), [{ kind: 'file', path }]);
    const [outcome] = report.outcomes;
    assert.ok(outcome?.status === 'saved');
    assert.equal(outcome.source, path);
    assert.equal(outcome.document.title, 'Runbook');
  });

  it('turns an unexpected error into internal_error for that source, and logs it', async () => {
    embeddings.failWith(new TypeError('a bug in the embedding adapter'));
    try {
      const report = await parts.ingest.ingest(sanitizeNamespace('bugs'), [textSource('Bug', 'Text that reaches the embedding.')]);
      const [outcome] = report.outcomes;
      assert.ok(outcome?.status === 'failed');
      assert.equal(outcome.error.code, 'internal_error');
      assert.doesNotMatch(outcome.error.message, /a bug/);
      assert.match(parts.loggedErrors.at(-1)?.message ?? '', /ingest of source 0 failed unexpectedly/);
    } finally {
      embeddings.failWith(undefined);
    }
  });
});

describe('IngestService with an embedding provider that fails', () => {
  let embeddings: FakeEmbeddingModel;
  let parts: ServiceParts;
  const warnings: string[] = [];

  before(async () => {
    embeddings = createFakeEmbeddingModel();
    // One source at a time, so which source finds the provider down first is known.
    parts = await createServiceParts({ embeddings, ingest: { concurrency: 1, warn: (message) => warnings.push(message) } });
  });

  after(async () => {
    await parts.dispose();
  });

  it('stores documents without vectors while the provider is down, asking it once per request, with a warning', async () => {
    embeddings.failWith(providerDown());
    const callsBefore = embeddings.calls.length;
    const report = await parts.ingest.ingest(sanitizeNamespace('down'), [vacation, expenses, textSource('Third', 'Third text.')]);
    embeddings.failWith(undefined);
    assert.deepEqual(
      report.outcomes.map((outcome) => outcome.status),
      ['saved', 'saved', 'saved'],
    );
    for (const outcome of report.outcomes) {
      assert.match(
        outcome.status === 'saved' ? (outcome.warning ?? '') : '',
        /^stored without embeddings: the embedding provider answered 503\. It is found by lexical search now/,
      );
    }
    assert.equal(embeddings.calls.length - callsBefore, 1);
    assert.equal(warnings.length, 1);
    assert.equal((await parts.store.namespace(sanitizeNamespace('down'))).pendingChunkCount, 4);
  });

  it('fails the sources when the provider refuses them (an error that would not pass), storing nothing', async () => {
    embeddings.failWith(new KnowledgeError('embedding_failed', 'the provider refused the key'));
    try {
      const report = await parts.ingest.ingest(sanitizeNamespace('refused'), [vacation, expenses]);
      assert.deepEqual(
        report.outcomes.map((outcome) => outcome.status === 'failed' && outcome.error.code),
        ['embedding_failed', 'embedding_failed'],
      );
      assert.equal(
        await parts.search
          .search(sanitizeNamespace('refused'), 'vacation', { mode: 'lexical', limit: 1 })
          .then((outcome) => outcome.namespaceExists),
        false,
      );
    } finally {
      embeddings.failWith(undefined);
    }
  });
});

describe('IngestService without an embedding model', () => {
  it('stores the documents for lexical search, their chunks waiting for vectors, without a warning', async () => {
    const parts = await createServiceParts({ embeddings: undefined });
    try {
      const report = await parts.ingest.ingest(sanitizeNamespace('plain'), [vacation]);
      const [outcome] = report.outcomes;
      assert.ok(outcome?.status === 'saved');
      assert.equal(outcome.warning, undefined);
      assert.equal((await parts.store.namespace(sanitizeNamespace('plain'))).pendingChunkCount, 2);
      assert.equal(
        (await parts.search.search(sanitizeNamespace('plain'), 'vacation days', { mode: 'lexical', limit: 1 })).hits[0]?.document.title,
        'Vacation Policy',
      );
    } finally {
      await parts.dispose();
    }
  });
});

describe('IngestService crawling a site', () => {
  const pages: Record<string, SitePage> = {};
  let site: StaticSite;
  let parts: ServiceParts;

  const page = (title: string, links: string[] = []) => ({
    body: `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>The ${title} page of the widget guide.</p>${links.map((link) => `<a href="${link}">${link}</a>`).join(' ')}</main></body></html>`,
  });
  const crawl = (prune: boolean) =>
    parts.ingest.ingest(sanitizeNamespace('site'), [
      { kind: 'url', url: `${site.url}/docs/index.html`, crawl: { maxPages: 10, maxDepth: 2, prune } },
    ]);
  const storedSources = async () =>
    (await parts.store.namespace(sanitizeNamespace('site'))).documents.map((document) => document.origin.replace(site.url, '')).sort();

  before(async () => {
    Object.assign(pages, {
      '/docs/index.html': page('Index', ['install.html', 'config.html']),
      '/docs/install.html': page('Install'),
      '/docs/config.html': page('Config'),
    });
    site = await startStaticSite(pages);
    parts = await createServiceParts({ embeddings: createFakeEmbeddingModel() });
  });

  after(async () => {
    await parts.dispose();
    await site.close();
  });

  it("ingests every page found, one outcome each, at the source's index", async () => {
    const report = await crawl(false);
    assert.deepEqual(
      report.outcomes.map((outcome) => [outcome.index, outcome.status]),
      [
        [0, 'saved'],
        [0, 'saved'],
        [0, 'saved'],
      ],
    );
    assert.deepEqual(await storedSources(), ['/docs/config.html', '/docs/index.html', '/docs/install.html']);
  });

  it('keeps pages that are gone after an incomplete crawl, and removes them after a complete one with prune', async () => {
    pages['/docs/index.html'] = page('Index', ['install.html', 'broken.html']);
    const incomplete = await crawl(true);
    assert.deepEqual(incomplete.removed, []);
    assert.ok(incomplete.outcomes.some((outcome) => outcome.status === 'failed' && outcome.source.endsWith('/docs/broken.html')));

    pages['/docs/index.html'] = page('Index', ['install.html']);
    const progress: IngestProgress[] = [];
    const complete = await parts.ingest.ingest(
      sanitizeNamespace('site'),
      [{ kind: 'url', url: `${site.url}/docs/index.html`, crawl: { maxPages: 10, maxDepth: 2, prune: true } }],
      { onProgress: (event) => progress.push(event) },
    );
    assert.deepEqual(
      complete.removed.map((document) => document.file),
      ['config.md'],
    );
    assert.deepEqual(
      progress.filter((event) => event.type === 'removed').map((event) => event.type === 'removed' && event.file),
      ['config.md'],
    );
    assert.deepEqual(await storedSources(), ['/docs/index.html', '/docs/install.html']);
  });
});

describe('IngestService: crawl budgets and stopping', () => {
  let sites: EndlessSite[];
  let parts: ServiceParts;
  const logged: string[] = [];

  before(async () => {
    sites = await Promise.all([startEndlessSite(), startEndlessSite()]);
    parts = await createServiceParts({
      embeddings: createFakeEmbeddingModel(),
      ingest: { maxCrawlPagesPerRequest: 60, info: (message) => logged.push(message) },
    });
  });

  after(async () => {
    await parts.dispose();
    await Promise.all(sites.map((site) => site.close()));
  });

  const crawlOf = (maxPages: number, site = sites[0] as EndlessSite): IngestSource => ({
    kind: 'url',
    url: site.startUrl,
    crawl: { maxPages, maxDepth: 10, prune: false },
  });
  const savedBy = (report: IngestReport, index: number) =>
    report.outcomes.filter((outcome) => outcome.index === index && outcome.status === 'saved').length;

  for (const maxPages of [1, 5, 10, 50]) {
    it(`stores exactly maxPages (${maxPages}) pages of a larger site, fetching no more`, async () => {
      const namespace = `exact${maxPages}`;
      const site = sites[0] as EndlessSite;
      const fetchedBefore = site.pageRequests().length;
      const report = await parts.ingest.ingest(sanitizeNamespace(namespace), [crawlOf(maxPages)]);
      assert.equal(savedBy(report, 0), maxPages);
      assert.equal((await parts.store.namespace(sanitizeNamespace(namespace))).documents.length, maxPages);
      assert.equal(site.pageRequests().length - fetchedBefore, maxPages);
    });
  }

  it("shares one page budget between a request's crawls", async () => {
    const [first, second] = sites as [EndlessSite, EndlessSite];
    const report = await parts.ingest.ingest(sanitizeNamespace('shared'), [crawlOf(40, first), crawlOf(40, second)]);
    const saved = [savedBy(report, 0), savedBy(report, 1)];
    assert.equal(saved[0]! + saved[1]!, 60, `saved per crawl: ${saved.join(', ')}`);
    assert.equal((await parts.store.namespace(sanitizeNamespace('shared'))).documents.length, 60);
    assert.ok(
      saved.every((count) => count > 0 && count <= 40),
      `saved per crawl: ${saved.join(', ')}`,
    );
  });

  it('stops when its signal aborts: no further fetch, what was stored stays, the log says what, and it rejects with the reason', async () => {
    const controller = new AbortController();
    const stored: string[] = [];
    const reason = new KnowledgeError('shutting_down', 'stopped by the test');
    const site = sites[0] as EndlessSite;
    const ingest = parts.ingest.ingest(sanitizeNamespace('stopped'), [crawlOf(50)], {
      signal: controller.signal,
      onProgress: (event) => {
        if (event.type === 'document') stored.push(event.file);
        if (stored.length === 3) controller.abort(reason);
      },
    });
    await assert.rejects(ingest, (error: unknown) => error === reason);
    const requestsAtStop = site.requests.length;
    await delay(100);
    assert.equal(site.requests.length, requestsAtStop, 'fetched after the stop');
    const documents = (await parts.store.namespace(sanitizeNamespace('stopped'))).documents.map((document) => document.file);
    assert.deepEqual(documents.sort(), [...stored].sort());
    assert.ok(
      logged.some((line) =>
        /^ingest into namespace "stopped" stopped \(shutting_down: stopped by the test\): 3 documents stored before the stop \(3 saved, 0 updated, 0 unchanged\); 1 of 1 source not finished$/.test(
          line,
        ),
      ),
      logged.join('\n'),
    );
  });
});
