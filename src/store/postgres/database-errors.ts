// Failures of the database connection become storage_unavailable (503): the write was not stored, try again later.
import { KnowledgeError, isKnowledgeError } from '../../errors.js';

/** SQLSTATE classes of a lost or refused connection: 08 connection exception, 57P admin shutdown / crash, 53 resources. */
const unavailableStates = /^(08|57P|53)/;
/** What node-postgres and Node say when the connection cannot be made, is cut, or times out. */
const unavailableMessages =
  /Connection terminated|connection timeout|timeout exceeded|Query read timeout|Client has encountered a connection error|not queryable|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (unavailableStates.test(code) || unavailableMessages.test(code))) return true;
  return unavailableMessages.test(error.message);
}

/** A connection failure as storage_unavailable; anything else (a bug, say) is passed on as it is. */
export function asStorageError(error: unknown): unknown {
  if (isKnowledgeError(error) || !isDatabaseUnavailable(error)) return error;
  return new KnowledgeError(
    'storage_unavailable',
    `the database is unavailable (${(error as Error).message}); nothing was stored, send the write again`,
    { cause: error, temporary: true },
  );
}
