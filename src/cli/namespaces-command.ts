// `knowledge-agent namespaces`: the namespaces the token may read, with their document and chunk counts.
import { parseArgs } from 'node:util';
import { exitCodes } from './cli-error.js';
import { KnowledgeAgentClient } from './client.js';
import {
  connectionHelp,
  connectionOptions,
  parseCommandLine,
  resolveConnection,
  type Command,
  type CommandContext,
} from './command-options.js';

const help = `Usage: knowledge-agent namespaces [--json]

Lists the namespaces (GET /tools/namespaces) with their documents, chunks and embedding model.
With read tokens configured, only the namespaces the token may read are listed.

Options:
      --json             print the service's JSON response

${connectionHelp}`;

interface NamespaceSummary {
  name: string;
  documents: number;
  chunks: number;
  embedding_model: string | null;
}

/** A table with a header; numbers right-aligned. */
export function formatNamespaceTable(namespaces: readonly NamespaceSummary[]): string {
  const header = ['NAMESPACE', 'DOCUMENTS', 'CHUNKS', 'EMBEDDING MODEL'];
  const rows = namespaces.map((namespace) => [
    namespace.name,
    String(namespace.documents),
    String(namespace.chunks),
    namespace.embedding_model ?? '-',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const numeric = [false, true, true, false];
  const format = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (numeric[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [format(header), ...rows.map(format)].join('\n').concat('\n');
}

export const namespacesCommand: Command = {
  name: 'namespaces',
  summary: 'list namespaces with their document and chunk counts',
  help,
  async run(args: readonly string[], context: CommandContext): Promise<number> {
    const { values } = parseCommandLine('namespaces', () =>
      parseArgs({ args: [...args], options: { ...connectionOptions, json: { type: 'boolean' } }, allowPositionals: false, strict: true }),
    );
    if (values.help === true) {
      context.stdout.write(`${help}\n`);
      return exitCodes.ok;
    }
    const client = new KnowledgeAgentClient(resolveConnection(values, context.env, 'namespaces'));
    const response = await client.json<{ namespaces: NamespaceSummary[] }>('/tools/namespaces');
    if (values.json === true) context.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
    else if (response.namespaces.length === 0)
      context.stdout.write('no namespaces yet; add documents with: knowledge-agent ingest <paths> --namespace NAME\n');
    else context.stdout.write(formatNamespaceTable(response.namespaces));
    return exitCodes.ok;
  },
};
