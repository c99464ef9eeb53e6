// Loads Mastra's client SDK from its own folder under test/clients/ (installed by scripts/ensure-test-clients.mjs),
// the version that runs on this Node. Typed here by the few calls the tests make, so type checking never needs it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface ClientFolders {
  mastraClientFolder(nodeVersion?: string): string;
  ensureClientFolder(folder: string): void;
}

// A computed specifier: the script is plain JavaScript without a declaration file, typed by the interface above.
const foldersModule = new URL('../../scripts/ensure-test-clients.mjs', import.meta.url).href;

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
  generate(params: { messages: unknown; runtimeContext?: Record<string, unknown>; requestContext?: Record<string, unknown>; [key: string]: unknown }): Promise<any>;
  stream(params: { messages: unknown; runtimeContext?: Record<string, unknown>; requestContext?: Record<string, unknown>; [key: string]: unknown }): Promise<MastraStreamResponse>;
  getTool(toolId: string): Promise<any>;
  executeTool(toolId: string, params: { data: unknown; runtimeContext?: Record<string, unknown>; requestContext?: Record<string, unknown> }): Promise<any>;
}

export interface MastraClient {
  getAgents(): Promise<Record<string, any>>;
  getAgent(agentId: string): MastraAgent;
  getTools(): Promise<Record<string, any>>;
  getTool(toolId: string): {
    details(): Promise<any>;
    execute(params: { data: unknown; runId?: string; runtimeContext?: Record<string, unknown>; requestContext?: Record<string, unknown> }): Promise<any>;
  };
}

export interface LoadedMastraClient {
  readonly version: string;
  create(options: { baseUrl: string; headers?: Record<string, string>; retries?: number }): MastraClient;
}

export async function loadMastraClient(): Promise<LoadedMastraClient> {
  const { ensureClientFolder, mastraClientFolder } = (await import(foldersModule)) as ClientFolders;
  const folder = mastraClientFolder();
  ensureClientFolder(folder);
  const packageFolder = join(folder, 'node_modules', '@mastra', 'client-js');
  const { version } = JSON.parse(readFileSync(join(packageFolder, 'package.json'), 'utf8')) as { version: string };
  const module = (await import(pathToFileURL(join(packageFolder, 'dist', 'index.js')).href)) as { MastraClient: new (options: object) => MastraClient };
  return { version, create: (options) => new module.MastraClient(options) };
}
