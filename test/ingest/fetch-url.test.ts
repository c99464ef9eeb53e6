// Tests for fetchUrl: http(s) only, private addresses refused before connecting, redirects, size cap, time-out, the
// caller's signal, statuses.
// Every server here is on loopback; tests that expect a refusal before any connection also make
// net.Socket#connect throw, so a regression fails the test instead of sending traffic anywhere.
import assert from 'node:assert/strict';
import http, { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, Socket, type Server as TcpServer } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { KnowledgeError } from '../../src/errors.js';
import { fetchUrl, type FetchLimits } from '../../src/ingest/fetch-url.js';
import { startStaticSite, type SitePage, type StaticSite } from '../support/static-site.js';

const allowPrivate: FetchLimits = { maxBytes: 1_000_000, timeoutMs: 5_000, allowPrivateAddresses: true };
const refusePrivate: FetchLimits = { maxBytes: 1_000_000, timeoutMs: 5_000, allowPrivateAddresses: false };

async function siteFor(context: TestContext, pages: Record<string, SitePage>): Promise<StaticSite> {
  const site = await startStaticSite(pages);
  context.after(() => site.close());
  return site;
}

interface TestServer {
  readonly url: string;
  readonly port: number;
  readonly requests: string[];
}

async function serverFor(
  context: TestContext,
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  host = '127.0.0.1',
): Promise<TestServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '/');
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  context.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  return { url: `http://${host}:${address.port}`, port: address.port, requests };
}

/** A TCP server that accepts connections and never says a word. */
async function silentServerFor(context: TestContext): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  context.after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  return { url: `http://127.0.0.1:${address.port}`, connections: () => connections };
}

/** Makes every outgoing connection attempt throw for the rest of the test, and records it. */
function refuseConnections(context: TestContext): unknown[] {
  const attempts: unknown[] = [];
  context.mock.method(Socket.prototype, 'connect', (...args: unknown[]) => {
    attempts.push(args[0]);
    throw new Error('test guard: no connection may be attempted here');
  });
  return attempts;
}

async function timed<T>(promise: Promise<T>): Promise<{ settled: PromiseSettledResult<T>; elapsedMs: number }> {
  const started = performance.now();
  const [settled] = await Promise.allSettled([promise]);
  return { settled: settled as PromiseSettledResult<T>, elapsedMs: performance.now() - started };
}

function getWithDefaultAgent(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (response) => {
        response.resume();
        response.on('end', () => resolve());
      })
      .on('error', reject);
  });
}

describe('fetchUrl: what URL text is accepted', () => {
  for (const url of [
    'ftp://127.0.0.1/file.txt',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/plain,hello',
    'gopher://127.0.0.1/',
    'ws://127.0.0.1/',
  ]) {
    test(`${url} is refused as not http(s), without connecting`, async (context) => {
      const attempts = refuseConnections(context);
      await assert.rejects(fetchUrl(url, allowPrivate), { code: 'url_not_allowed', message: /only http and https/ });
      assert.deepEqual(attempts, []);
    });
  }

  for (const url of ['http://user:secret@127.0.0.1:8080/', 'http://user@127.0.0.1:8080/', 'https://:secret@127.0.0.1/']) {
    test(`${url} is refused for carrying credentials`, async (context) => {
      const attempts = refuseConnections(context);
      await assert.rejects(fetchUrl(url, allowPrivate), { code: 'url_not_allowed', message: /credentials/ });
      assert.deepEqual(attempts, []);
    });
  }

  for (const text of ['', 'not a url', 'http://', '//127.0.0.1/relative', '/docs/page.html', 'http://exa mple.com/']) {
    test(`${JSON.stringify(text)} is refused as not a valid URL`, async (context) => {
      const attempts = refuseConnections(context);
      await assert.rejects(fetchUrl(text, allowPrivate), { code: 'url_not_allowed', message: /not a valid URL/ });
      assert.deepEqual(attempts, []);
    });
  }

  test('a plain http URL on loopback is fetched when private addresses are allowed', async (context) => {
    const site = await siteFor(context, { '/page.md': { contentType: 'text/markdown', body: '# Hello' } });
    const fetched = await fetchUrl(`${site.url}/page.md`, allowPrivate);
    assert.equal(fetched.bytes.toString('utf8'), '# Hello');
    assert.equal(fetched.contentType, 'text/markdown');
    assert.equal(fetched.url, `${site.url}/page.md`);
  });

  test('the connection guard used by these tests does intercept the connections fetchUrl makes', async (context) => {
    const site = await siteFor(context, { '/': { body: 'hello' } });
    const attempts = refuseConnections(context);
    await assert.rejects(fetchUrl(`${site.url}/`, allowPrivate), { code: 'fetch_failed' });
    assert.equal(attempts.length, 1);
    assert.deepEqual(site.requests, []);
  });
});

describe('fetchUrl: non-public addresses are refused unless allowed', () => {
  const literals = [
    (port: number | string) => `http://127.0.0.1:${port}/`,
    (port: number | string) => `http://127.1:${port}/`,
    (port: number | string) => `http://2130706433:${port}/`,
    (port: number | string) => `http://0x7f000001:${port}/`,
    (port: number | string) => `http://[::1]:${port}/`,
    (port: number | string) => `http://[::ffff:127.0.0.1]:${port}/`,
    (port: number | string) => `http://0.0.0.0:${port}/`,
    () => 'http://169.254.169.254/latest/meta-data/',
    () => 'http://[::ffff:169.254.169.254]/latest/meta-data/',
    () => 'http://10.0.0.1/',
    () => 'http://172.16.0.1/',
    () => 'http://192.168.1.1/',
    () => 'http://100.64.0.1/',
    () => 'http://[fd00::1]/',
    () => 'http://[fe80::1]/',
    () => 'http://[64:ff9b::a00:1]/',
    () => 'https://10.0.0.1/',
    () => 'http://192.0.2.1/',
    () => 'http://198.51.100.1/',
    () => 'http://203.0.113.1/',
    () => 'http://[2001:db8::1]/',
  ];
  for (const urlFor of literals) {
    test(`${urlFor('PORT')} is refused at once, before any connection`, async (context) => {
      const site = await siteFor(context, { '/': { body: 'internal' } });
      const attempts = refuseConnections(context);
      const { settled, elapsedMs } = await timed(fetchUrl(urlFor(Number(new URL(site.url).port)), refusePrivate));
      assert.equal(settled.status, 'rejected');
      if (settled.status === 'rejected') {
        assert.equal((settled.reason as { code?: string }).code, 'url_not_allowed');
        assert.match((settled.reason as Error).message, /is not a public address; .*KNOWLEDGE_AGENT_ALLOW_PRIVATE_URLS=true$/);
      }
      assert.deepEqual(attempts, []);
      assert.deepEqual(site.requests, []);
      assert.ok(elapsedMs < 1_000, `took ${Math.round(elapsedMs)} ms`);
    });
  }

  test('a host NAME that resolves to loopback is refused: the check is on the resolved address', async (context) => {
    const site = await siteFor(context, { '/': { body: 'internal' } });
    const url = `http://localhost:${new URL(site.url).port}/`;
    await assert.rejects(fetchUrl(url, refusePrivate), {
      code: 'url_not_allowed',
      message:
        /localhost resolves to a non-public address; to ingest from private networks, start the service with KNOWLEDGE_AGENT_ALLOW_PRIVATE_URLS=true$/,
    });
    assert.deepEqual(site.requests, []);
  });

  test('the same loopback URLs are fetched when private addresses are allowed', async (context) => {
    const site = await siteFor(context, { '/': { body: 'internal' } });
    const port = new URL(site.url).port;
    for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`, `http://2130706433:${port}/`]) {
      const fetched = await fetchUrl(url, allowPrivate);
      assert.equal(fetched.bytes.toString('utf8'), 'internal');
    }
    assert.deepEqual(site.requests, ['/', '/', '/']);
  });

  test('a keep-alive socket that other code in the process left open to a private host is not reused', async (context) => {
    const site = await siteFor(context, { '/': { body: 'internal' } });
    const url = `http://localhost:${new URL(site.url).port}/`;
    // Some other part of the process talks to a local service through Node's default agent.
    await getWithDefaultAgent(url);
    await assert.rejects(fetchUrl(url, refusePrivate), { code: 'url_not_allowed' });
    assert.deepEqual(site.requests, ['/']);
  });
});

describe('fetchUrl: redirects', () => {
  test('a chain of relative and absolute redirects is followed and the final URL reported', async (context) => {
    const final = await siteFor(context, { '/final.html': { contentType: 'text/html', body: '<h1>Final</h1>' } });
    const site = await siteFor(context, {
      '/docs/start': { status: 301, location: '/docs/second' },
      '/docs/second': { status: 302, location: 'third' },
      '/docs/third': { status: 307, location: `${final.url}/final.html` },
    });
    const fetched = await fetchUrl(`${site.url}/docs/start`, allowPrivate);
    assert.equal(fetched.url, `${final.url}/final.html`);
    assert.equal(fetched.bytes.toString('utf8'), '<h1>Final</h1>');
    assert.equal(fetched.contentType, 'text/html');
    assert.deepEqual(site.requests, ['/docs/start', '/docs/second', '/docs/third']);
    assert.deepEqual(final.requests, ['/final.html']);
  });

  test('five redirects are followed, a sixth is refused with fetch_failed', async (context) => {
    const pages: Record<string, SitePage> = { '/done': { body: 'done' } };
    for (let hop = 0; hop < 6; hop++) pages[`/six/${hop}`] = { location: hop === 5 ? '/done' : `/six/${hop + 1}` };
    for (let hop = 0; hop < 5; hop++) pages[`/five/${hop}`] = { location: hop === 4 ? '/done' : `/five/${hop + 1}` };
    const site = await siteFor(context, pages);

    const fetched = await fetchUrl(`${site.url}/five/0`, allowPrivate);
    assert.equal(fetched.url, `${site.url}/done`);
    assert.equal(fetched.bytes.toString('utf8'), 'done');

    site.requests.length = 0;
    await assert.rejects(fetchUrl(`${site.url}/six/0`, allowPrivate), { code: 'fetch_failed', message: /redirected more than 5 times/ });
    assert.deepEqual(site.requests, ['/six/0', '/six/1', '/six/2', '/six/3', '/six/4', '/six/5']);
  });

  test('a redirect loop ends with fetch_failed', async (context) => {
    const site = await siteFor(context, { '/a': { location: '/b' }, '/b': { location: '/a' } });
    await assert.rejects(fetchUrl(`${site.url}/a`, allowPrivate), { code: 'fetch_failed', message: /redirected more than 5 times/ });
    assert.equal(site.requests.length, 6);
  });

  test('maxRedirects lowers the cap', async (context) => {
    const site = await siteFor(context, { '/a': { location: '/b' }, '/b': { body: 'b' } });
    await assert.rejects(fetchUrl(`${site.url}/a`, { ...allowPrivate, maxRedirects: 0 }), {
      code: 'fetch_failed',
      message: /more than 0 times/,
    });
    assert.equal((await fetchUrl(`${site.url}/a`, { ...allowPrivate, maxRedirects: 1 })).url, `${site.url}/b`);
  });

  for (const location of ['ftp://127.0.0.1/file.txt', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,<h1>x</h1>']) {
    test(`a redirect to ${location} is refused with url_not_allowed`, async (context) => {
      const site = await siteFor(context, { '/start': { location } });
      await assert.rejects(fetchUrl(`${site.url}/start`, allowPrivate), { code: 'url_not_allowed', message: /only http and https/ });
      assert.deepEqual(site.requests, ['/start']);
    });
  }

  test('a redirect to a URL with credentials is refused', async (context) => {
    const site = await siteFor(context, { '/start': { location: 'http://admin:admin@127.0.0.1:1/' } });
    await assert.rejects(fetchUrl(`${site.url}/start`, allowPrivate), { code: 'url_not_allowed', message: /credentials/ });
  });

  test('the time-out covers the whole chain, not each hop', async (context) => {
    let hops = 0;
    const server = await serverFor(context, (_request, response) => {
      hops++;
      setTimeout(() => {
        response.writeHead(302, { location: `/hop${hops}` });
        response.end();
      }, 150);
    });
    await assert.rejects(fetchUrl(`${server.url}/`, { ...allowPrivate, timeoutMs: 400 }), {
      code: 'fetch_failed',
      message: /did not answer within 400 ms/,
    });
    assert.ok(server.requests.length <= 3, `${server.requests.length} hops made`);
  });

  // With loopback-only test servers, a first hop can be allowed and a later one refused only when the test
  // says which loopback address counts as public: FetchLimits.isRefusedAddress does that.

  async function publicLoopbackFor(context: TestContext, location: (port: number) => string) {
    const internal = await siteFor(context, { '/secret': { body: 'internal' } });
    const internalPort = Number(new URL(internal.url).port);
    const entry = await serverFor(
      context,
      (_request, response) => {
        response.writeHead(302, { location: location(internalPort) });
        response.end();
      },
      '127.0.0.2',
    );
    const limits = { ...refusePrivate, isRefusedAddress: (address: string) => address !== '127.0.0.2' };
    return { internal, entry, limits };
  }

  test('every hop is checked: a later hop to a refused IP literal fails', async (context) => {
    const { internal, entry, limits } = await publicLoopbackFor(context, (port) => `http://127.0.0.1:${port}/secret`);
    await assert.rejects(fetchUrl(`${entry.url}/start`, limits), { code: 'url_not_allowed' });
    assert.deepEqual(entry.requests, ['/start']);
    assert.deepEqual(internal.requests, []);
  });

  test('every hop is checked: a later hop to a NAME resolving to a refused address fails', async (context) => {
    const { internal, entry, limits } = await publicLoopbackFor(context, (port) => `http://localhost:${port}/secret`);
    await assert.rejects(fetchUrl(`${entry.url}/start`, limits), { code: 'url_not_allowed', message: /non-public/ });
    assert.deepEqual(entry.requests, ['/start']);
    assert.deepEqual(internal.requests, []);
  });
});

describe('fetchUrl: size cap', () => {
  test('a body of exactly maxBytes is accepted, one byte more is refused', async (context) => {
    const site = await siteFor(context, {
      '/fits': { contentType: 'text/plain', body: 'x'.repeat(1_000) },
      '/over': { contentType: 'text/plain', body: 'x'.repeat(1_001) },
    });
    assert.equal((await fetchUrl(`${site.url}/fits`, { ...allowPrivate, maxBytes: 1_000 })).bytes.length, 1_000);
    await assert.rejects(fetchUrl(`${site.url}/over`, { ...allowPrivate, maxBytes: 1_000 }), { code: 'source_too_large' });
  });

  test('an endless body without content-length is cut off while streaming and its socket closed', { timeout: 15_000 }, async (context) => {
    const maxBytes = 256 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let written = 0;
    let resolveClosed: () => void = () => {};
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
    const server = await serverFor(context, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => {
        response.write(chunk);
        written += chunk.length;
      }, 5);
      response.on('close', () => {
        clearInterval(timer);
        resolveClosed();
      });
    });
    await assert.rejects(fetchUrl(`${server.url}/endless`, { ...allowPrivate, maxBytes, timeoutMs: 10_000 }), {
      code: 'source_too_large',
      message: new RegExp(`over the ${maxBytes}-byte limit`),
    });
    await closed;
    // Socket buffers may hold some megabytes in flight; an unbounded read would never stop.
    assert.ok(written < 16 * 1024 * 1024, `server wrote ${written} bytes before the socket closed`);
  });

  test('a declared content-length over the cap is refused before reading the body', { timeout: 15_000 }, async (context) => {
    let resolveClosed: () => void = () => {};
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
    const server = await serverFor(context, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(50 * 1024 * 1024) });
      response.write('a few bytes, then nothing for a long while');
      response.on('close', () => resolveClosed());
    });
    const { settled, elapsedMs } = await timed(fetchUrl(`${server.url}/huge`, { ...allowPrivate, maxBytes: 1_000_000, timeoutMs: 10_000 }));
    assert.equal(settled.status, 'rejected');
    if (settled.status === 'rejected') {
      assert.equal((settled.reason as { code?: string }).code, 'source_too_large');
      assert.match((settled.reason as Error).message, /is 52428800 bytes, over the 1000000-byte limit/);
    }
    assert.ok(elapsedMs < 5_000, `took ${Math.round(elapsedMs)} ms`);
    await closed;
  });
});

describe('fetchUrl: time-out', () => {
  test('a server that accepts and never answers ends with fetch_failed naming the time-out', { timeout: 10_000 }, async (context) => {
    const server = await silentServerFor(context);
    await assert.rejects(fetchUrl(`${server.url}/`, { ...allowPrivate, timeoutMs: 300 }), {
      code: 'fetch_failed',
      message: /did not answer within 300 ms/,
    });
    assert.equal(server.connections(), 1);
  });

  test('a server that sends headers and then stalls the body ends with fetch_failed', { timeout: 10_000 }, async (context) => {
    const server = await serverFor(context, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('partial');
    });
    await assert.rejects(fetchUrl(`${server.url}/`, { ...allowPrivate, timeoutMs: 300 }), {
      code: 'fetch_failed',
      message: /did not answer within 300 ms/,
    });
  });

  test('a refused connection ends with fetch_failed naming the cause, without an upstreamStatus', async () => {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    if (address === null || typeof address === 'string') throw new Error('probe has no port');
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    await assert.rejects(fetchUrl(`http://127.0.0.1:${address.port}/`, allowPrivate), {
      code: 'fetch_failed',
      message: /ECONNREFUSED/,
      upstreamStatus: undefined,
    });
  });
});

describe('fetchUrl: stopped by its signal', () => {
  test('a signal aborted mid-body rejects with its reason at once and closes the connection', { timeout: 10_000 }, async (context) => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const server = await serverFor(context, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('partial');
      response.on('close', closed);
    });
    const controller = new AbortController();
    const reason = new KnowledgeError('request_aborted', 'the client left');
    const fetching = fetchUrl(`${server.url}/`, allowPrivate, controller.signal);
    await delay(50);
    const abortedAt = performance.now();
    controller.abort(reason);
    await assert.rejects(fetching, (error: unknown) => error === reason);
    await connectionClosed;
    assert.ok(performance.now() - abortedAt < 1_000, 'the download went on after the signal');
  });

  test('a signal aborted before the start fetches nothing', async (context) => {
    const server = await serverFor(context, (_request, response) => response.end('never asked'));
    const reason = new KnowledgeError('shutting_down', 'closing');
    await assert.rejects(fetchUrl(`${server.url}/`, allowPrivate, AbortSignal.abort(reason)), (error: unknown) => error === reason);
    assert.deepEqual(server.requests, []);
  });
});

describe('fetchUrl: HTTP error statuses', () => {
  for (const status of [400, 403, 404, 410, 500, 503]) {
    test(`HTTP ${status} ends with fetch_failed naming the status, kept as upstreamStatus`, async (context) => {
      const site = await siteFor(context, { '/page': { status, body: 'error page' } });
      await assert.rejects(fetchUrl(`${site.url}/page`, allowPrivate), {
        code: 'fetch_failed',
        message: new RegExp(`answered HTTP ${status}`),
        upstreamStatus: status,
      });
    });
  }

  test('an unknown path on the site (404) ends with fetch_failed', async (context) => {
    const site = await siteFor(context, {});
    await assert.rejects(fetchUrl(`${site.url}/missing`, allowPrivate), { code: 'fetch_failed', message: /HTTP 404/ });
  });

  test('a 3xx without a Location is an error status, not a redirect', async (context) => {
    const site = await siteFor(context, { '/moved': { status: 300, body: 'choose' } });
    await assert.rejects(fetchUrl(`${site.url}/moved`, allowPrivate), { code: 'fetch_failed', message: /HTTP 300/ });
  });
});
