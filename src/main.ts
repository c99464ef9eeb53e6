// Entry point: load the configuration from the environment (stopping with one line per problem) and start the service.
import { ConfigError, loadConfig } from './config.js';
import { configErrorLines, startService } from './start-service.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(configErrorLines(error));
      process.exit(1);
    }
    throw error;
  }
  await startService(config);
}

main().catch((error: unknown) => {
  console.error(`knowledge-agent: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
