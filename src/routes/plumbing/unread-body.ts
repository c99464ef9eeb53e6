// A request answered before its body was read to the end (a multipart form the parser gave up on, a refused body)
// has the rest of its body drained once the answer is sent, so its keep-alive connection stays usable.
//
// Node's HTTP server drains ("dumps") an unread body by itself only when nothing has started reading it. Node 22
// and later count a pipe into a parser as reading (Node 20 did not), so after @fastify/multipart unpipes a form it
// could not parse, the rest of the body stayed paused in the socket: the next request on that connection was never
// read and closing the server waited for it forever.
import type { FastifyInstance } from 'fastify';

export function installUnreadBodyRelease(app: FastifyInstance, maxBodyBytes: number): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const body = request.raw;
    if (body.readableEnded || body.destroyed) return payload;
    // A body of unknown or excessive length is not worth reading to the end: the connection closes after the answer.
    const declaredLength = Number(request.headers['content-length']);
    if (!body.complete && !(declaredLength <= maxBodyBytes)) reply.header('connection', 'close');
    body.resume();
    return payload;
  });
}
