// Failures the command line reports as one line on stderr: `knowledge-agent: <message>`, with an exit code.

/** Exit codes: 1 for a failure (the server's or the network's), 2 for a command line that is not valid. */
export const exitCodes = { ok: 0, failure: 1, usage: 2 } as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = exitCodes.failure,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** A command line that cannot be run: unknown option, missing argument, bad value. */
export class UsageError extends CliError {
  constructor(
    message: string,
    /** The command whose `--help` explains it; undefined for the top level. */
    readonly command?: string,
  ) {
    super(message, exitCodes.usage);
    this.name = 'UsageError';
  }
}

/** An error body from the service's catalogue (`{"error":{"code","message"}}`). */
export class ServerError extends CliError {
  constructor(
    readonly code: string,
    readonly serverMessage: string,
    readonly status: number,
    /** Seconds the service asked to wait (429 `Retry-After`). */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${code}: ${serverMessage}`);
    this.name = 'ServerError';
  }
}
