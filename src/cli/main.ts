#!/usr/bin/env node
// The `knowledge-agent` command line: dispatches to one module per command; every failure ends as one line on
// stderr (`knowledge-agent: ...`) and exit code 1, or 2 for a command line that is not valid.
import { packageVersion } from '../package-root.js';
import { askCommand } from './ask-command.js';
import { evalCommand } from './eval-command.js';
import { gapsCommand } from './gaps-command.js';
import { CliError, UsageError, exitCodes } from './cli-error.js';
import type { Command, CommandContext } from './command-options.js';
import { ingestCommand } from './ingest-command.js';
import { migrateCommand } from './migrate-command.js';
import { namespacesCommand } from './namespaces-command.js';
import { searchCommand } from './search-command.js';
import { serveCommand } from './serve-command.js';
import { sourcesCommand } from './sources-command.js';

const commands: readonly Command[] = [
  serveCommand,
  ingestCommand,
  searchCommand,
  askCommand,
  evalCommand,
  gapsCommand,
  namespacesCommand,
  sourcesCommand,
  migrateCommand,
];

function topLevelHelp(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return `Usage: knowledge-agent <command> [options]

Commands:
${commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join('\n')}

Run "knowledge-agent <command> --help" for a command's options.
Commands other than serve talk to a running service: --url (or $KNOWLEDGE_AGENT_URL) and
--token (or $KNOWLEDGE_AGENT_TOKEN).

Examples:
  KNOWLEDGE_AGENT_MODEL=extractive knowledge-agent serve
  knowledge-agent ingest docs/ --namespace handbook
  knowledge-agent search "token rotation" --namespace handbook
  knowledge-agent ask "how often do tokens rotate?" --namespace handbook
  knowledge-agent eval --namespace handbook --questions questions.jsonl
  knowledge-agent gaps --namespace handbook --since 30d
  knowledge-agent sources add https://docs.example.com/sitemap.xml --every 1d --namespace handbook
  knowledge-agent namespaces`;
}

export async function runCli(args: readonly string[], context: CommandContext): Promise<number> {
  const [name, ...rest] = args;
  try {
    if (name === undefined || name === '--help' || name === '-h') {
      context.stdout.write(`${topLevelHelp()}\n`);
      return name === undefined ? exitCodes.usage : exitCodes.ok;
    }
    if (name === '--version' || name === '-v') {
      context.stdout.write(`${packageVersion}\n`);
      return exitCodes.ok;
    }
    if (name === 'help') {
      const command = commands.find((candidate) => candidate.name === rest[0]);
      context.stdout.write(`${command?.help ?? topLevelHelp()}\n`);
      return command !== undefined || rest[0] === undefined ? exitCodes.ok : exitCodes.usage;
    }
    const command = commands.find((candidate) => candidate.name === name);
    if (command === undefined) {
      throw new UsageError(
        name.startsWith('-')
          ? `the command comes first, before ${name}`
          : `unknown command "${name}" (commands: ${commands.map((candidate) => candidate.name).join(', ')})`,
      );
    }
    return await command.run(rest, context);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    context.stderr.write(`knowledge-agent: ${error.message}\n`);
    if (error instanceof UsageError)
      context.stderr.write(`Run "knowledge-agent ${error.command === undefined ? '' : `${error.command} `}--help" for usage.\n`);
    return error.exitCode;
  }
}

// A reader that goes away (`| head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Not a CliError: a bug. The stack helps whoever reports it.
    console.error('knowledge-agent: unexpected error:', error);
    process.exitCode = exitCodes.failure;
  },
);
