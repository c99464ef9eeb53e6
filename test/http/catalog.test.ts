// Keeping docs current through HTTP: upsert by source, listing namespaces and documents, deleting documents and namespaces.
import assert from 'node:assert/strict';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { indexedFiles, readStoredIndex } from '../support/namespace-folder.js';
import { startService, startServiceWithProvider, type TestService } from '../support/service.js';
import { startStaticSite, type SitePage, type StaticSite } from '../support/static-site.js';

interface SearchDocsResponse {
  results: { file: string; excerpt: string }[];
}

describe('upsert, listing and deleting', () => {
  let service: TestService;
  let site: StaticSite;
  const pages: Record<string, SitePage> = {};

  before(async () => {
    ({ service } = await startServiceWithProvider());
    site = await startStaticSite(pages);
  });

  after(async () => {
    await service.dispose();
    await site.close();
  });

  async function json<T>(response: Response | Promise<Response>, status = 200): Promise<T> {
    const resolved = await response;
    assert.equal(resolved.status, status, await resolved.clone().text());
    return (await resolved.json()) as T;
  }

  const search = (namespace: string, query: string) =>
    json<SearchDocsResponse>(service.post('/api/tools/searchDocs', { namespace, query }));

  it('replaces a text source with the same title in place, and skips unchanged content', async () => {
    const ingest = (value: string) =>
      json<{ documents: { status: string; path: string; chunks: number }[]; chunks_added: number }>(
        service.post('/tools/ingest', { namespace: 'current', sources: [{ type: 'text', title: 'Leave Policy', value }] }),
      );
    const first = await ingest('# Leave Policy\n\nEmployees get twenty days of leave.');
    const second = await ingest('# Leave Policy\n\nEmployees get thirty days of leave.');
    const third = await ingest('# Leave Policy\n\nEmployees get thirty days of leave.');
    assert.deepEqual(
      [first.documents[0]?.status, second.documents[0]?.status, third.documents[0]?.status],
      ['saved', 'updated', 'skipped'],
    );
    assert.equal(second.documents[0]?.path, first.documents[0]?.path, 'the file name (citation label) stays');
    assert.equal(second.chunks_added, second.documents[0]?.chunks);
    assert.match(await readFile(second.documents[0]?.path ?? '', 'utf8'), /thirty days/);
    assert.deepEqual((await search('current', 'twenty')).results, [], 'no stale chunk of the old version');
    assert.equal((await search('current', 'thirty')).results[0]?.file, 'leave-policy.md');
    assert.equal((await readStoredIndex(join(service.storageRoot, 'current'))).documents.length, 1);
    const vectorSearch = await json<{ matches: { preview: string }[] }>(
      service.post('/tools/search', { namespace: 'current', query: 'days of leave' }),
    );
    assert.equal(vectorSearch.matches.length, 1);
    assert.match(vectorSearch.matches[0]?.preview ?? '', /thirty/);
  });

  it('updates a re-ingested URL whose page changed, counting it as updated in Variant 2', async () => {
    pages['/guide.html'] = {
      body: '<html><head><title>Guide</title></head><body><main><h1>Guide</h1><p>Version one of the guide explains setup.</p></main></body></html>',
    };
    const url = `${site.url}/guide.html`;
    const ingest = () =>
      json<{
        saved: number;
        updated: number;
        skipped: number;
        files: { file: string; status: string; source: string; replaced?: { file: string; source: string } }[];
      }>(service.post('/api/tools/ingest', { namespace: 'web', sources: [url] }));
    assert.deepEqual((await ingest()).files, [{ file: 'guide.md', status: 'saved', source: url }]);
    pages['/guide.html'] = {
      body: '<html><head><title>Guide</title></head><body><main><h1>Guide</h1><p>Version two of the guide explains upgrades.</p></main></body></html>',
    };
    const updated = await ingest();
    assert.deepEqual([updated.saved, updated.updated, updated.skipped], [0, 1, 0]);
    // The replacement is named: the version of the same URL it replaced.
    assert.deepEqual(
      updated.files.map(({ file, status, source, replaced }) => ({
        file,
        status,
        source,
        replaced: replaced && { file: replaced.file, source: replaced.source },
      })),
      [{ file: 'guide.md', status: 'updated', source: url, replaced: { file: 'guide.md', source: url } }],
    );
    assert.deepEqual((await ingest()).files, [{ file: 'guide.md', status: 'skipped', source: url }]);
    assert.equal((await search('web', 'upgrades')).results[0]?.file, 'guide.md');
    assert.deepEqual((await search('web', 'setup')).results, []);
  });

  it('lists namespaces with counts and model, and the documents of one', async () => {
    await service.post('/tools/ingest', {
      namespace: 'listing',
      sources: [
        { type: 'text', title: 'Alpha', value: 'alpha text' },
        { type: 'text', title: 'Beta', value: 'beta text' },
      ],
    });
    for (const prefix of ['/tools', '/api']) {
      const listed = await json<{ namespaces: { name: string; documents: number; chunks: number; embedding_model: string | null }[] }>(
        service.get(`${prefix}/namespaces`),
      );
      assert.deepEqual(
        listed.namespaces.find((namespace) => namespace.name === 'listing'),
        { name: 'listing', documents: 2, chunks: 2, embedding_model: 'text-embedding-3-small' },
      );
      const documents = await json<{
        namespace: string;
        documents: { title: string; source: string; file: string; chunks: number; hash: string; ingested_at: string }[];
      }>(service.get(`${prefix}/documents?namespace=listing`));
      assert.deepEqual(
        documents.documents.map((document) => [document.file, document.title, document.source, document.chunks]),
        [
          ['alpha.md', 'Alpha', 'text', 1],
          ['beta.md', 'Beta', 'text', 1],
        ],
      );
      assert.match(documents.documents[0]?.hash ?? '', /^sha256:[0-9a-f]{64}$/);
      assert.ok(!Number.isNaN(Date.parse(documents.documents[0]?.ingested_at ?? '')));
    }
    await json(service.get('/tools/documents?namespace=no-such-namespace'), 404);
  });

  it('deletes a document by file or by source: its file, chunks and vectors go at once', async () => {
    pages['/remove-me.html'] = { body: '<html><body><main><h1>Remove Me</h1><p>Ephemeral zebra content.</p></main></body></html>' };
    await service.post('/tools/ingest', {
      namespace: 'deleting',
      sources: [
        { type: 'text', title: 'Keep', value: 'keep this zebra note' },
        { type: 'text', title: 'Drop', value: 'drop this zebra note' },
        { type: 'url', value: `${site.url}/remove-me.html` },
      ],
    });
    const byFile = await json<{ deleted: { file: string }[] }>(
      service.request('/tools/documents', {
        method: 'DELETE',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ namespace: 'deleting', file: 'drop.md' }),
      }),
    );
    assert.deepEqual(
      byFile.deleted.map((document) => document.file),
      ['drop.md'],
    );
    const bySource = await json<{ deleted: { file: string }[] }>(
      service.request(`/api/documents?namespace=deleting&source=${encodeURIComponent(`${site.url}/remove-me.html`)}`, {
        method: 'DELETE',
      }),
    );
    assert.deepEqual(
      bySource.deleted.map((document) => document.file),
      ['remove-me.md'],
    );
    assert.deepEqual(
      (await readdir(join(service.storageRoot, 'deleting'))).filter((file) => file.endsWith('.md')),
      ['keep.md'],
    );
    assert.deepEqual(
      (await search('deleting', 'zebra')).results.map((result) => result.file),
      ['keep.md'],
    );
    const vectors = await json<{ matches: { title: string }[] }>(
      service.post('/tools/search', { namespace: 'deleting', query: 'zebra note', top_k: 10 }),
    );
    assert.deepEqual(
      vectors.matches.map((match) => match.title),
      ['Keep'],
    );
    assert.deepEqual(indexedFiles(await readStoredIndex(join(service.storageRoot, 'deleting'))), ['keep.md']);
  });

  it('answers 404 when nothing matches and 400 without exactly one of file and source', async () => {
    const remove = (body: unknown) =>
      service.request('/tools/documents', {
        method: 'DELETE',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await service.post('/tools/ingest', { namespace: 'strict', sources: [{ type: 'text', title: 'Only', value: 'only document' }] });
    assert.equal(
      (await json<{ error: { code: string } }>(remove({ namespace: 'strict', file: 'missing.md' }), 404)).error.code,
      'not_found',
    );
    assert.equal((await json<{ error: { code: string } }>(remove({ namespace: 'strict' }), 400)).error.code, 'invalid_request');
    assert.equal(
      (await json<{ error: { code: string } }>(remove({ namespace: 'strict', file: 'only.md', source: 'text' }), 400)).error.code,
      'invalid_request',
    );
  });

  it('deletes a whole namespace', async () => {
    await service.post('/tools/ingest', { namespace: 'doomed', sources: [{ type: 'text', title: 'Gone', value: 'soon gone' }] });
    assert.deepEqual(await json(service.request('/api/namespaces/doomed', { method: 'DELETE' })), {
      namespace: 'doomed',
      deleted: true,
    });
    await assert.rejects(stat(join(service.storageRoot, 'doomed')), { code: 'ENOENT' });
    const listed = await json<{ namespaces: { name: string }[] }>(service.get('/tools/namespaces'));
    assert.ok(!listed.namespaces.some((namespace) => namespace.name === 'doomed'));
    assert.deepEqual((await search('doomed', 'gone')).results, []);
    await json(service.request('/tools/namespaces/doomed', { method: 'DELETE' }), 404);
    // The name can be used again from scratch.
    const again = await json<{ documents: { status: string }[] }>(
      service.post('/tools/ingest', { namespace: 'doomed', sources: [{ type: 'text', title: 'Gone', value: 'soon gone' }] }),
    );
    assert.equal(again.documents[0]?.status, 'saved');
  });
});

describe('catalog routes and tokens', () => {
  it('needs write tokens to delete and read tokens to list, and lists only readable namespaces', async () => {
    const service = await startService({
      apiKey: undefined,
      environment: {
        KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:alpha',
        KNOWLEDGE_AGENT_READ_TOKENS: 'reader-token-for-tests:alpha',
      },
    });
    try {
      const written = await service.post(
        '/tools/ingest',
        {
          namespace: 'alpha',
          sources: [
            { type: 'text', title: 'A', value: 'a' },
            { type: 'text', title: 'B', value: 'b' },
          ],
        },
        { authorization: 'Bearer writer-token-for-tests' },
      );
      assert.equal(written.status, 200);
      const admin = await startService({ apiKey: undefined, storageRoot: service.storageRoot });
      await admin.post('/tools/ingest', { namespace: 'beta', sources: [{ type: 'text', title: 'Secret', value: 'secret' }] });
      await admin.close();
      const restarted = await startService({
        apiKey: undefined,
        storageRoot: service.storageRoot,
        environment: {
          KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:alpha',
          KNOWLEDGE_AGENT_READ_TOKENS: 'reader-token-for-tests:alpha',
        },
      });
      try {
        assert.equal((await restarted.get('/tools/namespaces')).status, 401);
        const listed = (await (await restarted.get('/tools/namespaces', { authorization: 'Bearer reader-token-for-tests' })).json()) as {
          namespaces: { name: string }[];
        };
        assert.deepEqual(
          listed.namespaces.map((namespace) => namespace.name),
          ['alpha'],
        );
        assert.equal(
          (
            await restarted.request('/tools/documents?namespace=beta', {
              headers: { authorization: 'Bearer reader-token-for-tests' },
            })
          ).status,
          403,
        );
        assert.equal(
          (
            await restarted.request('/tools/documents?namespace=alpha&file=a.md', {
              method: 'DELETE',
              headers: { authorization: 'Bearer reader-token-for-tests' },
            })
          ).status,
          401,
        );
        assert.equal(
          (
            await restarted.request('/tools/namespaces/beta', {
              method: 'DELETE',
              headers: { authorization: 'Bearer writer-token-for-tests' },
            })
          ).status,
          403,
        );
        assert.equal(
          (
            await restarted.request('/tools/documents?namespace=alpha&file=a.md', {
              method: 'DELETE',
              headers: { authorization: 'Bearer writer-token-for-tests' },
            })
          ).status,
          200,
        );
      } finally {
        await restarted.close();
      }
    } finally {
      await service.dispose();
    }
  });
});
