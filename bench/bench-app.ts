// The real service for a benchmark: configured from `environment`, built, and listening on a free loopback port
// with the rate limit off (a benchmark sends bursts on purpose) and conversions in no hurry (a benchmark beside other
// work would see a large manual time out at the shipped 30 s: a benchmark measures the service, not that limit).
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';

export interface BenchApp {
  readonly app: FastifyInstance;
  readonly config: Config;
  readonly port: number;
  readonly baseUrl: string;
}

export async function startBenchApp(environment: Record<string, string | undefined>): Promise<BenchApp> {
  const config = loadConfig({
    KNOWLEDGE_AGENT_CONVERSION_TIMEOUT_MS: '600000',
    ...environment,
    HOST: '127.0.0.1',
    PORT: '0',
    KNOWLEDGE_AGENT_RATE_LIMIT: '0',
  });
  const app = await buildApp(config, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the server has no port');
  return { app, config, port: address.port, baseUrl: `http://127.0.0.1:${address.port}` };
}
