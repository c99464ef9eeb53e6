// POST /tools/ingest through HTTP: text, real Markdown and PDF files, URLs, de-duplication, per-source errors, storage layout.
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readStoredIndex } from '../support/namespace-folder.js';
import type { ProviderDouble } from '../support/provider-double.js';
import { startStaticSite, type StaticSite } from '../support/static-site.js';
import { fixturesDirectory, startService, startServiceWithProvider, type TestService } from '../support/service.js';

interface IngestResponse {
  namespace: string;
  documents: { title: string; source: string; path: string; chunks: number; status: string }[];
  chunks_added: number;
  errors: { index: number; source: string; error: string; code: string }[];
}

describe('POST /tools/ingest', () => {
  let provider: ProviderDouble;
  let service: TestService;
  let site: StaticSite;
  let siteUrl: string;

  before(async () => {
    ({ provider, service } = await startServiceWithProvider());
    site = await startStaticSite({
      '/guide.html': {
        body: `<!doctype html><html><head><title>Deploy Guide</title><script>trackVisitor()</script></head><body>
          <nav><a href="/">Home</a> <a href="/pricing">Pricing menu entry</a></nav>
          <main><article><h1>Deploy Guide</h1>
          <p>To deploy the service, build the container image and push it to the registry. The deployment uses rolling updates so no request is lost.</p>
          <h2>Rollback</h2><p>Run the rollback command to return to the previous release. Rollbacks keep the database schema untouched.</p>
          <pre><code class="language-bash">deployctl rollback --to previous</code></pre></article></main>
          <footer>Copyright footer text</footer></body></html>`,
      },
      '/moved': { location: '/guide.html' },
    });
    siteUrl = site.url;
  });

  after(async () => {
    await service.dispose();
    await site.close();
  });

  async function ingest(body: unknown): Promise<IngestResponse> {
    const response = await service.post('/tools/ingest', body);
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as IngestResponse;
  }

  it('saves a text source as Markdown with front matter and records chunks and embeddings in the stored index', async () => {
    const result = await ingest({
      namespace: 'text-ns',
      sources: [{ type: 'text', value: '# Widgets\n\nWidgets are configured in widgets.yaml.', title: 'Widget Setup' }],
    });
    assert.equal(result.namespace, 'text-ns');
    assert.deepEqual(result.errors, []);
    assert.equal(result.documents.length, 1);
    const [document] = result.documents;
    assert.equal(document?.status, 'saved');
    assert.equal(document?.title, 'Widget Setup');
    assert.equal(document?.path, join(service.storageRoot, 'text-ns', 'widget-setup.md'));
    assert.equal(result.chunks_added, document?.chunks);

    const stored = await readFile(join(service.storageRoot, 'text-ns', 'widget-setup.md'), 'utf8');
    assert.match(
      stored,
      /^---\ntitle: "Widget Setup"\nsource: "text"\ncontent_hash: "sha256:[0-9a-f]{64}"\ningested_at: "\d{4}-\d\d-\d\dT[^"]+"\n---\n\n# Widgets/,
    );
    const index = await readStoredIndex(join(service.storageRoot, 'text-ns'));
    assert.equal(index.embedding?.dimensions, provider.embeddingDimensions);
    const [indexed] = index.documents;
    assert.equal(indexed?.chunks.length, document?.chunks);
    for (const chunk of indexed?.chunks ?? []) assert.equal(index.vectorOf(chunk.id)?.length, provider.embeddingDimensions);
  });

  it('skips content whose hash is already stored, without embedding it again', async () => {
    const source = { type: 'text', value: 'Tokens rotate every ninety days.', title: 'Rotation' };
    const first = await ingest({ namespace: 'dedupe', sources: [source] });
    const embeddingsBefore = provider.embeddingRequests().length;
    const second = await ingest({ namespace: 'dedupe', sources: [{ ...source, title: 'Another title' }] });
    assert.equal(first.documents[0]?.status, 'saved');
    assert.equal(second.documents[0]?.status, 'skipped');
    assert.equal(second.chunks_added, 0);
    assert.equal(provider.embeddingRequests().length, embeddingsBefore);
    const files = (await readdir(join(service.storageRoot, 'dedupe'))).filter((file) => file.endsWith('.md'));
    assert.deepEqual(files, ['rotation.md']);
  });

  it('gives documents of different sources with the same title unique file names', async () => {
    const result = await ingest({
      namespace: 'slugs',
      sources: [
        { type: 'url', value: `${siteUrl}/guide.html`, title: 'Same Title' },
        { type: 'text', value: 'second body', title: 'Same Title' },
      ],
    });
    const files = result.documents.map((document) => document.path.split('/').pop());
    assert.deepEqual(new Set(files), new Set(['same-title.md', 'same-title-2.md']));
    assert.deepEqual(
      result.documents.map((document) => document.status),
      ['saved', 'saved'],
    );
  });

  it('ingests a real Markdown page and a real PDF manual from files', async () => {
    const markdownPath = join(fixturesDirectory, 'docs-fastapi', 'tutorial', 'query-params.md');
    const pdfPath = join(fixturesDirectory, 'pdfs', 'R-data-import-export-4.2.2.pdf');
    const result = await ingest({
      namespace: 'files',
      sources: [
        { type: 'file', path: markdownPath },
        { type: 'file', path: pdfPath },
      ],
    });
    assert.deepEqual(result.errors, []);
    const [markdown, pdf] = result.documents;
    assert.equal(markdown?.status, 'saved');
    assert.match(markdown?.title ?? '', /Query Parameters/i);
    assert.ok((markdown?.chunks ?? 0) >= 3, `query-params.md gave ${markdown?.chunks} chunks`);
    assert.equal(pdf?.status, 'saved');
    assert.ok((pdf?.chunks ?? 0) > 30, `the PDF gave ${pdf?.chunks} chunks`);
    const pdfMarkdown = await readFile(pdf?.path ?? '', 'utf8');
    assert.match(pdfMarkdown, /^#{1,3} .*Spreadsheet/im, 'a chapter heading of the manual is a Markdown heading');
  });

  it('converts an HTML page fetched from a URL (following a redirect) to Markdown of its main content', async () => {
    const result = await ingest({ namespace: 'web', sources: [{ type: 'url', value: `${siteUrl}/moved` }] });
    assert.deepEqual(result.errors, []);
    assert.equal(result.documents[0]?.title, 'Deploy Guide');
    assert.equal(result.documents[0]?.source, `${siteUrl}/moved`);
    const stored = await readFile(result.documents[0]?.path ?? '', 'utf8');
    assert.match(stored, /# Deploy Guide/);
    assert.match(stored, /## Rollback/);
    assert.match(stored, /```bash\ndeployctl rollback --to previous\n```/);
    assert.doesNotMatch(stored, /Pricing menu entry|trackVisitor|Copyright footer/);
  });

  it('reports each bad source with its index and reason while saving the good ones', async () => {
    const result = await ingest({
      namespace: 'mixed',
      sources: [
        { type: 'text', value: 'A good source about caching layers.', title: 'Caching' },
        { type: 'file', path: '/etc/passwd' },
        { type: 'file', path: join(fixturesDirectory, 'no-such-file.md') },
        { type: 'url', value: `${siteUrl}/missing` },
        { type: 'url', value: 'ftp://example.com/file.txt' },
        { type: 'text' },
        { type: 'video', value: 'x' },
        { type: 'file', path: join(fixturesDirectory, 'msmarco-trecdl-5k', 'qrels.tsv') },
        { type: 'text', value: 'x'.repeat(200_001) },
        { type: 'text', value: '   \n  ' },
      ],
    });
    assert.deepEqual(
      result.documents.map((document) => document.title),
      ['Caching'],
    );
    const codes = Object.fromEntries(result.errors.map((error) => [error.index, error.code]));
    assert.deepEqual(codes, {
      1: 'file_not_allowed',
      2: 'file_not_found',
      3: 'fetch_failed',
      4: 'url_not_allowed',
      5: 'source_invalid',
      6: 'source_invalid',
      7: 'unsupported_file_type',
      8: 'source_too_large',
      9: 'document_empty',
    });
    for (const error of result.errors) assert.ok(error.error.length > 10, `a human-readable reason for source ${error.index}`);
    assert.match(result.errors.find((error) => error.index === 3)?.error ?? '', /404/);
  });

  it('refuses loopback URLs when private URLs are not allowed', async () => {
    const strict = await startService({ providerUrl: provider.baseUrl, environment: { KNOWLEDGE_AGENT_ALLOW_PRIVATE_URLS: 'false' } });
    try {
      const response = await strict.post('/tools/ingest', {
        sources: [
          { type: 'url', value: `${siteUrl}/guide.html` },
          { type: 'url', value: 'http://169.254.169.254/latest/meta-data/' },
        ],
      });
      const result = (await response.json()) as IngestResponse;
      assert.deepEqual(
        result.errors.map((error) => error.code),
        ['url_not_allowed', 'url_not_allowed'],
      );
    } finally {
      await strict.dispose();
    }
  });

  it('answers 400 naming the field for a body that is not valid at all', async () => {
    for (const [body, field] of [
      [{}, 'sources'],
      [{ sources: 'not-a-list' }, 'sources'],
      [{ sources: [] }, 'sources'],
      [{ namespace: 42, sources: [{ type: 'text', value: 'x' }] }, 'namespace'],
    ] as const) {
      const response = await service.post('/tools/ingest', body);
      assert.equal(response.status, 400);
      const error = (await response.json()) as { error: { code: string; message: string } };
      assert.equal(error.error.code, 'invalid_request');
      assert.match(error.error.message, new RegExp(`^${field}`));
    }
    const broken = await service.request('/tools/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"sources": [',
    });
    assert.equal(broken.status, 400);
    assert.equal(((await broken.json()) as { error: { code: string } }).error.code, 'invalid_request');
  });

  it('sanitizes namespaces so they stay inside the storage root, and refuses empty ones', async () => {
    const result = await ingest({
      namespace: '../../etc/evil ns!',
      sources: [{ type: 'text', value: 'sanitized namespace body', title: 'Sanitized' }],
    });
    assert.equal(result.namespace, 'etcevilns');
    assert.equal(result.documents[0]?.path, join(service.storageRoot, 'etcevilns', 'sanitized.md'));
    const response = await service.post('/tools/ingest', { namespace: '../..', sources: [{ type: 'text', value: 'x' }] });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'invalid_namespace');
  });

  it('refuses namespaces with more than 64 characters left after sanitizing instead of cutting them short', async () => {
    const refusal = async (response: Promise<Response>) => {
      const answer = await response;
      const body = (await answer.json()) as { error: { code: string; message: string } };
      return [answer.status, body.error.code, body.error.message.split(':')[0]];
    };
    // Two names that share their first 64 characters once stood for one namespace.
    const shared = 'team-'.repeat(13);
    for (const namespace of [`${shared}alpha`, `${shared}beta`, 'x'.repeat(200)]) {
      const sources = [{ type: 'text', value: 'long namespace body', title: 'Long' }];
      assert.deepEqual(await refusal(service.post('/tools/ingest', { namespace, sources })), [400, 'invalid_namespace', 'namespace']);
      assert.deepEqual(await refusal(service.post('/api/tools/ingest', { namespace, sources: ['text'] })), [
        400,
        'invalid_namespace',
        'namespace',
      ]);
      assert.deepEqual(await refusal(service.post('/tools/search', { namespace, query: 'long' })), [400, 'invalid_namespace', 'namespace']);
      assert.deepEqual(await refusal(service.request(`/tools/namespaces/${namespace}`, { method: 'DELETE' })), [
        400,
        'invalid_namespace',
        'name',
      ]);
    }
    assert.deepEqual(await refusal(service.post('/tools/search', { namespace: 'x'.repeat(201), query: 'long' })), [
      400,
      'invalid_request',
      'namespace',
    ]);
    // 64 characters are fine, and punctuation around them does not count.
    const longest = 'n'.repeat(64);
    assert.equal(
      (await ingest({ namespace: `/${longest}/`, sources: [{ type: 'text', value: 'at the limit', title: 'Limit' }] })).namespace,
      longest,
    );
    assert.deepEqual(
      (await readdir(service.storageRoot)).filter((name) => name.startsWith('team-') || name.startsWith('xxx')),
      [],
    );
  });

  it('loses nothing when many ingests into one namespace run at once', async () => {
    const count = 30;
    const results = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        ingest({
          namespace: 'busy',
          sources: [{ type: 'text', value: `Concurrent document number ${index} about topic ${index}.`, title: `Doc ${index}` }],
        }),
      ),
    );
    assert.ok(results.every((result) => result.documents[0]?.status === 'saved'));
    assert.equal((await readStoredIndex(join(service.storageRoot, 'busy'))).documents.length, count);
    const files = (await readdir(join(service.storageRoot, 'busy'))).filter((file) => file.endsWith('.md'));
    assert.equal(files.length, count);
  });

  it('retries only the failed embedding batch and saves the document', async () => {
    const sections = Array.from(
      { length: 90 },
      (_, index) => `## Section ${index}\n\n${`Paragraph ${index} explains retry behaviour in depth. `.repeat(20)}`,
    ).join('\n\n');
    provider.failEmbeddings(1, 500);
    const before = provider.embeddingRequests().length;
    const result = await ingest({ namespace: 'retry', sources: [{ type: 'text', value: sections, title: 'Long' }] });
    assert.deepEqual(result.errors, []);
    assert.ok((result.documents[0]?.chunks ?? 0) > 64, 'enough chunks for two batches');
    const requests = provider.embeddingRequests().slice(before);
    const inputs = requests.map((request) => JSON.stringify(request.body.input));
    assert.equal(requests.length, 3, 'two batches plus one retry');
    assert.equal(new Set(inputs).size, 2, 'the retry resent one batch, not everything');
  });

  it('reports an embedding the provider refuses per source and writes nothing for it', async () => {
    // A refusal (4xx) would fail again every time; a provider that is down is test/http/provider-down.test.ts.
    provider.failEmbeddings(1, 400);
    const result = await ingest({
      namespace: 'failing',
      sources: [{ type: 'text', value: 'This will not embed.', title: 'Unembeddable' }],
    });
    assert.equal(result.documents.length, 0);
    assert.equal(result.errors[0]?.code, 'embedding_failed');
    const files = await readdir(join(service.storageRoot, 'failing')).catch(() => []);
    assert.ok(!files.some((file) => file.endsWith('.md')));
  });

  it('creates no namespace when every source fails', async () => {
    const result = await ingest({
      namespace: 'never-made',
      sources: [{ type: 'file', path: join(service.storageRoot, 'missing.md') }, { type: 'text' }],
    });
    assert.deepEqual(
      result.errors.map((error) => error.code),
      ['file_not_found', 'source_invalid'],
    );
    assert.ok(!(await readdir(service.storageRoot)).includes('never-made'), 'no folder');
    const health = (await (await service.get('/health')).json()) as { namespaces: string[] };
    assert.ok(!health.namespaces.includes('never-made'), '/health does not list it');
    const listed = (await (await service.get('/tools/namespaces')).json()) as { namespaces: { name: string }[] };
    assert.ok(!listed.namespaces.some((namespace) => namespace.name === 'never-made'), '/tools/namespaces does not list it');
    assert.equal((await service.get('/tools/documents?namespace=never-made')).status, 404);
  });
});

describe('a .md file placed in a namespace folder by hand', () => {
  it('is found by /tools/search once embedded, and survives a restart', async () => {
    const { provider, service } = await startServiceWithProvider();
    try {
      await service.post('/tools/ingest', {
        namespace: 'hand',
        sources: [{ type: 'text', value: 'Unrelated content about gardening.', title: 'Garden' }],
      });
      await writeFile(join(service.storageRoot, 'hand', 'handmade.md'), '# Handmade Notes\n\nThe flux capacitor needs 1.21 gigawatts.\n');
      await service.close();
      const restarted = await startService({ providerUrl: provider.baseUrl, storageRoot: service.storageRoot });
      try {
        const response = await restarted.post('/tools/search', { namespace: 'hand', query: 'flux capacitor gigawatts' });
        const result = (await response.json()) as { matches: { title: string; source: string }[] };
        assert.equal(result.matches[0]?.title, 'Handmade Notes');
        assert.equal(result.matches[0]?.source, join(service.storageRoot, 'hand', 'handmade.md'));
      } finally {
        await restarted.close();
      }
    } finally {
      await service.dispose();
    }
  });
});
