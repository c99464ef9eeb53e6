// `knowledge-agent migrate --from <storage root | database URL> --to <database URL | storage root>`: copies every
// namespace, with its documents' Markdown, file names and vectors, between the folder layout and cluster mode's
// PostgreSQL. Works on the storage directly (no running service needed); copying again skips what is there already.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import { CliError, exitCodes, UsageError } from './cli-error.js';
import { parseCommandLine, type Command, type CommandContext } from './command-options.js';

const help = `Usage: knowledge-agent migrate --from <storage root | postgres URL> --to <postgres URL | storage root>

Copies every namespace (documents, their Markdown and file names, chunks and vectors, registered sources with their
refresh state, the question log) from a storage root (KNOWLEDGE_AGENT_STORAGE_PATH) into a PostgreSQL database
(KNOWLEDGE_AGENT_DATABASE_URL), or back. Nothing is re-embedded. Documents and log records already at the destination
are skipped and sources replaced, so it can be run again.
Stop the service that writes to the source first: changes made while copying may be missed.

Options:
      --from WHERE       a storage root folder, or a postgres:// URL
      --to WHERE         a postgres:// URL, or a storage root folder
  -h, --help             show this help

Example:
  knowledge-agent migrate --from ./knowledge --to postgres://agent:secret@db.internal/knowledge`;

function isDatabaseUrl(where: string): boolean {
  return /^postgres(ql)?:\/\//.test(where);
}

/** Loaded on use, so the other commands (and `--help`) do not load the store and the PostgreSQL client. */
async function openStore(where: string, context: CommandContext): Promise<KnowledgeStore> {
  const [{ chunkMarkdown }, { KnowledgeStore }, { ClusterLayout }] = await Promise.all([
    import('../ingest/chunk-markdown.js'),
    import('../store/knowledge-store.js'),
    import('../store/postgres/cluster-layout.js'),
  ]);
  const warn = (message: string) => context.stderr.write(`warning: ${message}\n`);
  if (isDatabaseUrl(where))
    return new KnowledgeStore({ layout: new ClusterLayout({ databaseUrl: where, embeddingModel: null, warn }), warn });
  // No model configured: vectors are copied as they are, whatever model made them.
  return new KnowledgeStore({ root: resolve(context.cwd, where), embeddingModel: null, chunkBody: (body) => chunkMarkdown(body), warn });
}

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'copy namespaces between a storage root and PostgreSQL (cluster mode)',
  help,
  async run(args: readonly string[], context: CommandContext): Promise<number> {
    const { values } = parseCommandLine('migrate', () =>
      parseArgs({
        args: [...args],
        options: { from: { type: 'string' }, to: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
        allowPositionals: false,
        strict: true,
      }),
    );
    if (values.help === true) {
      context.stdout.write(`${help}\n`);
      return exitCodes.ok;
    }
    if (values.from === undefined || values.to === undefined) throw new UsageError('both --from and --to are required', 'migrate');
    if (isDatabaseUrl(values.from) === isDatabaseUrl(values.to))
      throw new UsageError('one of --from and --to must be a postgres:// URL and the other a storage root', 'migrate');
    const from = await openStore(values.from, context);
    const to = await openStore(values.to, context);
    const { copyNamespaces } = await import('../store/copy-namespaces.js');
    try {
      await from.initialize();
      await to.initialize();
      const copied = await copyNamespaces(from, to, (namespace) =>
        context.stdout.write(
          `${namespace.name}: ${namespace.documents} documents (${namespace.saved} copied, ${namespace.documents - namespace.saved} already there), ${namespace.vectors} vectors, ${namespace.sources} registered sources, ${namespace.logRecords} question log records copied\n`,
        ),
      );
      context.stdout.write(`copied ${copied.length} namespaces\n`);
      return exitCodes.ok;
    } catch (error) {
      throw new CliError(`migration failed: ${(error as Error).message}`, exitCodes.failure, { cause: error });
    } finally {
      await from.close().catch(() => undefined);
      await to.close().catch(() => undefined);
    }
  },
};
