// `knowledge-agent ask <question>`: streams the agent's cited answer (POST /agent, Variant 1 SSE) to the terminal.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { containsMention } from '../agent/mention.js';
import { CliError, ServerError, UsageError, exitCodes } from './cli-error.js';
import { brokenStreamError, KnowledgeAgentClient } from './client.js';
import {
  connectionHelp,
  connectionOptions,
  parseCommandLine,
  resolveConnection,
  type Command,
  type CommandContext,
} from './command-options.js';
import { readSseData } from './stream-reader.js';

const defaultMention = '@knowledge';

const help = `Usage: knowledge-agent ask <question> [--namespace NAME] [--mention TEXT] [--json]

Asks the agent (POST /agent) and prints its answer as it streams, with citations [1] and a last
line "Sources: ...". The search it runs first is shown on stderr. The agent answers only messages
that mention it, so the mention is put in front of the question when it is missing.

Options:
  -n, --namespace NAME   namespace to answer from (default: the service's default namespace)
      --mention TEXT     the service's mention (default: $KNOWLEDGE_AGENT_MENTION, else ${defaultMention})
      --json             print one JSON object at the end: question, search query, answer, matches

${connectionHelp}

Example:
  knowledge-agent ask "how often do tokens rotate?" --namespace handbook`;

/** The Variant 1 events (CONTRACT section 3). */
type Variant1Event =
  | { type: 'tool_call_start'; tool_call_id: string; tool_name: string; args: { query?: string; namespace?: string } }
  | { type: 'tool_call_result'; tool_call_id: string; result: { matches?: unknown[] } | null; is_frontend_tool: boolean }
  | { type: 'text_message'; delta: string }
  | { type: 'error'; message: string; code: string };

/** The question as the agent must see it: with its mention. */
export function withMention(question: string, mention: string): string {
  return containsMention(question, mention) ? question : `${mention} ${question}`;
}

export const askCommand: Command = {
  name: 'ask',
  summary: 'ask the agent a question and stream its cited answer',
  help,
  async run(args: readonly string[], context: CommandContext): Promise<number> {
    const { values, positionals } = parseCommandLine('ask', () =>
      parseArgs({
        args: [...args],
        options: {
          ...connectionOptions,
          namespace: { type: 'string', short: 'n' },
          mention: { type: 'string' },
          json: { type: 'boolean' },
        },
        allowPositionals: true,
        strict: true,
      }),
    );
    if (values.help === true) {
      context.stdout.write(`${help}\n`);
      return exitCodes.ok;
    }
    const question = positionals.join(' ').trim();
    if (question === '') throw new UsageError('ask: give a question, e.g. knowledge-agent ask "how often do tokens rotate?"', 'ask');
    const mention = (values.mention ?? context.env.KNOWLEDGE_AGENT_MENTION)?.trim() || defaultMention;
    const client = new KnowledgeAgentClient(resolveConnection(values, context.env, 'ask'));
    const json = values.json === true;

    const response = await client.send('/agent', {
      headers: { accept: 'text/event-stream' },
      body: {
        thread_id: `cli-${randomUUID()}`,
        run_id: `cli-${randomUUID()}`,
        messages: [{ role: 'user', content: withMention(question, mention) }],
        ...(values.namespace === undefined ? {} : { tool_params: { namespace: values.namespace } }),
      },
    });
    if (response.body === null) throw new CliError('the service sent an empty answer');

    let answer = '';
    let query: string | undefined;
    let searched: string | undefined;
    let matches: unknown[] = [];
    let events = 0;
    let done = false;
    // The search line is finished when its result arrives; anything that comes first ends it.
    let searchLineOpen = false;
    const endSearchLine = () => {
      if (searchLineOpen) context.stderr.write('\n');
      searchLineOpen = false;
    };
    try {
      for await (const data of readSseData(response.body)) {
        if (data === '[DONE]') {
          done = true;
          break;
        }
        const event = JSON.parse(data) as Variant1Event;
        events++;
        switch (event.type) {
          case 'tool_call_start':
            query = event.args.query;
            searched = event.args.namespace;
            if (!json) context.stderr.write(`searching "${event.args.query ?? ''}"`);
            searchLineOpen = !json;
            break;
          case 'tool_call_result':
            matches = event.result?.matches ?? [];
            if (searchLineOpen) context.stderr.write(` -> ${matches.length} snippet${matches.length === 1 ? '' : 's'}\n`);
            searchLineOpen = false;
            break;
          case 'text_message':
            endSearchLine();
            answer += event.delta;
            if (!json) context.stdout.write(event.delta);
            break;
          case 'error':
            endSearchLine();
            if (!json && answer !== '' && !answer.endsWith('\n')) context.stdout.write('\n');
            throw new ServerError(event.code, event.message, response.status);
        }
      }
    } catch (error) {
      endSearchLine();
      if (error instanceof CliError) throw error;
      if (error instanceof SyntaxError) throw new CliError('the service sent an event that is not JSON', undefined, { cause: error });
      throw brokenStreamError(client.connection.baseUrl, error);
    }
    endSearchLine();
    if (!json && answer !== '' && !answer.endsWith('\n')) context.stdout.write('\n');
    if (!done) throw new CliError('the answer stream ended before [DONE]: the answer may be incomplete');
    if (events === 0) {
      throw new CliError(
        `the agent did not answer: it answers only messages that mention it, and "${mention}" is not its mention (pass --mention)`,
      );
    }
    if (json) context.stdout.write(`${JSON.stringify({ question, query: query ?? null, answer, matches }, null, 2)}\n`);
    // Nothing found may mean the namespace does not exist (a typo): that is an error, for scripts as for people.
    if (matches.length === 0 && searched !== undefined) {
      const listing = await client.json<{ namespaces: { name: string }[] }>('/tools/namespaces');
      if (!listing.namespaces.some((namespace) => namespace.name === searched))
        throw new CliError(`there is no namespace "${searched}" (knowledge-agent namespaces lists them)`);
    }
    return exitCodes.ok;
  },
};
