// POST /api/tools/ingest (JSON and multipart uploads) and /api/tools/ingest/execute through HTTP.
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startStaticSite, type StaticSite } from '../support/static-site.js';
import { fixturesDirectory, startServiceWithProvider, type TestService } from '../support/service.js';

interface IngestResponse {
  namespace: string;
  saved: number;
  skipped: number;
  errors: { source: string; error: string; code: string }[];
  files: { file: string; status: string; source: string }[];
}

interface ErrorResponse {
  error: { code: string; message: string };
}

const gettingStarted =
  '# Getting Started\n\nInstall the CLI, then run `widget init` to create a project.\n\n## Next steps\n\nRead the configuration guide.\n';

describe('POST /api/tools/ingest', () => {
  let service: TestService;
  let site: StaticSite;
  let siteUrl: string;

  before(async () => {
    ({ service } = await startServiceWithProvider());
    site = await startStaticSite({
      '/guide.html': {
        body: `<!doctype html><html><head><title>Deploy Guide</title></head><body><main><article><h1>Deploy Guide</h1>
          <p>Build the container image and push it to the registry; rolling updates keep every request served.</p>
          <h2>Rollback</h2><p>Run the rollback command to return to the previous release.</p></article></main></body></html>`,
      },
    });
    siteUrl = site.url;
  });

  after(async () => {
    await service.dispose();
    await site.close();
  });

  async function ingest(body: unknown, path = '/api/tools/ingest'): Promise<IngestResponse> {
    const response = await service.post(path, body);
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as IngestResponse;
  }

  function upload(form: FormData): Promise<Response> {
    return service.request('/api/tools/ingest', { method: 'POST', body: form });
  }

  async function uploadOk(form: FormData): Promise<IngestResponse> {
    const response = await upload(form);
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as IngestResponse;
  }

  async function errorOf(response: Response, status: number): Promise<ErrorResponse['error']> {
    assert.equal(response.status, status, await response.clone().text());
    return ((await response.json()) as ErrorResponse).error;
  }

  const jsonSources = () => [
    `${siteUrl}/guide.html`,
    'Widgets are configured in widgets.yaml and reloaded on change.',
    { type: 'markdown', value: gettingStarted, title: 'Getting Started' },
  ];

  it('saves a URL string, a text string and a titled Markdown object under slugs of their titles, in source order', async () => {
    const result = await ingest({ namespace: 'json-ns', sources: jsonSources() });
    assert.deepEqual(result, {
      namespace: 'json-ns',
      saved: 3,
      updated: 0,
      skipped: 0,
      errors: [],
      files: [
        { file: 'deploy-guide.md', status: 'saved', source: `${siteUrl}/guide.html` },
        { file: 'widgets-are-configured-in-widgets-yaml-and-reloaded-on-change.md', status: 'saved', source: 'text' },
        { file: 'getting-started.md', status: 'saved', source: 'text' },
      ],
    });
    const page = await readFile(join(service.storageRoot, 'json-ns', 'deploy-guide.md'), 'utf8');
    assert.match(page, new RegExp(`source: "${siteUrl}/guide.html"`));
    assert.match(page, /## Rollback/);
  });

  it('skips content that is already stored and lists it as skipped', async () => {
    const result = await ingest({ namespace: 'json-ns', sources: jsonSources() });
    assert.equal(result.saved, 0);
    assert.equal(result.skipped, 3);
    assert.deepEqual(
      result.files.map((file) => file.status),
      ['skipped', 'skipped', 'skipped'],
    );
    assert.deepEqual(
      result.files.map((file) => file.file),
      ['deploy-guide.md', 'widgets-are-configured-in-widgets-yaml-and-reloaded-on-change.md', 'getting-started.md'],
    );
    const stored = (await readdir(join(service.storageRoot, 'json-ns'))).filter((file) => file.endsWith('.md'));
    assert.equal(stored.length, 3);
  });

  it('uses the default namespace when none is given', async () => {
    const result = await ingest({ sources: ['Default namespace notes about queues.'] });
    assert.equal(result.namespace, 'docs');
    assert.equal(result.saved, 1);
  });

  it('reports each bad source with a reason and code while saving the good ones', async () => {
    const result = await ingest({
      namespace: 'mixed',
      sources: [
        { type: 'text', value: 'Caching layers keep hot keys in memory.', title: 'Caching' },
        { type: 'pdf', value: 'x' },
        42,
        { type: 'url' },
        { type: 'url', value: '  ' },
        'x'.repeat(200_001),
        'ftp://example.com/file.txt',
        { type: 'url', value: `${siteUrl}/missing` },
      ],
    });
    assert.equal(result.saved, 2, JSON.stringify(result));
    assert.deepEqual(
      result.files.map((file) => file.file),
      ['caching.md', 'ftp-example-com-file-txt.md'],
    );
    assert.deepEqual(
      result.errors.map((error) => [error.source, error.code]),
      [
        ['sources[1]', 'source_invalid'],
        ['sources[2]', 'source_invalid'],
        ['sources[3]', 'source_invalid'],
        ['sources[4]', 'source_invalid'],
        ['text', 'source_too_large'],
        [`${siteUrl}/missing`, 'fetch_failed'],
      ],
    );
    assert.match(result.errors[0]?.error ?? '', /^sources\[1\]\.type: /);
    assert.match(result.errors[3]?.error ?? '', /^sources\[4\]\.value: a url source needs the URL/);
    assert.match(result.errors[4]?.error ?? '', /200001 bytes/);
  });

  it('ingests an uploaded PDF and Markdown file together with namespace and sources fields', async () => {
    const form = new FormData();
    form.append('namespace', 'uploads');
    form.append('sources', JSON.stringify([{ type: 'text', value: 'Uploads arrive as multipart forms.', title: 'Upload Notes' }]));
    const pdf = await readFile(join(fixturesDirectory, 'pdfs', 'R-intro-4.2.2.pdf'));
    form.append('files', new Blob([pdf], { type: 'application/pdf' }), 'R-intro-4.2.2.pdf');
    form.append('files', new Blob([gettingStarted], { type: 'text/markdown' }), 'getting-started.md');
    const result = await uploadOk(form);
    assert.equal(result.namespace, 'uploads');
    assert.deepEqual(result.errors, []);
    assert.equal(result.saved, 3);
    assert.equal(result.files[0]?.file, 'upload-notes.md');
    assert.equal(result.files[2]?.file, 'getting-started.md');
    const pdfFile = result.files[1]?.file ?? '';
    assert.match(pdfFile, /\.md$/);
    const stored = await readdir(join(service.storageRoot, 'uploads'));
    assert.ok(stored.includes(pdfFile), `${pdfFile} is in ${stored.join(', ')}`);
    const markdown = await readFile(join(service.storageRoot, 'uploads', pdfFile), 'utf8');
    assert.match(markdown, /^source: "R-intro-4\.2\.2\.pdf"$/m);
    assert.ok((markdown.match(/^#{1,3} \S/gm) ?? []).length >= 5, 'the manual keeps its chapter headings');
  });

  it('stops a conversion past KNOWLEDGE_AGENT_CONVERSION_TIMEOUT_MS, names the limit, and saves the other file', async () => {
    // The Bash manual takes about 5 s to convert on a 2-core machine: well past a 1 s limit.
    const { service: hurried } = await startServiceWithProvider({ environment: { KNOWLEDGE_AGENT_CONVERSION_TIMEOUT_MS: '1000' } });
    try {
      const form = new FormData();
      form.append('namespace', 'hurried');
      const pdf = await readFile(join(fixturesDirectory, 'pdfs', 'bash-reference-manual-5.2.pdf'));
      form.append('files', new Blob([pdf], { type: 'application/pdf' }), 'bash-reference-manual-5.2.pdf');
      form.append('files', new Blob([gettingStarted], { type: 'text/markdown' }), 'getting-started.md');
      const response = await hurried.request('/api/tools/ingest', { method: 'POST', body: form });
      assert.equal(response.status, 200);
      const result = (await response.json()) as IngestResponse;
      assert.deepEqual(result.files, [{ file: 'getting-started.md', status: 'saved', source: 'getting-started.md' }]);
      assert.deepEqual(result.errors, [
        {
          source: 'bash-reference-manual-5.2.pdf',
          code: 'conversion_timed_out',
          error: 'converting the document took longer than 1 s, its time limit',
        },
      ]);
    } finally {
      await hurried.dispose();
    }
  });

  it('reports an upload over the file limit per source and saves the other file', async () => {
    const form = new FormData();
    form.append('namespace', 'big');
    form.append('files', new Blob([Buffer.alloc(6_000_001, 'a')], { type: 'text/plain' }), 'huge.txt');
    form.append('files', new Blob(['# Small Note\n\nStill saved.\n'], { type: 'text/markdown' }), 'small.md');
    const result = await uploadOk(form);
    assert.deepEqual(result.files, [{ file: 'small-note.md', status: 'saved', source: 'small.md' }]);
    assert.deepEqual(
      result.errors.map((error) => [error.source, error.code]),
      [['huge.txt', 'source_too_large']],
    );
    assert.match(result.errors[0]?.error ?? '', /6000000-byte limit/);
  });

  it('reports an unsupported file type per source, and ignores a file input and a sources field left empty', async () => {
    const form = new FormData();
    form.append('namespace', 'types');
    form.append('sources', '  ');
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);
    form.append('files', new Blob([png], { type: 'image/png' }), 'image.png');
    form.append(
      'files',
      new Blob(['<!doctype html><html><body><main><h1>Html Upload</h1><p>Converted from HTML.</p></main></body></html>'], {
        type: 'text/html',
      }),
      'page.html',
    );
    form.append('attachment', new Blob([]), '');
    const result = await uploadOk(form);
    assert.deepEqual(
      result.errors.map((error) => [error.source, error.code]),
      [['image.png', 'unsupported_file_type']],
    );
    assert.deepEqual(result.files, [{ file: 'html-upload.md', status: 'saved', source: 'page.html' }]);
  });

  it('answers 415 when every uploaded file is of an unsupported type', async () => {
    const form = new FormData();
    form.append('namespace', 'types');
    form.append('files', new Blob([Buffer.from('GIF89a-not-a-document')], { type: 'image/gif' }), 'animation.gif');
    form.append('files', new Blob([Buffer.from([0x50, 0x4b, 0x03, 0x04])], { type: 'application/zip' }), 'archive.zip');
    const response = await service.request('/api/tools/ingest', { method: 'POST', body: form });
    assert.equal(response.status, 415);
    const error = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(error.error.code, 'unsupported_media_type');
    assert.match(error.error.message, /animation\.gif.*archive\.zip/);
  });

  it('answers 400 naming sources when the sources field is not valid JSON or not a list', async () => {
    for (const value of ['[{"type": "text",', '{"type": "text", "value": "x"}']) {
      const form = new FormData();
      form.append('namespace', 'never');
      form.append('sources', value);
      form.append('files', new Blob(['# Never Stored\n']), 'never.md');
      const error = await errorOf(await upload(form), 400);
      assert.equal(error.code, 'invalid_request');
      assert.match(error.message, /^sources: /);
    }
    assert.ok(!(await readdir(service.storageRoot)).includes('never'), 'nothing was stored');
  });

  it('reads a sources field sent as application/json, and answers 400 for a malformed multipart body', async () => {
    const boundary = 'variant2-test-boundary';
    const contentType = `multipart/form-data; boundary=${boundary}`;
    const formWithJsonSources = (sources: string) =>
      [
        `--${boundary}`,
        'Content-Disposition: form-data; name="namespace"',
        '',
        'raw-form',
        `--${boundary}`,
        'Content-Disposition: form-data; name="sources"',
        'Content-Type: application/json',
        '',
        sources,
        `--${boundary}--`,
        '',
      ].join('\r\n');
    const send = (body: string, type = contentType) =>
      service.request('/api/tools/ingest', { method: 'POST', headers: { 'content-type': type }, body });

    const accepted = await send(formWithJsonSources('["Raw form sources arrive as JSON parts."]'));
    assert.equal(accepted.status, 200, await accepted.clone().text());
    const result = (await accepted.json()) as IngestResponse;
    assert.equal(result.namespace, 'raw-form');
    assert.deepEqual(result.files, [{ file: 'raw-form-sources-arrive-as-json-parts.md', status: 'saved', source: 'text' }]);

    assert.equal((await errorOf(await send(formWithJsonSources('["unterminated"')), 400)).code, 'invalid_request');
    assert.equal((await errorOf(await send('no boundary here', 'multipart/form-data'), 400)).code, 'invalid_request');
    const truncated = formWithJsonSources('["x"]').replace(`--${boundary}--\r\n`, '');
    assert.equal((await errorOf(await send(truncated), 400)).code, 'invalid_request');
  });

  it('answers 400 for a form with nothing to ingest, or a namespace given twice', async () => {
    const empty = new FormData();
    empty.append('namespace', 'nothing');
    assert.match((await errorOf(await upload(empty), 400)).message, /^sources: /);
    const twice = new FormData();
    twice.append('namespace', 'a');
    twice.append('namespace', 'b');
    twice.append('files', new Blob(['x']), 'x.txt');
    assert.match((await errorOf(await upload(twice), 400)).message, /^namespace: /);
  });

  it('answers 413 for more files than a form may hold, and for a body over the request limit', async () => {
    const many = new FormData();
    for (let index = 0; index < 51; index++) many.append('files', new Blob([`note ${index}`]), `note-${index}.txt`);
    assert.equal((await errorOf(await upload(many), 413)).code, 'payload_too_large');
    const huge = new FormData();
    huge.append('files', new Blob([Buffer.alloc(9_000_000, 'b')]), 'too-big.txt');
    assert.equal((await errorOf(await upload(huge), 413)).code, 'payload_too_large');
  });

  it('answers 400 naming the field for a JSON body that is not valid at all', async () => {
    for (const [body, field] of [
      [{}, 'sources'],
      [{ sources: 'not-a-list' }, 'sources'],
      [{ sources: [] }, 'sources'],
      [{ namespace: 42, sources: ['x'] }, 'namespace'],
    ] as const) {
      const error = await errorOf(await service.post('/api/tools/ingest', body), 400);
      assert.equal(error.code, 'invalid_request');
      assert.match(error.message, new RegExp(`^${field}`));
    }
    const error = await errorOf(await service.post('/api/tools/ingest', { namespace: '../..', sources: ['x'] }), 400);
    assert.equal(error.code, 'invalid_namespace');
  });

  it('answers 415 for a body that is neither JSON nor multipart', async () => {
    for (const contentType of ['application/xml', 'text/plain']) {
      const response = await service.request('/api/tools/ingest', {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: '<sources/>',
      });
      assert.equal((await errorOf(response, 415)).code, 'unsupported_media_type');
    }
  });
});

describe('POST /api/tools/ingest/execute', () => {
  let service: TestService;

  before(async () => {
    ({ service } = await startServiceWithProvider());
  });

  after(async () => {
    await service.dispose();
  });

  it('takes the JSON body under data, with runtimeContext and a runId, and answers like the JSON form', async () => {
    const data = { namespace: 'tools', sources: ['Execute runs the ingest tool.', { type: 'pdf', value: 'x' }] };
    const response = await service.post('/api/tools/ingest/execute?runId=abc', { data, runtimeContext: {} });
    assert.equal(response.status, 200, await response.clone().text());
    const result = (await response.json()) as IngestResponse;
    assert.deepEqual(result.files, [{ file: 'execute-runs-the-ingest-tool.md', status: 'saved', source: 'text' }]);
    assert.deepEqual(
      result.errors.map((error) => error.code),
      ['source_invalid'],
    );
    const again = (await (await service.post('/api/tools/ingest', data)).json()) as IngestResponse;
    assert.deepEqual(again.files, [{ file: 'execute-runs-the-ingest-tool.md', status: 'skipped', source: 'text' }]);
  });

  it('answers 400 naming the field under data, and 415 for a multipart body', async () => {
    const response = await service.post('/api/tools/ingest/execute', { data: { sources: 'x' } });
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as ErrorResponse).error.message, /^data\.sources: /);
    const form = new FormData();
    form.append('files', new Blob(['x']), 'x.txt');
    const multipart = await service.request('/api/tools/ingest/execute', { method: 'POST', body: form });
    assert.equal(multipart.status, 415);
  });
});
