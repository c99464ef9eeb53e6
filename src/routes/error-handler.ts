// Maps every failure to the contract's JSON error body and status; unknown errors become a generic 500.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { KnowledgeError, errorBody, isKnowledgeError, type ErrorCode } from '../errors.js';

const codeOfStatus: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
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

/** Any error a route or hook raised, as the catalogue's failure it stands for (validation, body limits, unknown errors). */
export function toKnowledgeError(request: FastifyRequest, error: FastifyError): KnowledgeError {
  if (isKnowledgeError(error)) return error;
  if (hasZodFastifySchemaValidationErrors(error) || error.validation !== undefined) {
    return new KnowledgeError('invalid_request', describeValidation(error));
  }
  const code = codeOfStatus[error.statusCode ?? 500];
  if (code !== undefined) {
    const message =
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'the request body is larger than the service accepts'
      : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? `unsupported content type ${JSON.stringify(request.headers['content-type'] ?? '')}; send application/json`
      : error instanceof SyntaxError || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'the body is not valid JSON'
      : error.message;
    return new KnowledgeError(code, message);
  }
  return knownFailure(request, error);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(errorBody('not_found', `no route ${request.method} ${request.url.split('?')[0]}`));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = toKnowledgeError(request, error);
    return reply.code(failure.status).send(errorBody(failure.code, failure.message));
  });
}
