// A document is its source: uploads keep their folders (tutorial/middleware.md and advanced/middleware.md are two
// documents), a replacement is always named in the response, and namespaces stored before folders were kept still update.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { renderDocument } from '../../src/store/front-matter.js';
import { fastapiDocsDirectory, fastapiPagePaths } from '../support/fastapi-docs.js';
import { encodeForm, type FormPart } from '../support/multipart-body.js';
import { makeStorageRoot, startServiceWithProvider, type ListeningTestService } from '../support/service.js';

const runFile = promisify(execFile);

interface ReplacedDocument {
  file: string;
  title: string;
  source: string;
  ingested_at: string;
}

interface Variant2Response {
  saved: number;
  updated: number;
  skipped: number;
  errors: { source: string; error: string; code: string }[];
  files: { file: string; status: string; source: string; replaced?: ReplacedDocument }[];
}

interface DocumentListing {
  documents: { title: string; source: string; file: string; hash: string }[];
}

/** Pages per request: under the service's 50 files and 8 MB per form. */
const pagesPerRequest = 40;

describe('document identity: uploads keep their folders', () => {
  let service: ListeningTestService;
  let curlAvailable = false;

  before(async () => {
    curlAvailable = await runFile('curl', ['--version']).then(
      () => true,
      () => false,
    );
    const storageRoot = await makeStorageRoot();
    // A namespace written before uploads kept their folders: its upload is recorded under its bare name.
    await mkdir(join(storageRoot, 'legacy'));
    await writeFile(
      join(storageRoot, 'legacy', 'middleware.md'),
      renderDocument(
        { title: 'Middleware', origin: 'middleware.md', hash: 'sha256:0', ingestedAt: '2025-01-01T00:00:00.000Z' },
        '# Middleware\n\nThe old middleware page.',
      ),
    );
    // Listening: curl, where the machine has one, uploads as another process over HTTP.
    ({ service } = await startServiceWithProvider({ listen: true, storageRoot }));
  });

  after(async () => {
    await service.dispose();
  });

  /**
   * Uploads files as `curl -F 'file=@...;filename=tutorial/middleware.md'` does, each part named by its path. Without a
   * curl on the machine (npm test needs only Node) the same parts are written by hand: curl's wire format is one
   * Content-Disposition with that filename and the part's Content-Type.
   */
  async function curlUpload(namespace: string, files: readonly { path: string; name: string }[]): Promise<Variant2Response> {
    if (curlAvailable) {
      const parts = files.flatMap(({ path, name }) => ['-F', `file=@${path};filename=${name};type=text/markdown`]);
      const { stdout } = await runFile(
        'curl',
        ['-sS', '--fail-with-body', '-F', `namespace=${namespace}`, ...parts, `${service.baseUrl}/api/tools/ingest`],
        { maxBuffer: 16_000_000 },
      );
      return JSON.parse(stdout) as Variant2Response;
    }
    const parts: FormPart[] = [{ name: 'namespace', value: namespace }];
    for (const { path, name } of files)
      parts.push({ name: 'file', fileName: name, contentType: 'text/markdown', value: await readFile(path) });
    const form = encodeForm(parts, { boundary: '------------------------curlstyleboundary', quoting: 'raw', malformation: 'none' });
    const response = await service.request('/api/tools/ingest', {
      method: 'POST',
      headers: { 'content-type': form.contentType },
      body: form.body,
    });
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as Variant2Response;
  }

  async function listing(namespace: string): Promise<DocumentListing['documents']> {
    const response = await service.get(`/tools/documents?namespace=${namespace}`);
    assert.equal(response.status, 200);
    return ((await response.json()) as DocumentListing).documents;
  }

  function uploadForm(namespace: string, files: readonly { name: string; content: string }[]): FormData {
    const form = new FormData();
    form.append('namespace', namespace);
    for (const { name, content } of files) form.append('file', new Blob([content], { type: 'text/markdown' }), name);
    return form;
  }

  async function upload(form: FormData, query = ''): Promise<Response> {
    const response = await service.request(`/api/tools/ingest${query}`, { method: 'POST', body: form });
    assert.equal(response.status, 200, await response.clone().text());
    return response;
  }

  it('stores every page of the FastAPI tree uploaded with curl, 0 refused, each under its path', async () => {
    const pages = await fastapiPagePaths();
    assert.equal(pages.length, 62);
    assert.ok(pages.length > pagesPerRequest, 'the tree takes more than one request');
    const responses: Variant2Response[] = [];
    for (let start = 0; start < pages.length; start += pagesPerRequest) {
      const batch = pages.slice(start, start + pagesPerRequest);
      responses.push(
        await curlUpload(
          'fastapi',
          batch.map((name) => ({ path: join(fastapiDocsDirectory, name), name })),
        ),
      );
    }
    assert.deepEqual(
      responses.flatMap((response) => response.errors),
      [],
    );
    assert.equal(
      responses.reduce((sum, response) => sum + response.saved, 0),
      62,
    );
    assert.equal(
      responses.reduce((sum, response) => sum + response.updated + response.skipped, 0),
      0,
    );

    const documents = await listing('fastapi');
    assert.deepEqual(documents.map((document) => document.source).sort(), pages);
    assert.equal(new Set(documents.map((document) => document.file)).size, 62, 'every page has a file of its own');
    const fileOf = (source: string) => documents.find((document) => document.source === source)?.file;
    assert.equal(fileOf('tutorial/middleware.md'), 'tutorial-middleware.md');
    assert.equal(fileOf('advanced/middleware.md'), 'advanced-middleware.md');
    assert.equal(fileOf('reference/middleware.md'), 'reference-middleware.md');
    assert.equal(fileOf('tutorial/security/first-steps.md'), 'tutorial-security-first-steps.md');
    assert.equal(fileOf('tutorial/first-steps.md'), 'tutorial-first-steps.md');
    assert.equal(fileOf('index.md'), 'fastapi.md');

    // The same tree again: every page is skipped, nothing replaced.
    const again = await curlUpload(
      'fastapi',
      pages.slice(0, pagesPerRequest).map((name) => ({ path: join(fastapiDocsDirectory, name), name })),
    );
    assert.equal(again.skipped, pagesPerRequest);
    assert.equal(again.updated, 0);
  });

  it('updates a page re-uploaded under the same path, names what it replaced, and leaves the namesake in another folder alone', async () => {
    const before = await listing('fastapi');
    const tutorial = before.find((document) => document.source === 'tutorial/middleware.md');
    const advanced = before.find((document) => document.source === 'advanced/middleware.md');
    const changed = `${await readFile(join(fastapiDocsDirectory, 'advanced', 'middleware.md'), 'utf8')}\n\nAn added paragraph about ordering middleware.\n`;
    const response = (await (
      await upload(uploadForm('fastapi', [{ name: 'advanced/middleware.md', content: changed }]))
    ).json()) as Variant2Response;
    assert.deepEqual(response.errors, []);
    assert.equal(response.updated, 1);
    const [file] = response.files;
    assert.equal(file?.status, 'updated');
    assert.equal(file?.file, 'advanced-middleware.md');
    assert.equal(file?.source, 'advanced/middleware.md');
    assert.deepEqual(file?.replaced && { file: file.replaced.file, title: file.replaced.title, source: file.replaced.source }, {
      file: 'advanced-middleware.md',
      title: 'Advanced Middleware',
      source: 'advanced/middleware.md',
    });
    assert.match(file?.replaced?.ingested_at ?? '', /^\d{4}-\d\d-\d\dT/);

    const after = await listing('fastapi');
    assert.equal(after.length, 62);
    assert.deepEqual(
      after.find((document) => document.source === 'tutorial/middleware.md'),
      tutorial,
      'the tutorial page is untouched',
    );
    assert.notEqual(after.find((document) => document.source === 'advanced/middleware.md')?.hash, advanced?.hash);
  });

  it('names the replaced document in the NDJSON progress too, and in the Variant 1 response', async () => {
    const progress = await upload(
      uploadForm('fastapi', [{ name: 'advanced\\middleware.md', content: '# Advanced Middleware\n\nReplaced once more, from Windows.\n' }]),
      '?progress=ndjson',
    );
    const lines = (await progress.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; status?: string; source?: string; replaced?: ReplacedDocument });
    const document = lines.find((line) => line.type === 'document');
    assert.equal(document?.status, 'updated');
    assert.equal(document?.source, 'advanced/middleware.md');
    assert.equal(document?.replaced?.file, 'advanced-middleware.md');
    assert.equal(document?.replaced?.source, 'advanced/middleware.md');

    const text = (value: string) =>
      service.post('/tools/ingest', { namespace: 'variant1', sources: [{ type: 'text', title: 'Token rotation', value }] });
    await text('Tokens rotate every 90 days.');
    const updated = (await (await text('Tokens rotate every 30 days.')).json()) as {
      documents: { status: string; source: string; replaced?: ReplacedDocument }[];
    };
    assert.equal(updated.documents[0]?.status, 'updated');
    assert.deepEqual(
      updated.documents[0]?.replaced && { file: updated.documents[0].replaced.file, source: updated.documents[0].replaced.source },
      { file: 'token-rotation.md', source: 'text' },
    );
  });

  it('refuses an absolute path or a ".." segment per source, and stores the other files', async () => {
    const form = uploadForm('paths', [
      { name: '/etc/notes.md', content: '# Absolute\n\nNot stored.\n' },
      { name: '../outside.md', content: '# Outside\n\nNot stored.\n' },
      { name: 'C:\\Users\\me\\notes.md', content: '# Drive\n\nNot stored.\n' },
      { name: 'guides/./setup.md', content: '# Setup\n\nStored under guides/setup.md.\n' },
    ]);
    const response = (await (await upload(form)).json()) as Variant2Response;
    assert.deepEqual(
      response.errors.map((error) => [error.source, error.code]),
      [
        ['/etc/notes.md', 'source_invalid'],
        ['../outside.md', 'source_invalid'],
        ['C:\\Users\\me\\notes.md', 'source_invalid'],
      ],
    );
    assert.match(response.errors[0]?.error ?? '', /not an absolute path/);
    assert.match(response.errors[1]?.error ?? '', /may not step out of its folder/);
    assert.deepEqual(
      response.files.map((file) => [file.file, file.source]),
      [['guides-setup.md', 'guides/setup.md']],
    );
  });

  it('keeps a namespace stored before folders were kept: its bare upload name still updates it, in its own file', async () => {
    const before = await listing('legacy');
    assert.deepEqual(
      before.map((document) => [document.file, document.source]),
      [['middleware.md', 'middleware.md']],
    );

    const nested = (await (
      await upload(uploadForm('legacy', [{ name: 'tutorial/middleware.md', content: '# Middleware\n\nThe tutorial page.\n' }]))
    ).json()) as Variant2Response;
    assert.deepEqual(
      nested.files.map((file) => [file.file, file.status]),
      [['tutorial-middleware.md', 'saved']],
    );

    const bare = (await (
      await upload(uploadForm('legacy', [{ name: 'middleware.md', content: '# Middleware\n\nThe new middleware page.\n' }]))
    ).json()) as Variant2Response;
    assert.deepEqual(
      bare.files.map((file) => [file.file, file.status, file.replaced?.source]),
      [['middleware.md', 'updated', 'middleware.md']],
    );
    const after = await listing('legacy');
    assert.deepEqual(after.map((document) => [document.file, document.source]).sort(), [
      ['middleware.md', 'middleware.md'],
      ['tutorial-middleware.md', 'tutorial/middleware.md'],
    ]);
    assert.match(await readFile(join(service.storageRoot, 'legacy', 'middleware.md'), 'utf8'), /The new middleware page\./);
  });

  it('names uploads by their public pages with base_url: cited by URL, updated by URL, a bad base a 400', async () => {
    const files = [
      { name: 'guide/install.md', content: '# Install\n\nRun the installer from the release page.\n' },
      { name: 'guide/index.md', content: '# Guide\n\nThe guide starts here.\n' },
      { name: 'manual.html', content: '<h1>Manual</h1><p>The manual, as one page.</p>' },
    ];
    const form = uploadForm('published', files);
    form.append('base_url', 'https://docs.example.com/v2');
    const saved = (await (await upload(form)).json()) as Variant2Response;
    assert.deepEqual(saved.errors, []);
    assert.deepEqual((await listing('published')).map((document) => document.source).sort(), [
      'https://docs.example.com/v2/guide/',
      'https://docs.example.com/v2/guide/install',
      'https://docs.example.com/v2/manual.html',
    ]);
    const search = await service.request('/api/tools/searchDocs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ namespace: 'published', query: 'installer' }),
    });
    const results = ((await search.json()) as { results: { origin: string }[] }).results;
    assert.equal(results[0]?.origin, 'https://docs.example.com/v2/guide/install');

    const edited = uploadForm('published', [{ name: 'guide/install.md', content: '# Install\n\nRun the new installer.\n' }]);
    edited.append('base_url', 'https://docs.example.com/v2/');
    const updated = (await (await upload(edited)).json()) as Variant2Response;
    assert.deepEqual(
      updated.files.map((file) => [file.status, file.replaced?.source]),
      [['updated', 'https://docs.example.com/v2/guide/install']],
    );

    for (const base of ['docs.example.com', 'ftp://docs.example.com/', 'https://docs.example.com/?v=2']) {
      const refused = uploadForm('published', files);
      refused.append('base_url', base);
      const response = await service.request('/api/tools/ingest', { method: 'POST', body: refused });
      assert.equal(response.status, 400, base);
      assert.match(
        ((await response.json()) as { error: { message: string } }).error.message,
        /^base_url: .*https:\/\/docs\.example\.com\//,
      );
    }
  });
});
