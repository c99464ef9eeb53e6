// An ingest that runs longer than the idle time-out: with progress asked for, `working` lines keep the connection open
// until the result; without it, the idle time-out closes the connection and the ingest stops with its client, storing
// nothing. The slow part here is a page that takes 3 s to download against an idle time-out of 1.2 s; in production
// it is one large document's embedding (6 MB of Markdown: about 10,000 chunks) against the default 300 s.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServiceWithProvider, type ListeningTestService } from '../support/service.js';

const downloadMs = 3_000;

describe('an ingest longer than the idle time-out', () => {
  let service: ListeningTestService;
  let slowSite: Server;
  let slowUrl: string;

  before(async () => {
    slowSite = createServer((_request, response) => {
      void sleep(downloadMs).then(() => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(
          '<html><head><title>Slow page</title></head><body><main><h1>Slow page</h1><p>Rollbacks keep the schema.</p></main></body></html>',
        );
      });
    });
    await new Promise<void>((resolve) => slowSite.listen(0, '127.0.0.1', resolve));
    slowUrl = `http://127.0.0.1:${(slowSite.address() as { port: number }).port}`;
    // Listening: the connection's idle time-out, and the progress lines that keep it open, are the subject.
    ({ service } = await startServiceWithProvider({
      listen: true,
      environment: { KNOWLEDGE_AGENT_IDLE_TIMEOUT_MS: '1200', KNOWLEDGE_AGENT_ALLOW_PRIVATE_URLS: 'true' },
    }));
  });

  after(async () => {
    slowSite.closeAllConnections();
    slowSite.close();
    await service.dispose();
  });

  const ingest = (query: string, namespace: string, page: string) =>
    fetch(`${service.baseUrl}/api/tools/ingest${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ namespace, sources: [{ type: 'url', value: `${slowUrl}/${page}` }] }),
    });

  it('completes with progress: working lines while it runs, then the document and the result', async () => {
    const response = await ingest('?progress=ndjson', 'with-progress', 'guide');
    assert.equal(response.status, 200);
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; seconds?: number; status?: string; result?: { saved: number } });
    const working = lines.filter((line) => line.type === 'working');
    assert.ok(working.length >= 2, `working lines: ${JSON.stringify(lines)}`);
    for (const line of working) assert.ok(Number.isInteger(line.seconds) && (line.seconds as number) >= 0, JSON.stringify(line));
    assert.equal(lines.find((line) => line.type === 'document')?.status, 'saved');
    assert.deepEqual(lines.at(-1), { type: 'result', result: lines.at(-1)?.result });
    assert.equal(lines.at(-1)?.result?.saved, 1);
  });

  it('is closed by the idle time-out without progress, and stops storing nothing', async () => {
    await assert.rejects(ingest('', 'without-progress', 'other'));
    // The page arrives after the connection closed: the stopped ingest must not store it.
    await sleep(downloadMs);
    const listed = await service.get('/tools/documents?namespace=without-progress');
    if (listed.status === 200) assert.deepEqual(((await listed.json()) as { documents: unknown[] }).documents, []);
    else assert.equal(listed.status, 404);
  });
});
