// `knowledge-agent search <query>`: numbered matches with title, source, score and a short excerpt.
import { parseArgs } from 'node:util';
import { UsageError, exitCodes } from './cli-error.js';
import { KnowledgeAgentClient } from './client.js';
import {
  choiceOption,
  connectionHelp,
  connectionOptions,
  integerOption,
  parseCommandLine,
  resolveConnection,
  type Command,
  type CommandContext,
} from './command-options.js';

const modes = ['hybrid', 'embedding', 'lexical'] as const;

const help = `Usage: knowledge-agent search <query> [--namespace NAME] [--mode MODE] [--limit N] [--json]

Searches a namespace (POST /tools/search) and prints the best matches, numbered.

Options:
  -n, --namespace NAME   namespace to search (default: the service's default namespace)
  -m, --mode MODE        hybrid (default), embedding or lexical
  -l, --limit N          number of matches, 0 to 20 (default: the service's KNOWLEDGE_AGENT_TOP_K)
      --json             print the service's JSON response

${connectionHelp}

Example:
  knowledge-agent search "how do I rotate tokens" --namespace handbook --limit 3`;

interface SearchResponse {
  namespace: string;
  query: string;
  mode?: string;
  notice?: string;
  matches: { chunk_id: string; score: number; source: string; title: string; preview: string }[];
}

const excerptLength = 160;

/** The preview on one line, cut at a word near `excerptLength`. */
export function shortExcerpt(text: string, length = excerptLength): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= length) return flat;
  const cut = flat.slice(0, length);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > length * 0.6 ? cut.slice(0, lastSpace) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

export function formatMatches(response: SearchResponse): string {
  if (response.matches.length === 0) return `no matches for "${response.query}" in namespace ${response.namespace}\n`;
  const width = String(response.matches.length).length;
  return response.matches
    .map((match, index) => {
      const indent = ' '.repeat(width + 2);
      return [
        `${String(index + 1).padStart(width)}. ${match.title}  (score ${match.score.toFixed(3)})`,
        `${indent}${match.source}`,
        `${indent}${shortExcerpt(match.preview)}`,
      ].join('\n');
    })
    .join('\n\n')
    .concat('\n');
}

export const searchCommand: Command = {
  name: 'search',
  summary: 'search a namespace and print the best matches',
  help,
  async run(args: readonly string[], context: CommandContext): Promise<number> {
    const { values, positionals } = parseCommandLine('search', () =>
      parseArgs({
        args: [...args],
        options: {
          ...connectionOptions,
          namespace: { type: 'string', short: 'n' },
          mode: { type: 'string', short: 'm' },
          limit: { type: 'string', short: 'l' },
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
    const query = positionals.join(' ').trim();
    if (query === '') throw new UsageError('search: give a query, e.g. knowledge-agent search "how do I rotate tokens"', 'search');
    const mode = choiceOption('mode', values.mode, modes, 'search') ?? 'hybrid';
    const limit = integerOption('limit', values.limit, 0, 20, 'search');
    const client = new KnowledgeAgentClient(resolveConnection(values, context.env, 'search'));

    const response = await client.json<SearchResponse>('/tools/search', {
      body: {
        query,
        mode,
        ...(values.namespace === undefined ? {} : { namespace: values.namespace }),
        ...(limit === undefined ? {} : { top_k: limit }),
      },
    });
    if (values.json === true) {
      context.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
      return exitCodes.ok;
    }
    if (response.notice !== undefined) context.stderr.write(`note: ${response.notice}\n`);
    context.stdout.write(formatMatches(response));
    return exitCodes.ok;
  },
};
