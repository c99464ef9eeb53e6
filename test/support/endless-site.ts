// A documentation site on loopback that never ends: every page under /docs/ links to `fanOut` further pages, generated
// on request, so a crawl of it stops only at its limits or when it is stopped. Logs every request with its time.
import { createServer } from 'node:http';

export interface EndlessSiteOptions {
  /** New pages each page links to (default 5). */
  readonly fanOut?: number;
  /** How long each page takes to answer (milliseconds, default 0). */
  readonly delayMs?: number;
}

export interface SiteRequest {
  readonly path: string;
  /** performance.now() when it arrived. */
  readonly at: number;
}

export interface EndlessSite {
  readonly url: string;
  /** The start page of a crawl. */
  readonly startUrl: string;
  readonly requests: SiteRequest[];
  /** Requests for pages (robots.txt left out). */
  pageRequests(): SiteRequest[];
  close(): Promise<void>;
}

function pageBody(number: number, fanOut: number): string {
  const links = Array.from({ length: fanOut }, (_, offset) => number * fanOut + offset + 1)
    .map((next) => `<li><a href="/docs/page-${next}.html">Page ${next}</a></li>`)
    .join('');
  return `<!doctype html><html><head><title>Page ${number}</title></head><body><main><h1>Page ${number}</h1>
    <p>Page ${number} of the endless guide explains setting number ${number} of the widget.</p><ul>${links}</ul></main></body></html>`;
}

export async function startEndlessSite(options: EndlessSiteOptions = {}): Promise<EndlessSite> {
  const fanOut = options.fanOut ?? 5;
  const requests: SiteRequest[] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push({ path, at: performance.now() });
    const match = /^\/docs\/(?:page-(\d+)\.html)?$/.exec(path);
    const answer = () => {
      if (match === null) {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('missing');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(pageBody(Number(match[1] ?? 0), fanOut));
    };
    if ((options.delayMs ?? 0) > 0) setTimeout(answer, options.delayMs).unref();
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('site has no port');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    startUrl: `${url}/docs/`,
    requests,
    pageRequests: () => requests.filter((request) => request.path !== '/robots.txt'),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
