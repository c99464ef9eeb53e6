// Entry point: load the configuration (stopping with one line per problem), start the server, stop cleanly on signals.
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

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
  const app = await buildApp(config);
  const shutdown = (signal: string) => {
    app.log.info(`${signal} received, closing`);
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
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
