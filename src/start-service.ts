// Runs the service in this process from a loaded configuration: shared by the entry point (main.ts) and the command
// line's `serve`, so both start, report and stop it the same way.
import { buildApp } from './app.js';
import type { Config, ConfigError } from './config.js';
import { shutdownDeadlineMs } from './lifecycle/graceful-shutdown.js';

/** What an operator reads for a configuration the service cannot start with: one line per problem. */
export function configErrorLines(error: ConfigError): string {
  return error.problems.map((problem) => `knowledge-agent: invalid configuration: ${problem}\n`).join('');
}

/**
 * Builds the app and resolves once it listens (rejects, with the app closed, when it cannot). From then on the process
 * belongs to the service: SIGTERM or SIGINT closes it and ends the process (0 once closed, 1 if closing fails or
 * outlasts the deadline).
 */
export async function startService(config: Config): Promise<void> {
  const app = await buildApp(config, { processMetrics: true });
  // Streams end with a final event, in-flight ingests finish, queued writes complete; then exit 0. A second signal
  // (the default handler, since these are `once`) or the deadline stops the process at once.
  const shutdown = (signal: string) => {
    app.log.info(`${signal} received, shutting down`);
    setTimeout(() => {
      app.log.error(`shutdown did not finish within ${shutdownDeadlineMs / 1000} s; exiting`);
      process.exit(1);
    }, shutdownDeadlineMs);
    app.close().then(
      () => {
        app.log.info('shutdown complete');
        process.exit(0);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // Closed, so nothing it opened keeps the process alive (the caller reports the error and exits).
    await app.close();
    throw error;
  }
  const address = app.server.address();
  if (address !== null && typeof address !== 'string') {
    // Where a person goes next; an unspecified host is reached through loopback from this machine.
    const host = ['0.0.0.0', '::'].includes(address.address)
      ? 'localhost'
      : address.family === 'IPv6'
        ? `[${address.address}]`
        : address.address;
    const base = `http://${host}:${address.port}`;
    app.log.info(`playground at ${base}/, API reference at ${base}/docs (OpenAPI: ${base}/openapi.json)`);
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
