// Connections: a request answered before its body was read leaves the keep-alive connection usable; clients that
// trickle their headers, stall their body or sit idle are cut off after the configured time-outs.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startService, type ListeningTestService } from '../support/service.js';

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
  let service: ListeningTestService;

  before(async () => {
    // Listening: raw connections (refused bodies, trickling clients, idle and keep-alive time-outs) are the subject.
    service = await startService({
      listen: true,
      apiKey: undefined,
      environment: {
        KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS: '600',
        KNOWLEDGE_AGENT_REQUEST_TIMEOUT_MS: '2000',
        KNOWLEDGE_AGENT_IDLE_TIMEOUT_MS: '800',
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
    connection.socket.write(
      `POST /api/tools/ingest HTTP/1.1\r\nhost: test\r\ncontent-type: multipart/form-data\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    connection.socket.write(
      'POST /api/tools/searchDocs HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
    );
    await waitFor(() => statusLines(connection.received()).length === 2, 5_000);
    assert.deepEqual(statusLines(connection.received()), ['HTTP/1.1 400 Bad Request', 'HTTP/1.1 400 Bad Request']);
    assert.match(connection.received(), /"code":"invalid_request","message":"query: [^"]*"}}$/);
    connection.socket.destroy();
  });

  it('cuts off a client that trickles its headers byte by byte, with a 408', async () => {
    const connection = rawConnection(service.baseUrl);
    const request = 'GET /health HTTP/1.1\r\nhost: test\r\nx-slow: ' + 'a'.repeat(200) + '\r\n\r\n';
    let sent = 0;
    // One byte every 20 ms: the connection is never idle, but the headers would take 4.5 s to arrive.
    const trickle = setInterval(() => {
      if (connection.socket.writable && sent < request.length) connection.socket.write(request[sent++] ?? '');
    }, 20);
    try {
      const closedAfter = await connection.closed;
      assert.ok(closedAfter >= 500 && closedAfter < 2_500, `closed after ${closedAfter} ms (headers time-out 600 ms)`);
      assert.ok(sent < request.length, 'the headers were cut off before they were complete');
      assert.deepEqual(statusLines(connection.received()), ['HTTP/1.1 408 Request Timeout']);
      assert.match(connection.received(), /\{"error":\{"code":"request_timeout","message":"[^"]+"\}\}$/);
    } finally {
      clearInterval(trickle);
    }
  });

  it('cuts off a client that sends its headers but trickles its body, once the request time-out passes', async () => {
    const connection = rawConnection(service.baseUrl);
    connection.socket.write(
      'POST /tools/search HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{',
    );
    const trickle = setInterval(() => connection.socket.writable && connection.socket.write(' '), 50);
    try {
      const closedAfter = await connection.closed;
      assert.ok(closedAfter >= 1_900 && closedAfter < 4_500, `closed after ${closedAfter} ms (request time-out 2000 ms)`);
      assert.deepEqual(statusLines(connection.received()), ['HTTP/1.1 408 Request Timeout']);
    } finally {
      clearInterval(trickle);
    }
  });

  it('closes a connection that goes quiet in the middle of its request, once the idle time-out passes', async () => {
    const connection = rawConnection(service.baseUrl);
    connection.socket.write('POST /tools/search HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{');
    const closedAfter = await connection.closed;
    assert.ok(closedAfter >= 700 && closedAfter < 1_900, `closed after ${closedAfter} ms (idle time-out 800 ms, request time-out 2000 ms)`);
  });

  it('closes a keep-alive connection that stays idle after its answer', async () => {
    const connection = rawConnection(service.baseUrl);
    connection.socket.write('GET /health HTTP/1.1\r\nhost: test\r\n\r\n');
    await waitFor(() => statusLines(connection.received()).length === 1, 5_000);
    assert.match(connection.received(), /^connection: keep-alive\r$/im);
    const idleSince = Date.now();
    await connection.closed;
    const idle = Date.now() - idleSince;
    assert.ok(idle >= 300 && idle < 2_000, `closed after ${idle} ms idle (keep-alive time-out 400 ms)`);
  });
});
