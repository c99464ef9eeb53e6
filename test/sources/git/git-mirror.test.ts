// Tests for GitMirror against a repository served on loopback: shallow fetches, changed blobs between commits, the
// address policy (no request leaves before it passes), bad branches and folders, the time-out, the caller's signal and
// the size limit.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { GitMirror, type GitMirrorOptions } from '../../../src/sources/git/index.js';
import { startGitHttpServer, type GitHttpServer } from '../../support/git-http-server.js';

let server: GitHttpServer;
let cacheRoot: string;
let mirrors = 0;

before(async () => {
  server = await startGitHttpServer();
  cacheRoot = mkdtempSync(join(tmpdir(), 'git-mirrors-'));
  server.commit('first', {
    'docs/guide/intro.md': '# Intro\n',
    'docs/api.mdx': '# API\n',
    'docs/old.md': '# Old\n',
    'docs/logo.png': 'not a document',
    'README.md': '# Readme\n',
  });
});
after(async () => {
  await server.close();
  rmSync(cacheRoot, { recursive: true, force: true });
});

function mirrorFor(options: Partial<GitMirrorOptions> = {}): GitMirror {
  return new GitMirror({
    cacheRoot,
    sourceId: `source-${++mirrors}`,
    timeoutMs: 20_000,
    maxBytes: 10_000_000,
    allowPrivateAddresses: true,
    ...options,
  });
}

/** Answers every request itself (and counts none as served) until the test ends. */
function interceptFor(context: TestContext, answer: (response: ServerResponse) => void): void {
  server.intercept = (_request, response) => {
    answer(response);
    return true;
  };
  context.after(() => (server.intercept = undefined));
}

describe('GitMirror.fetch and listFiles', () => {
  test('lists the files of the fetched commit under the folder, with their blobs and sizes, and reads them', async () => {
    const mirror = mirrorFor();
    const { commit } = await mirror.fetch({ url: server.url, branch: 'main' });
    const files = await mirror.listFiles(commit, { folder: 'docs' });
    assert.deepEqual(
      files.map((file) => file.path),
      ['docs/api.mdx', 'docs/guide/intro.md', 'docs/old.md'],
    );
    const intro = files.find((file) => file.path === 'docs/guide/intro.md');
    assert.equal(intro?.blob, server.blobOf('docs/guide/intro.md'));
    assert.equal(intro?.size, 8);
    assert.equal((await mirror.readBlob(intro.blob)).toString(), '# Intro\n');
  });

  test('a second commit gives a new commit id, and its listing shows which blobs changed, appeared and went', async (context) => {
    const mirror = mirrorFor();
    const first = await mirror.fetch({ url: server.url, branch: 'main' });
    const before = new Map((await mirror.listFiles(first.commit, { folder: 'docs/' })).map((file) => [file.path, file.blob]));
    server.commit('second', { 'docs/guide/intro.md': '# Intro, edited\n', 'docs/new.md': '# New\n', 'docs/old.md': null });
    context.after(() => server.commit('restore', { 'docs/guide/intro.md': '# Intro\n', 'docs/new.md': null, 'docs/old.md': '# Old\n' }));
    const second = await mirror.fetch({ url: server.url, branch: 'main' });
    assert.notEqual(second.commit, first.commit);
    const after = new Map((await mirror.listFiles(second.commit, { folder: 'docs/' })).map((file) => [file.path, file.blob]));
    const changed = [...after].filter(([path, blob]) => before.has(path) && before.get(path) !== blob).map(([path]) => path);
    const added = [...after.keys()].filter((path) => !before.has(path));
    const deleted = [...before.keys()].filter((path) => !after.has(path));
    assert.deepEqual({ changed, added, deleted }, { changed: ['docs/guide/intro.md'], added: ['docs/new.md'], deleted: ['docs/old.md'] });
    assert.equal(after.get('docs/api.mdx'), before.get('docs/api.mdx'));
  });

  test('is shallow: the mirror holds one commit of history, however many the repository has', async () => {
    const mirror = mirrorFor();
    const { commit } = await mirror.fetch({ url: server.url, branch: 'main' });
    const count = execFileSync('git', [`--git-dir=${mirror.directory}`, 'rev-list', '--count', commit], { encoding: 'utf8' });
    assert.equal(count.trim(), '1');
  });

  test("patterns select among the folder's files, relative to the folder; the root is the default folder", async () => {
    const mirror = mirrorFor();
    const { commit } = await mirror.fetch({ url: server.url, branch: 'main' });
    const paths = async (selection: Parameters<GitMirror['listFiles']>[1]) =>
      (await mirror.listFiles(commit, selection)).map((file) => file.path);
    assert.deepEqual(await paths({ folder: 'docs', patterns: ['guide/*.md', '*.png'] }), ['docs/guide/intro.md', 'docs/logo.png']);
    assert.deepEqual(await paths({ patterns: ['*.md'] }), ['README.md']);
    assert.ok((await paths({})).includes('README.md'));
    assert.deepEqual(await paths({ folder: 'missing' }), []);
  });

  test('git connects to the address it was resolved to here: a made-up host name reaches the loopback server', async () => {
    const mirror = mirrorFor({ resolveHost: async () => ['127.0.0.1'] });
    const url = server.url.replace('127.0.0.1', 'git.docs.invalid');
    const { commit } = await mirror.fetch({ url, branch: 'main' });
    assert.match(commit, /^[0-9a-f]{40}$/);
  });
});

describe('GitMirror refusals', () => {
  test('an unknown branch is source_invalid, naming the branch', async () => {
    await assert.rejects(mirrorFor().fetch({ url: server.url, branch: 'no-such-branch' }), {
      code: 'source_invalid',
      message: /"no-such-branch" does not exist/,
    });
  });

  test('a branch that would be an option, or that git refuses, is refused before any request', async () => {
    const requestsBefore = server.requests.length;
    for (const branch of ['--upload-pack=touch /tmp/pwned', '-b', 'a..b', 'main:other', 'feature/*', 'with space', '']) {
      await assert.rejects(mirrorFor().fetch({ url: server.url, branch }), { code: 'source_invalid' }, branch);
    }
    assert.equal(server.requests.length, requestsBefore);
  });

  test('private addresses, plain http and credentials are refused unless allowed, before any request', async () => {
    const requestsBefore = server.requests.length;
    const strict = mirrorFor({ allowPrivateAddresses: false });
    const https = server.url.replace('http:', 'https:');
    await assert.rejects(strict.fetch({ url: https, branch: 'main' }), { code: 'url_not_allowed', message: /not a public address/ });
    await assert.rejects(strict.fetch({ url: server.url, branch: 'main' }), { code: 'url_not_allowed', message: /https only/ });
    const resolvesPrivate = mirrorFor({ allowPrivateAddresses: false, resolveHost: async () => ['10.1.2.3'] });
    await assert.rejects(resolvesPrivate.fetch({ url: 'https://git.example.com/docs.git', branch: 'main' }), {
      code: 'url_not_allowed',
      message: /non-public address/,
    });
    await assert.rejects(mirrorFor().fetch({ url: server.url.replace('//', '//user:secret@'), branch: 'main' }), {
      code: 'url_not_allowed',
      message: /credentials/,
    });
    await assert.rejects(mirrorFor().fetch({ url: 'file:///etc', branch: 'main' }), { code: 'url_not_allowed' });
    assert.equal(server.requests.length, requestsBefore);
  });

  test('a redirect is not followed', async (context) => {
    interceptFor(context, (response) => response.writeHead(301, { location: `${server.url}/info/refs?service=git-upload-pack` }).end());
    await assert.rejects(mirrorFor().fetch({ url: server.url.replace('repo.git', 'moved.git'), branch: 'main' }), {
      code: 'fetch_failed',
      message: /redirect, which is not followed/,
    });
  });

  test('a repository that asks for credentials fails without a prompt', async (context) => {
    interceptFor(context, (response) => response.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end());
    await assert.rejects(mirrorFor().fetch({ url: server.url, branch: 'main' }), { code: 'fetch_failed', message: /asks for credentials/ });
  });

  test('a folder outside the repository, or that git would read as an option, is refused', async () => {
    const mirror = mirrorFor();
    const { commit } = await mirror.fetch({ url: server.url, branch: 'main' });
    for (const folder of ['../etc', 'docs/../..', '--output=x', 'docs//guide', 'a\\b']) {
      await assert.rejects(mirror.listFiles(commit, { folder }), { code: 'source_invalid' }, folder);
    }
    await assert.rejects(mirror.listFiles('HEAD'), { code: 'source_invalid' });
    await assert.rejects(mirror.readBlob('--batch'), { code: 'source_invalid' });
  });

  test('past its time-out git is killed: the server sees the held request closed', async (context) => {
    let closed!: Promise<void>;
    interceptFor(context, (response) => {
      closed = new Promise((resolve) => response.on('close', resolve));
    });
    await assert.rejects(mirrorFor({ timeoutMs: 300 }).fetch({ url: server.url, branch: 'main' }), {
      code: 'fetch_failed',
      message: /did not finish within 300 ms/,
    });
    await closed;
  });

  test("the caller's signal stops the fetch with its reason", async (context) => {
    const controller = new AbortController();
    interceptFor(context, () => controller.abort(new Error('the source was deleted')));
    await assert.rejects(mirrorFor().fetch({ url: server.url, branch: 'main', signal: controller.signal }), {
      message: 'the source was deleted',
    });
  });

  test('a repository over the size limit is source_too_large, and its partial mirror is removed', async (context) => {
    server.commit('large', { 'docs/large.txt': randomBytes(400_000).toString('base64') });
    context.after(() => server.commit('drop large', { 'docs/large.txt': null }));
    const mirror = mirrorFor({ maxBytes: 100_000 });
    await assert.rejects(mirror.fetch({ url: server.url, branch: 'main' }), { code: 'source_too_large', message: /100000-byte limit/ });
    assert.equal(existsSync(mirror.directory), false);
  });

  test('a machine without git gets fetch_failed saying to install it', async (context) => {
    const path = process.env.PATH;
    process.env.PATH = join(cacheRoot, 'no-binaries-here');
    context.after(() => (process.env.PATH = path));
    await assert.rejects(mirrorFor().fetch({ url: server.url, branch: 'main' }), { code: 'fetch_failed', message: /git is not installed/ });
  });

  test('a source id that is not a plain name is refused', () => {
    assert.throws(() => mirrorFor({ sourceId: '../escape' }), { code: 'source_invalid' });
  });
});
