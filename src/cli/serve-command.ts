// `knowledge-agent serve`: runs the service in this process, as `npm start` does (dist/main.js), with the options
// taking the place of their variables in the configuration.
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { CliError, exitCodes } from './cli-error.js';
import { defaultPort, integerOption, parseCommandLine, type Command, type CommandContext } from './command-options.js';

const help = `Usage: knowledge-agent serve [--host HOST] [--port PORT] [--storage PATH]

Starts the Knowledge Agent service in the foreground (Ctrl-C stops it). It is configured by the
environment, as described in the README (LLM_API_KEY, KNOWLEDGE_AGENT_MODEL, ...); the options
below set the corresponding variables.

Options:
      --host HOST        address to listen on (HOST, default 127.0.0.1)
  -p, --port PORT        port to listen on (PORT, default ${defaultPort})
      --storage PATH     storage folder (KNOWLEDGE_AGENT_STORAGE_PATH, default ./knowledge)
  -h, --help             show this help

Example:
  KNOWLEDGE_AGENT_MODEL=extractive knowledge-agent serve --port 3000`;

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the service (the same as npm start)',
  help,
  async run(args: readonly string[], context: CommandContext): Promise<number> {
    const { values } = parseCommandLine('serve', () =>
      parseArgs({
        args: [...args],
        options: {
          host: { type: 'string' },
          port: { type: 'string', short: 'p' },
          storage: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        allowPositionals: false,
        strict: true,
      }),
    );
    if (values.help === true) {
      context.stdout.write(`${help}\n`);
      return exitCodes.ok;
    }
    const port = integerOption('port', values.port, 0, 65535, 'serve');
    // The options are validated with the rest of the configuration, as the variables they replace.
    const overrides = { HOST: values.host, PORT: port?.toString(), KNOWLEDGE_AGENT_STORAGE_PATH: values.storage };
    const environment = { ...context.env };
    for (const [name, value] of Object.entries(overrides)) if (value !== undefined) environment[name] = value;
    // Loaded on use: the whole service, and zod with the configuration's schema (a third of a plain command's start-up),
    // would otherwise load for every command, `--help` included.
    const [{ ConfigError, loadConfig }, { configErrorLines, startService }] = await Promise.all([
      import('../config.js'),
      import('../start-service.js'),
    ]);
    let config: Config;
    try {
      config = loadConfig(environment, context.cwd);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      context.stderr.write(configErrorLines(error));
      return exitCodes.failure;
    }
    try {
      await startService(config);
    } catch (error) {
      throw new CliError(`failed to start: ${error instanceof Error ? error.message : String(error)}`, exitCodes.failure, { cause: error });
    }
    // The service keeps the process running until a signal stops it, and then exits itself.
    return new Promise<number>(() => {});
  },
};
