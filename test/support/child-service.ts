// Runs the real service as a child process (the compiled main.ts, as `npm start` runs it from dist/), so a test can SIGKILL it mid-write.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { compiledEntryPoint } from './compiled-entry.js';
import { testApiKey, unhurriedConversionMs } from './service.js';
import { packageRoot } from '../../src/package-root.js';

/** Variables of the test process that must not leak into the child's configuration. */
const configurationVariable = /^(KNOWLEDGE_AGENT_|LLM_|KNOWLEDGE_DIR$|TEMPERATURE$|HOST$|PORT$)/;

export interface ChildService {
  readonly baseUrl: string;
  readonly pid: number;
  /** Everything the child wrote to stdout and stderr, line by line. */
  readonly output: string[];
  post(path: string, body: unknown): Promise<Response>;
  /** SIGKILL: no shutdown code runs. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM, the clean shutdown; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface ChildServiceOptions {
  readonly storageRoot: string;
  readonly providerUrl: string;
  readonly environment?: Record<string, string>;
  /** How long start-up may take before the test gives up (milliseconds). */
  readonly startTimeoutMs?: number;
}

/** A port nothing listens on right now (another process could still take it before the child does). */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port assigned');
  return address.port;
}

function childEnvironment(options: ChildServiceOptions, port: number): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !configurationVariable.test(name)));
  return {
    ...inherited,
    KNOWLEDGE_AGENT_STORAGE_PATH: options.storageRoot,
    KNOWLEDGE_AGENT_RATE_LIMIT: '0',
    KNOWLEDGE_AGENT_CONVERSION_TIMEOUT_MS: String(unhurriedConversionMs),
    LLM_API_KEY: testApiKey,
    LLM_BASE_URL: options.providerUrl,
    // With LLM_BASE_URL and no model named the service would embed locally; the provider double's embeddings are meant.
    KNOWLEDGE_AGENT_EMBEDDING_MODEL: 'text-embedding-3-small',
    HOST: '127.0.0.1',
    PORT: String(port),
    ...options.environment,
  };
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function launch(options: ChildServiceOptions, port: number): Promise<ChildService> {
  const child = spawn(process.execPath, [compiledEntryPoint()], {
    cwd: packageRoot,
    env: childEnvironment(options, port),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  // Both pipes are drained all the time: a full pipe would block the child's logger.
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (text: string) => {
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      output.push(...lines.filter((line) => line !== ''));
    });
    stream?.on('end', () => {
      if (pending !== '') output.push(pending);
    });
  }
  const exited = waitForExit(child);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  let running = true;
  void exited.then(() => {
    running = false;
  });
  for (;;) {
    if (!running) throw new ChildStartError(`the service exited during start-up:\n${output.join('\n')}`, output);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new ChildStartError(`the service did not answer /health within the time limit:\n${output.join('\n')}`, output);
    }
    const healthy = await fetch(`${baseUrl}/health`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (healthy) break;
    await sleep(25);
  }
  if (child.pid === undefined) throw new Error('child has no pid');
  return {
    baseUrl,
    pid: child.pid,
    output,
    post(path, body) {
      return fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

export class ChildStartError extends Error {
  constructor(
    message: string,
    readonly output: readonly string[],
  ) {
    super(message);
    this.name = 'ChildStartError';
  }
}

/** Starts the service on a free port and resolves once `/health` answers 200; retries when the port was taken meanwhile. */
export async function startChildService(options: ChildServiceOptions): Promise<ChildService> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(options, await findFreePort());
    } catch (error) {
      const portTaken = error instanceof ChildStartError && error.output.some((line) => line.includes('EADDRINUSE'));
      if (!portTaken || attempt >= 3) throw error;
    }
  }
}
