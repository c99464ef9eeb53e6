// A docs site on loopback that tests edit between requests, for refresh tests and benchmarks: strong ETags,
// Last-Modified and 304s, a generated /sitemap.xml with each page's lastmod, and per-path counts of what was sent.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** What the site answered one path, since it started or since resetCounts. */
export interface PathCounts {
  readonly requests: number;
  /** Requests answered 304. */
  readonly notModified: number;
  /** Body bytes sent, error pages included. */
  readonly bodyBytes: number;
}

export interface ChangingDocsSite {
  readonly url: string;
  /** `${url}/docs/`, where a crawl starts. */
  readonly startUrl: string;
  /** `${url}/sitemap.xml`: every page with its lastmod. */
  readonly sitemapUrl: string;
  /** Adds or replaces a page (a new ETag and Last-Modified when the HTML differs); ends a removal or failure of it. */
  setPage(path: string, html: string): void;
  /** The page answers 404 from now on, or 410 when asked, and leaves the sitemap. */
  removePage(path: string, status?: 404 | 410): void;
  /** The page answers `status` (503, 500…) until setPage or recoverPage; it stays in the sitemap. */
  failPage(path: string, status: number): void;
  /** A failing page answers as before it failed. */
  recoverPage(path: string): void;
  counts(path: string): PathCounts;
  /** Counts over every path (robots.txt and the sitemap included). */
  totals(): PathCounts;
  /** Bytes written to the network (status lines, headers and bodies), since it started or since resetCounts. */
  wireBytes(): number;
  resetCounts(): void;
  close(): Promise<void>;
}

interface StoredPage {
  readonly html: string;
  readonly etag: string;
  /** Milliseconds since the epoch, whole seconds (HTTP dates have no finer unit). */
  readonly modifiedAt: number;
}

const emptyCounts: PathCounts = { requests: 0, notModified: 0, bodyBytes: 0 };

function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110: If-None-Match wins over If-Modified-Since; the weak comparison is the one If-None-Match uses. */
function isNotModified(request: IncomingMessage, etag: string, modifiedAt: number): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || tag.trim().replace(/^W\//, '') === etag);
  }
  const ifModifiedSince = Date.parse(request.headers['if-modified-since'] ?? '');
  return Number.isFinite(ifModifiedSince) && modifiedAt <= ifModifiedSince;
}

function sitemapOf(siteUrl: string, pages: ReadonlyMap<string, StoredPage>): string {
  const entries = [...pages].map(
    ([path, page]) => `<url><loc>${siteUrl}${path}</loc><lastmod>${new Date(page.modifiedAt).toISOString()}</lastmod></url>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</urlset>\n`;
}

/** Starts the site on 127.0.0.1 with `pages` (path → HTML), e.g. those of docsSitePages. */
export async function startChangingDocsSite(pages: Readonly<Record<string, string>> = {}): Promise<ChangingDocsSite> {
  const stored = new Map<string, StoredPage>();
  const gone = new Map<string, number>();
  const failing = new Map<string, number>();
  const countsByPath = new Map<string, PathCounts>();
  // Every change gets a later second than the one before, so If-Modified-Since tells apart changes a test makes at once.
  let lastChangeAt = 0;
  const nextChange = (): number => {
    lastChangeAt = Math.max(Math.floor(Date.now() / 1000) * 1000, lastChangeAt + 1000);
    return lastChangeAt;
  };

  const count = (path: string, notModified: boolean, bodyBytes: number): void => {
    const before = countsByPath.get(path) ?? emptyCounts;
    countsByPath.set(path, {
      requests: before.requests + 1,
      notModified: before.notModified + (notModified ? 1 : 0),
      bodyBytes: before.bodyBytes + bodyBytes,
    });
  };

  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    const answer = (status: number, headers: Record<string, string>, body: string): void => {
      const bytes = Buffer.from(body);
      response.writeHead(status, { ...headers, 'content-length': String(bytes.length) });
      response.end(bytes);
      count(path, false, bytes.length);
    };
    const failure = failing.get(path) ?? gone.get(path);
    const page: StoredPage | undefined = path === '/sitemap.xml' ? sitemapPage() : stored.get(path);
    if (failure !== undefined || page === undefined) {
      answer(failure ?? 404, { 'content-type': 'text/plain' }, `HTTP ${failure ?? 404} for ${path}`);
      return;
    }
    const validators = { etag: page.etag, 'last-modified': new Date(page.modifiedAt).toUTCString() };
    if (isNotModified(request, page.etag, page.modifiedAt)) {
      response.writeHead(304, validators);
      response.end();
      count(path, true, 0);
      return;
    }
    const contentType = path.endsWith('.xml') ? 'application/xml' : 'text/html; charset=utf-8';
    answer(200, { ...validators, 'content-type': contentType }, page.html);
  });

  /** The sitemap changes whenever a page does. */
  const sitemapPage = (): StoredPage => {
    const html = sitemapOf(siteUrl, stored);
    return { html, etag: etagOf(html), modifiedAt: lastChangeAt };
  };

  const setPage = (path: string, html: string): void => {
    gone.delete(path);
    failing.delete(path);
    if (stored.get(path)?.html === html) return;
    stored.set(path, { html, etag: etagOf(html), modifiedAt: nextChange() });
  };

  const sockets = new Set<Socket>();
  let closedSocketBytes = 0;
  let wireBytesAtReset = 0;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      closedSocketBytes += socket.bytesWritten;
    });
  });
  const wireBytesSoFar = () => closedSocketBytes + [...sockets].reduce((total, socket) => total + socket.bytesWritten, 0);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('site has no port');
  const siteUrl = `http://127.0.0.1:${address.port}`;
  for (const [path, html] of Object.entries(pages)) setPage(path, html);

  return {
    url: siteUrl,
    startUrl: `${siteUrl}/docs/`,
    sitemapUrl: `${siteUrl}/sitemap.xml`,
    setPage,
    removePage: (path, status = 404) => {
      if (stored.delete(path)) nextChange();
      gone.set(path, status);
    },
    failPage: (path, status) => failing.set(path, status),
    recoverPage: (path) => failing.delete(path),
    counts: (path) => countsByPath.get(path) ?? emptyCounts,
    totals: () =>
      [...countsByPath.values()].reduce(
        (sum, counts) => ({
          requests: sum.requests + counts.requests,
          notModified: sum.notModified + counts.notModified,
          bodyBytes: sum.bodyBytes + counts.bodyBytes,
        }),
        emptyCounts,
      ),
    wireBytes: () => wireBytesSoFar() - wireBytesAtReset,
    resetCounts: () => {
      countsByPath.clear();
      wireBytesAtReset = wireBytesSoFar();
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const words = (
  'the configuration file sets each option of the service before it starts and every request reads the values ' +
  'once a client sends a query the index ranks matching sections by their terms and returns the best passages ' +
  'install the package with your package manager then run the command line tool to create a project folder ' +
  'errors carry a code and a message that says how to fix the problem so that logs stay readable for operators ' +
  'a plugin registers routes hooks and decorators which run in the order they were added to the application ' +
  'caching keeps responses for a while and validators let clients ask whether a page changed since they saw it'
).split(' ');

/** Deterministic prose: paragraph `index` of page `page`. */
function paragraph(page: number, index: number): string {
  let state = page * 7919 + index * 104_729 + 1;
  const picked: string[] = [];
  for (let word = 0; word < 70; word++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    picked.push(words[state % words.length] as string);
  }
  const sentence = picked.join(' ');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}

/** The HTML of docs page `number` of a site of `count` pages: a nav to the index and its neighbours, then a few KB of text. */
export function docsPageHtml(number: number, count: number, revision = 0): string {
  const neighbours = [number - 1, number + 1].filter((other) => other >= 1 && other <= count);
  const nav = ['<a href="/docs/">Index</a>', ...neighbours.map((other) => `<a href="/docs/page-${other}.html">Page ${other}</a>`)];
  const sections = Array.from(
    { length: 4 },
    (_, section) =>
      `<h2>Part ${section + 1}</h2><p>${paragraph(number, section * 2 + revision * 100)}</p><p>${paragraph(number, section * 2 + 1 + revision * 100)}</p>`,
  );
  return `<!doctype html><html><head><title>Page ${number}</title></head><body><nav>${nav.join(' ')}</nav><main><h1>Page ${number}${revision === 0 ? '' : ` (revision ${revision})`}</h1>${sections.join('')}</main></body></html>`;
}

/** A site of `count` docs pages (`/docs/page-1.html`…) and an index at `/docs/` linking to all of them. */
export function docsSitePages(count: number): Record<string, string> {
  const links = Array.from({ length: count }, (_, index) => `<li><a href="/docs/page-${index + 1}.html">Page ${index + 1}</a></li>`);
  const pages: Record<string, string> = {
    '/docs/': `<!doctype html><html><head><title>Docs</title></head><body><main><h1>Docs</h1><ul>${links.join('')}</ul></main></body></html>`,
  };
  for (let number = 1; number <= count; number++) pages[`/docs/page-${number}.html`] = docsPageHtml(number, count);
  return pages;
}
