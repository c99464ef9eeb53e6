// What every command shares: its context (streams, environment), option parsing with usage errors, and the
// connection to the service (--url, --token and their environment defaults).
import { UsageError } from './cli-error.js';

/** The service's default port; kept in step with PORT's default in src/config.ts by a test. */
export const defaultPort = 3000;

export interface CommandContext {
  readonly stdout: NodeJS.WritableStream & { readonly isTTY?: boolean; readonly columns?: number };
  readonly stderr: NodeJS.WritableStream & { readonly isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

export interface Command {
  readonly name: string;
  /** One line for the top-level help. */
  readonly summary: string;
  /** The command's `--help` text. */
  readonly help: string;
  /** Resolves with the exit code; failures are thrown as CliError. */
  run(args: readonly string[], context: CommandContext): Promise<number>;
}

/** The options of every command that talks to the service. */
export const connectionOptions = {
  url: { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const connectionHelp = `Connection:
  --url URL        the service (default: $KNOWLEDGE_AGENT_URL, else http://127.0.0.1:${defaultPort})
  --token TOKEN    bearer token for a protected service (default: $KNOWLEDGE_AGENT_TOKEN)
  -h, --help       show this help`;

/** Runs a util.parseArgs call, turning its errors into usage errors for `command`. */
export function parseCommandLine<Result>(command: string, parse: () => Result): Result {
  try {
    return parse();
  } catch (error) {
    // Node's messages add advice about `--`; the first sentence is the useful part.
    const message = error instanceof Error ? (error.message.split(/\.\s/)[0] ?? error.message).replace(/\.$/, '') : String(error);
    throw new UsageError(message, command);
  }
}

export interface Connection {
  /** Always ends with `/`, so paths resolve under a prefix (`https://host/knowledge/`). */
  readonly baseUrl: URL;
  readonly token: string | undefined;
}

export function resolveConnection(
  values: { url?: string | undefined; token?: string | undefined },
  env: NodeJS.ProcessEnv,
  command: string,
): Connection {
  const text = values.url ?? (env.KNOWLEDGE_AGENT_URL?.trim() || `http://127.0.0.1:${defaultPort}`);
  let baseUrl: URL;
  try {
    baseUrl = new URL(text);
  } catch {
    throw new UsageError(`--url: ${JSON.stringify(text)} is not a URL`, command);
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:')
    throw new UsageError(`--url: ${JSON.stringify(text)} must be an http(s) URL`, command);
  if (!baseUrl.pathname.endsWith('/')) baseUrl.pathname += '/';
  const token = (values.token ?? env.KNOWLEDGE_AGENT_TOKEN)?.trim();
  if (token !== undefined && /\s/.test(token)) throw new UsageError('--token: a token cannot contain spaces', command);
  return { baseUrl, token: token === '' ? undefined : token };
}

/** A whole number within bounds, from an option's text. */
export function integerOption(
  name: string,
  text: string | undefined,
  minimum: number,
  maximum: number,
  command: string,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < minimum || value > maximum) {
    throw new UsageError(`--${name}: must be a whole number from ${minimum} to ${maximum} (got ${JSON.stringify(text)})`, command);
  }
  return value;
}

/** One option among fixed choices. */
export function choiceOption<Choice extends string>(
  name: string,
  text: string | undefined,
  choices: readonly Choice[],
  command: string,
): Choice | undefined {
  if (text === undefined) return undefined;
  if (!(choices as readonly string[]).includes(text))
    throw new UsageError(`--${name}: must be one of ${choices.join(', ')} (got ${JSON.stringify(text)})`, command);
  return text as Choice;
}
