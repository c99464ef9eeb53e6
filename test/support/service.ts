// Starts the real service, with its own storage folder, for HTTP-level tests; with `startServiceWithProvider`,
// together with the provider double it uses. Requests answer in-process through Fastify's inject (the same routes,
// hooks and serialisation, whole answers, no socket). Only a test whose subject needs a socket (a stream read as it
// arrives, a client leaving, connections, shutdown, a client library or another process speaking HTTP itself) starts
// it with `listen: true`, on a free loopback port, and fetches from its `baseUrl`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { startProviderDouble, type ProviderDouble, type ProviderDoubleOptions } from './provider-double.js';
import { fixturesDirectory } from './fixtures.js';

export { fixturesDirectory };

export const testApiKey = 'sk-test-key-0123456789abcdef';

/**
 * A conversion's time limit for the tests whose subject is not time. A machine running the other test processes
 * beside one gives a conversion a fraction of a core: the R manual took 31 s beside six busy processes on two cores,
 * 3 s alone, where the service's limit is 30 s.
 */
export const unhurriedConversionMs = 300_000;

export interface TestService {
  readonly app: FastifyInstance;
  readonly config: Config;
  readonly storageRoot: string;
  /** Every log line the service wrote. */
  readonly logs: string[];
  /** Stops the server; the storage folder stays until `dispose`. */
  close(): Promise<void>;
  /** Stops the server and removes its storage folder (and stops the provider double started with it, if any). */
  dispose(): Promise<void>;
  /** Posts `body` as JSON in-process; the answer comes whole, once the service has finished it. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** A GET in-process; the answer comes whole. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** Any method in-process, with a JSON body when `body` is given. */
  send(method: InjectedMethod, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Any request in-process, given as fetch takes it (method, headers, a string, bytes or form data as body). */
  request(path: string, init?: RequestInit): Promise<Response>;
}

/** A service listening on a loopback port (`listen: true`), for a test whose subject needs a socket. */
export interface ListeningTestService extends TestService {
  readonly baseUrl: string;
}

type InjectedMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export async function makeStorageRoot(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'knowledge-agent-test-'));
}

export interface StartOptions {
  /** Provider base URL; omitted with `apiKey: undefined` for a service without a provider. */
  readonly providerUrl?: string;
  readonly apiKey?: string | undefined;
  readonly storageRoot?: string;
  readonly environment?: Record<string, string>;
  /** Listens on a free loopback port, which gives the service a `baseUrl`; without it, requests go in-process only. */
  readonly listen?: boolean;
}

interface Listening {
  readonly listen: true;
}

export interface ServiceWithProvider<Service extends TestService = TestService> {
  readonly provider: ProviderDouble;
  readonly service: Service;
}

type WithProviderOptions = Omit<StartOptions, 'providerUrl'> & { readonly provider?: ProviderDoubleOptions };

/**
 * Starts the provider double (with `provider`'s options) on a free loopback port and the service using it (listening
 * only with `listen: true`). The service's `dispose` stops the double too; `close` leaves it running, for a restart on the same storage.
 */
export function startServiceWithProvider(options: WithProviderOptions & Listening): Promise<ServiceWithProvider<ListeningTestService>>;
export function startServiceWithProvider(options?: WithProviderOptions): Promise<ServiceWithProvider>;
export async function startServiceWithProvider(options: WithProviderOptions = {}): Promise<ServiceWithProvider> {
  const { provider: providerOptions, ...serviceOptions } = options;
  const provider = await startProviderDouble(providerOptions);
  try {
    const service = await startService({ ...serviceOptions, providerUrl: provider.baseUrl });
    return {
      provider,
      service: {
        ...service,
        async dispose() {
          await service.dispose();
          await provider.close();
        },
      },
    };
  } catch (error) {
    await provider.close();
    throw error;
  }
}

export function startService(options: StartOptions & Listening): Promise<ListeningTestService>;
export function startService(options?: StartOptions): Promise<TestService>;
export async function startService(options: StartOptions = {}): Promise<TestService | ListeningTestService> {
  const storageRoot = options.storageRoot ?? (await makeStorageRoot());
  const apiKey = 'apiKey' in options ? options.apiKey : testApiKey;
  const config = loadConfig({
    KNOWLEDGE_AGENT_STORAGE_PATH: storageRoot,
    KNOWLEDGE_AGENT_FILE_ROOTS: [fixturesDirectory, storageRoot, tmpdir()].join(':'),
    KNOWLEDGE_AGENT_ALLOW_PRIVATE_URLS: 'true',
    // Tests send bursts of requests; the rate limit has a test of its own.
    KNOWLEDGE_AGENT_RATE_LIMIT: '0',
    // The tests of the time limit set their own.
    KNOWLEDGE_AGENT_CONVERSION_TIMEOUT_MS: String(unhurriedConversionMs),
    PORT: '0',
    ...(apiKey === undefined ? {} : { LLM_API_KEY: apiKey }),
    // With LLM_BASE_URL set and no embedding model named, the service embeds locally (a local server may serve no
    // embeddings); the provider double serves them, and tests that use it mean its embeddings.
    ...(options.providerUrl === undefined
      ? {}
      : { LLM_BASE_URL: options.providerUrl, KNOWLEDGE_AGENT_EMBEDDING_MODEL: 'text-embedding-3-small' }),
    ...options.environment,
  });
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(
        ...String(chunk)
          .split('\n')
          .filter((line) => line !== ''),
      );
      callback();
    },
  });
  const app = await buildApp(config, { logger: { level: 'debug', stream: logStream } });
  // Ready as listening makes it (its onReady hooks start the scheduled source refreshes), listening or not.
  await app.ready();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
  };
  const send = (method: InjectedMethod, path: string, body: unknown, headers: Record<string, string>) =>
    injectRequest(
      app,
      path,
      body === undefined
        ? { method, headers }
        : { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) },
    );
  const service: TestService = {
    app,
    config,
    storageRoot,
    logs,
    close,
    async dispose() {
      await close();
      await rm(storageRoot, { recursive: true, force: true });
    },
    post: (path, body, headers = {}) => send('POST', path, body, headers),
    get: (path, headers = {}) => send('GET', path, undefined, headers),
    send: (method, path, body, headers = {}) => send(method, path, body, headers),
    request: (path, init = {}) => injectRequest(app, path, init),
  };
  if (options.listen !== true) return service;
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  return { ...service, baseUrl: `http://127.0.0.1:${address.port}` };
}

/**
 * Sends a request, given as fetch takes it, to `app` without a socket (Fastify's inject) and gives its answer as
 * fetch would (without following redirects, and without the headers only a connection makes: connection,
 * keep-alive, transfer-encoding).
 */
async function injectRequest(app: FastifyInstance, path: string, init: RequestInit): Promise<Response> {
  // A Request turns the path (dot segments, escapes) and the body (a string, bytes, form data...) into what fetch would
  // send, with the body's content-type.
  const request = new Request(new URL(path, 'http://localhost'), init);
  const { pathname, search } = new URL(request.url);
  // As fetch does, a signal (a time limit on an answer that might never come) rejects the answer.
  const { signal } = request;
  signal.throwIfAborted();
  const injected = app.inject({
    method: request.method as HTTPMethods,
    url: `${pathname}${search}`,
    headers: Object.fromEntries(request.headers),
    ...(request.body === null ? {} : { payload: Buffer.from(await request.arrayBuffer()) }),
  });
  let stopWaiting = () => {};
  const aborted = new Promise<never>((_resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    stopWaiting = () => signal.removeEventListener('abort', abort);
  });
  const answer = await Promise.race([injected, aborted]).finally(stopWaiting);
  const answerHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) answerHeaders.append(name, String(item));
  }
  // A Response refuses a body with these statuses, even an empty one.
  const bodiless = answer.statusCode === 204 || answer.statusCode === 304;
  return new Response(bodiless ? null : answer.rawPayload, { status: answer.statusCode, headers: answerHeaders });
}
