// Connections: a request answered before its body was read leaves the keep-alive connection usable; clients that
// trickle their headers, stall their body or sit idle are cut off after the configured time-outs.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../support/service.js';

/** A raw connection that collects what the server sends and notes when the server closes it. */
function rawConnection(baseUrl: string): { socket: Socket; received: () => string; closed: Promise<number> } {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  let text = '';
  socket.on('data', (data) => {
    text += data.toString('latin1');
  });
  socket.on('error', () => {});
  const opened = Date.now();
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)));
  return { socket, received: () => text, closed };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, 'timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const statusLines = (text: string) => text.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [];

describe('connections', () => {
  let service: TestService;

  before(async () => {
    service = await startService({
      apiKey: undefined,
      environment: {
        KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS: '600',
        KNOWLEDGE_AGENT_REQUEST_TIMEOUT_MS: '1500',
        KNOWLEDGE_AGENT_KEEP_ALIVE_TIMEOUT_MS: '400',
      },
    });
  });

  after(async () => {
    await service.dispose();
  });

  it('answers the next request on a connection whose previous form was refused before its body was read', async () => {
    // 200 kB fits in the socket buffers, so a client sends its next request right behind it. Node 22 stopped
    // draining such a body by itself: the connection then stalled and closing the server hung.
    const connection = rawConnection(service.baseUrl);
    const body = 'x'.repeat(200_000);
    connection.socket.write(`POST /api/tools/ingest HTTP/1.1\r\nhost: test\r\ncontent-type: multipart/form-data\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    connection.socket.write('POST /api/tools/searchDocs HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
    await waitFor(() => statusLines(connection.received()).length === 2, 5_000);
    assert.deepEqual(statusLines(connection.received()), ['HTTP/1.1 400 Bad Request', 'HTTP/1.1 400 Bad Request']);
    assert.match(connection.received(), /"code":"invalid_request","message":"query: [^"]*"}}$/);
    connection.socket.destroy();
  });
});
