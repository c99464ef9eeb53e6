// Maps every failure to the contract's JSON error body and status; unknown errors become a generic 500.
import type { FastifyError, FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { KnowledgeError, errorBody, isKnowledgeError, type ErrorCode } from '../../errors.js';

const codeOfStatus: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

function describeValidation(error: FastifyError): string {
  if (hasZodFastifySchemaValidationErrors(error)) {
    return error.validation
      .map((issue) => {
        const field = issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'body';
        return `${field}: ${issue.message}`;
      })
      .join('; ');
  }
  return error.message;
}

/** A KnowledgeError as it is; anything else is logged with the request id and becomes a generic internal error. */
export function knownFailure(request: FastifyRequest, error: unknown): KnowledgeError {
  if (isKnowledgeError(error)) return error;
  request.log.error({ err: error }, 'unexpected error');
  return new KnowledgeError('internal_error', `an unexpected error occurred (request ${request.id})`);
}

/** The methods that have a route at this path (HEAD where GET has one); empty for an unknown path. */
function allowedMethods(app: FastifyInstance, methods: ReadonlySet<string>, path: string): string[] {
  return [...methods].filter((method) => app.findRoute({ method: method as HTTPMethods, url: path }) !== null).sort();
}

/** Any error a route or hook raised, as the catalogue's failure it stands for (validation, body limits, unknown errors). */
export function toKnowledgeError(request: FastifyRequest, error: FastifyError): KnowledgeError {
  if (isKnowledgeError(error)) return error;
  if (hasZodFastifySchemaValidationErrors(error) || error.validation !== undefined) {
    return new KnowledgeError('invalid_request', describeValidation(error));
  }
  const code = codeOfStatus[error.statusCode ?? 500];
  if (code !== undefined) {
    const message =
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? 'the request body is larger than the service accepts'
        : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? `unsupported content type ${JSON.stringify(request.headers['content-type'] ?? '')}; send application/json`
          : error instanceof SyntaxError || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
            ? 'the body is not valid JSON'
            : error.message;
    return new KnowledgeError(code, message);
  }
  return knownFailure(request, error);
}

export function installErrorHandling(app: FastifyInstance): void {
  // Every method some route takes, so a wrong method on a known path can be told from an unknown path.
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) methods.add(method.toUpperCase());
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = allowedMethods(app, methods, path);
    if (allowed.length > 0) {
      void reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send(errorBody('method_not_allowed', `${path} does not take ${request.method}; it takes ${allowed.join(', ')}`));
      return;
    }
    void reply.code(404).send(errorBody('not_found', `no route ${request.method} ${path}`));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = toKnowledgeError(request, error);
    return reply.code(failure.status).send(errorBody(failure.code, failure.message));
  });
}
