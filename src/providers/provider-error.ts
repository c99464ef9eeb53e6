// Turns whatever a provider call threw into a KnowledgeError whose message is safe to show: never the API key.
import type { APIError, APIUserAbortError } from 'openai';
import { KnowledgeError, type ErrorCode } from '../errors.js';

/** The official client's error classes, passed in because the client is loaded only when first used. */
export interface ClientErrors {
  readonly APIError: typeof APIError;
  readonly APIUserAbortError: typeof APIUserAbortError;
}

const maxMessageLength = 300;

/** Removes the key, and the masked key fragments some providers echo back ("sk-ab****wxyz"), from a message. */
export function redactSecret(message: string, secret: string | undefined): string {
  let redacted = message.replace(/\b(sk|key|api)[-_][A-Za-z0-9*_-]*\*{3,}[A-Za-z0-9_-]*/gi, '[redacted]');
  if (secret !== undefined && secret.length > 0) redacted = redacted.split(secret).join('[redacted]');
  return redacted;
}

export function isAbort(error: unknown, errors: ClientErrors): boolean {
  return error instanceof errors.APIUserAbortError || (error instanceof Error && error.name === 'AbortError');
}

export function toProviderError(
  error: unknown,
  code: Extract<ErrorCode, 'provider_error' | 'embedding_failed'>,
  secret: string | undefined,
  errors: ClientErrors,
): KnowledgeError {
  if (error instanceof KnowledgeError) return error;
  let message: string;
  if (error instanceof errors.APIError && (error.status === 401 || error.status === 403)) {
    message = `the provider refused the credentials (HTTP ${error.status}); check LLM_API_KEY`;
  } else if (error instanceof errors.APIError && error.status !== undefined) {
    message = `the provider answered HTTP ${error.status}: ${error.message}`;
  } else {
    message = `the provider could not be reached or broke off: ${error instanceof Error ? error.message : String(error)}`;
  }
  return new KnowledgeError(code, safeProviderMessage(message, secret), { temporary: isTemporary(error, errors) });
}

/** A provider's message as it may be shown: without the key, and at most a few lines long. */
export function safeProviderMessage(message: string, secret: string | undefined): string {
  const safe = redactSecret(message, secret);
  return safe.length > maxMessageLength ? `${safe.slice(0, maxMessageLength)}…` : safe;
}

/**
 * Unreachable or timed out (the client's connection errors carry no status), overloaded, or failing on its side:
 * may pass by itself. A refusal (4xx) or a malformed answer would fail the same way again.
 */
function isTemporary(error: unknown, errors: ClientErrors): boolean {
  if (!(error instanceof errors.APIError)) return false;
  return error.status === undefined || error.status === 408 || error.status === 429 || error.status >= 500;
}
