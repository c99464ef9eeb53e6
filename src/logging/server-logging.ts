// How the service logs: pino JSON lines; every line written while a request is handled carries its `reqId` (request
// loggers bind it, other loggers get it from the request context); credentials are redacted.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyServerOptions } from 'fastify';
import { currentRequestId } from './request-context.js';

/** A client's `x-request-id` is kept only when it is short and safe to log and echo; otherwise a UUID is made. */
const acceptedRequestId = /^[A-Za-z0-9._:-]{1,64}$/;

const redactedPaths = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  // Webhooks' shared secrets (see routes/sources/webhook-route.ts).
  'req.headers["x-gitlab-token"]',
  'req.headers["x-webhook-token"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  'headers["x-gitlab-token"]',
  'headers["x-webhook-token"]',
];

/**
 * Shorter keys are placeholders (Ollama's `ollama`, say), not secrets; scrubbing them would mangle ordinary words.
 * Real provider keys are far longer.
 */
const minimumScrubbedLength = 8;

/** Marks request loggers (and, through the prototype chain, their children), which bind `reqId` themselves. */
const requestBound = Symbol('requestBound');

export function requestIdOf(request: IncomingMessage): string {
  const supplied = request.headers['x-request-id'];
  return typeof supplied === 'string' && acceptedRequestId.test(supplied) ? supplied : randomUUID();
}

/** Replaces every occurrence of the secrets, as written or JSON-escaped, in a log line. */
function secretScrubber(secrets: readonly string[]): ((line: string) => string) | undefined {
  const forms = secrets
    .filter((secret) => secret.length >= minimumScrubbedLength)
    .flatMap((secret) => [...new Set([secret, JSON.stringify(secret).slice(1, -1)])]);
  if (forms.length === 0) return undefined;
  return (line) => forms.reduce((text, form) => (text.includes(form) ? text.replaceAll(form, '[redacted]') : text), line);
}

/**
 * The logging part of Fastify's options. `logger` is the caller's choice (false silences; tests pass a stream);
 * `secrets` (the provider key) never reach a line, even if some error message carried them.
 */
export function serverLoggingOptions(
  logger: FastifyServerOptions['logger'],
  secrets: readonly string[],
): Pick<FastifyServerOptions, 'logger' | 'genReqId' | 'childLoggerFactory'> {
  if (logger === false) return { logger: false, genReqId: requestIdOf };
  const scrub = secretScrubber(secrets);
  return {
    logger: {
      level: 'info',
      ...(typeof logger === 'object' ? logger : {}),
      redact: { paths: redactedPaths, censor: '[redacted]' },
      mixin: (_object, _level, lineLogger) => {
        if ((lineLogger as unknown as Record<symbol, unknown>)[requestBound] === true) return {};
        const requestId = currentRequestId();
        return requestId === undefined ? {} : { reqId: requestId };
      },
      ...(scrub === undefined ? {} : { hooks: { streamWrite: scrub } }),
    },
    genReqId: requestIdOf,
    childLoggerFactory: (parent, bindings, options) => {
      const child = parent.child(bindings, options);
      (child as unknown as Record<symbol, unknown>)[requestBound] = true;
      return child;
    },
  };
}
