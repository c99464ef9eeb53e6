// A small website on loopback for URL-ingestion tests: fixed pages by path, redirects, and 404 for the rest.
import { createServer } from 'node:http';

export interface SitePage {
  readonly status?: number;
  readonly contentType?: string;
  readonly body?: string | Buffer;
  /** Answers a redirect to this location. */
  readonly location?: string;
}

export interface StaticSite {
  readonly url: string;
  /** Paths requested, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startStaticSite(pages: Record<string, SitePage>): Promise<StaticSite> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push(path);
    const page = pages[path];
    if (page === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('missing');
    } else if (page.location !== undefined) {
      response.writeHead(page.status ?? 302, { location: page.location });
      response.end();
    } else {
      response.writeHead(page.status ?? 200, { 'content-type': page.contentType ?? 'text/html; charset=utf-8' });
      response.end(page.body ?? '');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('site has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
