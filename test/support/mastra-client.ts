// Loads Mastra's client SDK from its own folder under test/clients/ (installed by scripts/ensure-test-clients.mjs),
// the version that runs on this Node. Typed here by the few calls the tests make, so type checking never needs it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/package-root.js';

interface ClientFolders {
  mastraClientFolder(nodeVersion?: string): string;
  ensureClientFolder(folder: string): void;
}

// A computed specifier: the script is plain JavaScript without a declaration file, typed by the interface above.
const foldersModule = pathToFileURL(join(packageRoot, 'scripts', 'ensure-test-clients.mjs')).href;

export interface MastraChunk {
  type: string;
  runId: string;
  from: string;
  payload: any;
}

export interface MastraStreamResponse extends Response {
  processDataStream(options: { onChunk: (chunk: MastraChunk) => Promise<void> | void }): Promise<void>;
}

export interface MastraAgent {
  details(): Promise<any>;
  generate(params: {
    messages: unknown;
    runtimeContext?: Record<string, unknown>;
    requestContext?: Record<string, unknown>;
    [key: string]: unknown;
  }): Promise<any>;
  stream(params: {
    messages: unknown;
    runtimeContext?: Record<string, unknown>;
    requestContext?: Record<string, unknown>;
    [key: string]: unknown;
  }): Promise<MastraStreamResponse>;
  getTool(toolId: string): Promise<any>;
  executeTool(
    toolId: string,
    params: { data: unknown; runtimeContext?: Record<string, unknown>; requestContext?: Record<string, unknown> },
  ): Promise<any>;
}

export interface MastraClient {
  /** getAgents() in 0.x, listAgents() in 1.x. */
  agents(): Promise<Record<string, any>>;
  getAgent(agentId: string): MastraAgent;
  /** getTools() in 0.x, listTools() in 1.x. */
  tools(): Promise<Record<string, any>>;
  getTool(toolId: string): {
    details(): Promise<any>;
    execute(params: {
      data: unknown;
      runId?: string;
      runtimeContext?: Record<string, unknown>;
      requestContext?: Record<string, unknown>;
    }): Promise<any>;
  };
}

export interface LoadedMastraClient {
  readonly version: string;
  /** Where the client takes the caller's context: `runtimeContext` (0.x) or `requestContext` (1.x). */
  readonly contextKey: 'runtimeContext' | 'requestContext';
  create(options: { baseUrl: string; headers?: Record<string, string>; retries?: number }): MastraClient;
}

export async function loadMastraClient(): Promise<LoadedMastraClient> {
  const { ensureClientFolder, mastraClientFolder } = (await import(foldersModule)) as ClientFolders;
  const folder = mastraClientFolder();
  ensureClientFolder(folder);
  const packageFolder = join(folder, 'node_modules', '@mastra', 'client-js');
  const { version } = JSON.parse(readFileSync(join(packageFolder, 'package.json'), 'utf8')) as { version: string };
  const module = (await import(pathToFileURL(join(packageFolder, 'dist', 'index.js')).href)) as {
    MastraClient: new (options: object) => any;
  };
  const major = Number(version.split('.')[0]);
  return {
    version,
    contextKey: major >= 1 ? 'requestContext' : 'runtimeContext',
    create: (options) => {
      const client = new module.MastraClient(options);
      const getAgent = client.getAgent.bind(client);
      return Object.assign(client, {
        agents: () => (major >= 1 ? client.listAgents() : client.getAgents()),
        tools: () => (major >= 1 ? client.listTools() : client.getTools()),
        // 1.x takes the messages first and the options apart: generate(messages, options).
        getAgent: (agentId: string) => {
          const agent = getAgent(agentId);
          if (major < 1) return agent;
          const split =
            (run: (messages: unknown, options: object) => Promise<any>) =>
            ({ messages, ...rest }: { messages: unknown }) =>
              run(messages, rest);
          return Object.assign(agent, { generate: split(agent.generate.bind(agent)), stream: split(agent.stream.bind(agent)) });
        },
      }) as MastraClient;
    },
  };
}
