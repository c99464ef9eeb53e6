// Entry point: load the configuration (stopping with one line per problem), start the server, stop cleanly on signals.
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { shutdownDeadlineMs } from './lifecycle/graceful-shutdown.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) console.error(`knowledge-agent: invalid configuration: ${problem}`);
      process.exit(1);
    }
    throw error;
  }
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
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  await app.listen({ host: config.host, port: config.port });
}

main().catch((error: unknown) => {
  console.error(`knowledge-agent: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
