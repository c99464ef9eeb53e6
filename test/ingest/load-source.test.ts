// Tests for loadSource's guards: file sources only inside the roots (symlinks and .. resolved), size limits, file types.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test, type TestContext } from 'node:test';
import { DocumentConverter } from '../../src/ingest/document-converter.js';
import { loadSource, type SourceLimits } from '../../src/ingest/load-source.js';
import { startStaticSite } from '../support/static-site.js';

const megabytes6 = 6_000_000;
const kilobytes200 = 200_000;
const converter = new DocumentConverter({ workers: 1 });
after(() => converter.close());

interface Layout {
  /** The one file root, symlinks resolved as config does. */
  readonly root: string;
  /** A directory beside the root, outside it. */
  readonly outside: string;
  readonly limits: SourceLimits;
}

/**
 * base/
 *   root/guide.md, root/notes.txt, root/sub/page.md
 *   outside/secret.md
 *   outside.txt
 */
async function layoutFor(context: TestContext, overrides: Partial<SourceLimits> = {}): Promise<Layout> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'load-source-')));
  context.after(() => rm(base, { recursive: true, force: true }));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, 'guide.md'), '# Install guide\n\nRun the installer.\n');
  await writeFile(join(root, 'notes.txt'), 'Plain notes.\n');
  await writeFile(join(root, 'sub', 'page.md'), '# Sub page\n\nInside a sub-directory.\n');
  await writeFile(join(outside, 'secret.md'), '# Secret\n\nMust never be read.\n');
  await writeFile(join(base, 'outside.txt'), 'Must never be read.\n');
  const limits: SourceLimits = {
    maxSourceBytes: megabytes6,
    maxTextBytes: kilobytes200,
    downloadTimeoutMs: 5_000,
    allowPrivateUrls: false,
    fileRoots: [root],
    ...overrides,
  };
  return { root, outside, limits };
}

describe('loadSource: file sources stay inside the file roots', () => {
  test('a file inside a root is loaded and titled from its heading', async (context) => {
    const { root, limits } = await layoutFor(context);
    const loaded = await loadSource({ kind: 'file', path: join(root, 'guide.md') }, limits, converter);
    assert.equal(loaded.title, 'Install guide');
    assert.match(loaded.markdown, /Run the installer\./);
  });

  test('a file in a sub-directory of a root is loaded', async (context) => {
    const { root, limits } = await layoutFor(context);
    const loaded = await loadSource({ kind: 'file', path: join(root, 'sub', 'page.md') }, limits, converter);
    assert.equal(loaded.title, 'Sub page');
  });

  test('<root>/../outside.txt is refused with file_not_allowed', async (context) => {
    const { root, limits } = await layoutFor(context);
    await assert.rejects(loadSource({ kind: 'file', path: `${root}/../outside.txt` }, limits, converter), { code: 'file_not_allowed' });
    await assert.rejects(loadSource({ kind: 'file', path: `${root}/sub/../../outside/secret.md` }, limits, converter), {
      code: 'file_not_allowed',
    });
  });

  test('a file outside every root is refused with file_not_allowed', async (context) => {
    const { outside, limits } = await layoutFor(context);
    await assert.rejects(loadSource({ kind: 'file', path: join(outside, 'secret.md') }, limits, converter), { code: 'file_not_allowed' });
  });

  test('a sibling directory whose name starts with the root name is outside it', async (context) => {
    const { root, limits } = await layoutFor(context);
    await mkdir(`${root}-evil`);
    await writeFile(`${root}-evil/page.md`, '# Evil\n');
    await assert.rejects(loadSource({ kind: 'file', path: `${root}-evil/page.md` }, limits, converter), { code: 'file_not_allowed' });
  });

  test('a symlink inside the root that points outside is refused', async (context) => {
    const { root, outside, limits } = await layoutFor(context);
    await symlink(join(outside, 'secret.md'), join(root, 'innocent.md'));
    await symlink(outside, join(root, 'linked-dir'));
    await assert.rejects(loadSource({ kind: 'file', path: join(root, 'innocent.md') }, limits, converter), { code: 'file_not_allowed' });
    await assert.rejects(loadSource({ kind: 'file', path: join(root, 'linked-dir', 'secret.md') }, limits, converter), {
      code: 'file_not_allowed',
    });
  });

  test('a symlink inside the root that points elsewhere inside it is loaded', async (context) => {
    const { root, limits } = await layoutFor(context);
    await symlink(join(root, 'sub'), join(root, 'alias-dir'));
    await symlink(join(root, 'guide.md'), join(root, 'alias.md'));
    assert.equal((await loadSource({ kind: 'file', path: join(root, 'alias-dir', 'page.md') }, limits, converter)).title, 'Sub page');
    assert.equal((await loadSource({ kind: 'file', path: join(root, 'alias.md') }, limits, converter)).title, 'Install guide');
  });

  test('a path through a symlinked alias of the root directory resolves inside and is loaded', async (context) => {
    const { root, outside, limits } = await layoutFor(context);
    const alias = join(outside, 'root-alias');
    await symlink(root, alias);
    const loaded = await loadSource({ kind: 'file', path: join(alias, 'guide.md') }, limits, converter);
    assert.equal(loaded.title, 'Install guide');
  });

  test('a file in a second root is loaded', async (context) => {
    const { root, outside, limits } = await layoutFor(context);
    const twoRoots = { ...limits, fileRoots: [root, outside] };
    assert.equal((await loadSource({ kind: 'file', path: join(outside, 'secret.md') }, twoRoots, converter)).title, 'Secret');
  });

  for (const path of ['guide.md', './guide.md', '../outside.txt', 'sub/page.md', '']) {
    test(`the relative path ${JSON.stringify(path)} is refused with source_invalid`, async (context) => {
      const { limits } = await layoutFor(context);
      await assert.rejects(loadSource({ kind: 'file', path }, limits, converter), { code: 'source_invalid' });
    });
  }

  test('a file that does not exist inside a root is file_not_found', async (context) => {
    const { root, limits } = await layoutFor(context);
    await assert.rejects(loadSource({ kind: 'file', path: join(root, 'missing.md') }, limits, converter), { code: 'file_not_found' });
  });

  test('a dangling symlink inside a root is file_not_found', async (context) => {
    const { root, limits } = await layoutFor(context);
    await symlink(join(root, 'gone.md'), join(root, 'dangling.md'));
    await assert.rejects(loadSource({ kind: 'file', path: join(root, 'dangling.md') }, limits, converter), { code: 'file_not_found' });
  });

  test('a missing file outside the roots is file_not_allowed, so the service is no oracle for what exists elsewhere', async (context) => {
    const { outside, limits } = await layoutFor(context);
    await assert.rejects(loadSource({ kind: 'file', path: join(outside, 'secret.md') }, limits, converter), { code: 'file_not_allowed' });
    await assert.rejects(loadSource({ kind: 'file', path: join(outside, 'no-such-file.md') }, limits, converter), {
      code: 'file_not_allowed',
    });
  });

  test('a directory inside a root is file_not_found', async (context) => {
    const { root, limits } = await layoutFor(context);
    await assert.rejects(loadSource({ kind: 'file', path: join(root, 'sub') }, limits, converter), {
      code: 'file_not_found',
      message: /not a regular file/,
    });
    await assert.rejects(loadSource({ kind: 'file', path: root }, limits, converter), {
      code: 'file_not_found',
      message: /not a regular file/,
    });
  });
});

describe('loadSource: size limits', () => {
  test('a file of 6,000,001 bytes is refused with source_too_large before it is read', async (context) => {
    const { root, limits } = await layoutFor(context);
    const path = join(root, 'huge.txt');
    await writeFile(path, '');
    await truncate(path, megabytes6 + 1); // sparse: no 6 MB written to disk
    await assert.rejects(loadSource({ kind: 'file', path }, limits, converter), {
      code: 'source_too_large',
      message: /6000001 bytes, over the 6000000-byte limit/,
    });
  });

  test('a file of exactly maxSourceBytes is read, one byte more is refused', async (context) => {
    const { root, limits } = await layoutFor(context, { maxSourceBytes: 100 });
    await writeFile(join(root, 'fits.txt'), 'a'.repeat(100));
    await writeFile(join(root, 'over.txt'), 'a'.repeat(101));
    assert.equal((await loadSource({ kind: 'file', path: join(root, 'fits.txt') }, limits, converter)).markdown.trim(), 'a'.repeat(100));
    await assert.rejects(loadSource({ kind: 'file', path: join(root, 'over.txt') }, limits, converter), { code: 'source_too_large' });
  });

  test('a text snippet of 200,000 bytes is accepted, 200,001 bytes is refused', async (context) => {
    const { limits } = await layoutFor(context);
    const loaded = await loadSource({ kind: 'text', text: 'a'.repeat(kilobytes200), title: 'Long' }, limits, converter);
    assert.equal(loaded.title, 'Long');
    await assert.rejects(loadSource({ kind: 'text', text: 'a'.repeat(kilobytes200 + 1) }, limits, converter), { code: 'source_too_large' });
  });

  test('a text snippet is measured in UTF-8 bytes, not characters', async (context) => {
    const { limits } = await layoutFor(context);
    // 'é' is 2 bytes: 100,000 of them are exactly 200,000 bytes; 100,001 (200,002 bytes) are over.
    assert.equal('é'.repeat(100_001).length, 100_001);
    await loadSource({ kind: 'text', text: 'é'.repeat(100_000) }, limits, converter);
    await assert.rejects(loadSource({ kind: 'text', text: 'é'.repeat(100_001) }, limits, converter), {
      code: 'source_too_large',
      message: /200002 bytes/,
    });
    // '😀' is 4 bytes but 2 UTF-16 code units: 50,001 of them are 200,004 bytes.
    await assert.rejects(loadSource({ kind: 'text', text: '😀'.repeat(50_001) }, limits, converter), {
      code: 'source_too_large',
      message: /200004 bytes/,
    });
  });

  test('an upload over maxSourceBytes is refused with source_too_large', async (context) => {
    const { limits } = await layoutFor(context, { maxSourceBytes: 10 });
    await assert.rejects(loadSource({ kind: 'upload', fileName: 'notes.txt', bytes: Buffer.from('eleven byte') }, limits, converter), {
      code: 'source_too_large',
    });
  });
});

describe('loadSource: file types', () => {
  for (const name of ['program.exe', 'archive.zip', 'document.docx', 'script.sh']) {
    test(`${name} is refused with unsupported_file_type`, async (context) => {
      const { root, limits } = await layoutFor(context);
      await writeFile(join(root, name), 'some plain text content\n');
      await assert.rejects(loadSource({ kind: 'file', path: join(root, name) }, limits, converter), { code: 'unsupported_file_type' });
    });
  }

  test('a .txt file is loaded, titled from its name when it has no heading', async (context) => {
    const { root, limits } = await layoutFor(context);
    const loaded = await loadSource({ kind: 'file', path: join(root, 'notes.txt') }, limits, converter);
    assert.equal(loaded.title, 'Notes');
    assert.match(loaded.markdown, /Plain notes\./);
  });

  test('a page whose first heading names a section after its opening text is titled from its file name, as MkDocs titles it', async (context) => {
    const { root, limits } = await layoutFor(context);
    const page = 'Details on common errors.\n\n## `arguments_type`\n\nRaised when...\n';
    await mkdir(join(root, 'errors'), { recursive: true });
    await writeFile(join(root, 'errors', 'validation_errors.md'), page);
    await writeFile(join(root, 'errors', 'index.md'), page);
    const titleOf = async (path: string) => (await loadSource({ kind: 'file', path: join(root, path) }, limits, converter)).title;
    assert.equal(await titleOf('errors/validation_errors.md'), 'Validation errors');
    assert.equal(await titleOf('errors/index.md'), 'Errors');
    await writeFile(join(root, 'errors', 'titled.md'), `# Validation Errors\n\n${page}`);
    assert.equal(await titleOf('errors/titled.md'), 'Validation Errors');
  });
});

describe('loadSource: URL sources pass the private-address setting to the fetch', () => {
  test('a loopback URL is refused unless private URLs are allowed', async (context) => {
    const site = await startStaticSite({
      '/guide.html': { body: '<html><head><title>Guide</title></head><body><main><h1>Guide</h1><p>Text.</p></main></body></html>' },
    });
    context.after(() => site.close());
    const { limits } = await layoutFor(context);
    await assert.rejects(loadSource({ kind: 'url', url: `${site.url}/guide.html` }, limits, converter), { code: 'url_not_allowed' });
    assert.deepEqual(site.requests, []);
    const loaded = await loadSource({ kind: 'url', url: `${site.url}/guide.html` }, { ...limits, allowPrivateUrls: true }, converter);
    assert.equal(loaded.title, 'Guide');
  });

  test('a download over maxSourceBytes is refused with source_too_large', async (context) => {
    const site = await startStaticSite({ '/big.txt': { contentType: 'text/plain', body: 'a'.repeat(101) } });
    context.after(() => site.close());
    const { limits } = await layoutFor(context, { maxSourceBytes: 100, allowPrivateUrls: true });
    await assert.rejects(loadSource({ kind: 'url', url: `${site.url}/big.txt` }, limits, converter), { code: 'source_too_large' });
  });
});
