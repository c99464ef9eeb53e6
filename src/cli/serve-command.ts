// `knowledge-agent serve`: runs the service in this process, exactly as `npm start` does (dist/main.js).
import { parseArgs } from 'node:util';
import { exitCodes } from './cli-error.js';
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
        options: { host: { type: 'string' }, port: { type: 'string', short: 'p' }, storage: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
        allowPositionals: false,
        strict: true,
      }),
    );
    if (values.help === true) {
      context.stdout.write(`${help}\n`);
      return exitCodes.ok;
    }
    const port = integerOption('port', values.port, 0, 65535, 'serve');
    // The service reads its configuration from the environment once, when main.js loads.
    if (values.host !== undefined) process.env.HOST = values.host;
    if (port !== undefined) process.env.PORT = String(port);
    if (values.storage !== undefined) process.env.KNOWLEDGE_AGENT_STORAGE_PATH = values.storage;
    await import('../main.js');
    // main.js keeps the process running until a signal stops it, and exits itself.
    return new Promise<number>(() => {});
  },
};
