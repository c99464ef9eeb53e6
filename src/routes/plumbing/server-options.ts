// The HTTP server's own options: body limit, connection time-outs, and the catalogue's JSON error body for requests
// that fail before routing (a malformed URL) or before Fastify sees them (bytes Node's HTTP parser refuses, time-outs).
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyHttpOptions, FastifyReply } from 'fastify';
import type { Config } from '../../config.js';
import { errorBody, errorCatalogue, type ErrorCode } from '../../errors.js';

const reasonPhrases: Partial<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** What Node's HTTP parser or its time-out check reported, as a catalogue error. */
function clientErrorOf(code: string | undefined): { code: ErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large', message: 'the request line or headers are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'the request was not received in time' };
    default:
      return { code: 'invalid_request', message: 'the request is not valid HTTP' };
  }
}

/** Answers on the raw socket, then closes it: the connection's state is unknown after a parser error. */
function answerClientError(error: Error, socket: Socket): void {
  if (!socket.writable) return;
  const { code, message } = clientErrorOf((error as NodeJS.ErrnoException).code);
  const status = errorCatalogue[code].status;
  const body = JSON.stringify(errorBody(code, message));
  socket.end(
    `HTTP/1.1 ${status} ${reasonPhrases[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export function serverOptions(config: Config): FastifyHttpOptions<Server> {
  const { timeouts } = config;
  return {
    bodyLimit: config.limits.maxBodyBytes,
    // Past Fastify's 100 characters the router refuses a path parameter before its schema can name it.
    routerOptions: { maxParamLength: 500 },
    // Node checks the headers and request time-outs on an interval (30 s by default): often enough to honour them.
    http: {
      headersTimeout: timeouts.headersMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(timeouts.headersMs / 4))),
    },
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionTimeout: timeouts.idleMs,
    // Requests that arrive while closing get the catalogue's 503 `shutting_down` (see installGracefulShutdown).
    return503OnClosing: false,
    frameworkErrors: (error, _request, reply) => {
      // The option's reply type is generic over every route's schema; this reply has none.
      void (reply as FastifyReply).code(400).send(errorBody('invalid_request', error.message));
    },
    clientErrorHandler: answerClientError,
  };
}
