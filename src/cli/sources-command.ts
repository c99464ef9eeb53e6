// `knowledge-agent sources add|list|change|refresh|remove`: the sources a namespace keeps itself current from
// (/api/sources/:namespace), each refreshed on its schedule; `refresh` waits and prints what it found.
import { parseArgs } from 'node:util';
import { durationHelp, parseDuration } from '../insights/index.js';
import { UsageError, exitCodes } from './cli-error.js';
import { KnowledgeAgentClient } from './client.js';
import {
  connectionHelp,
  connectionOptions,
  parseCommandLine,
  resolveConnection,
  type Command,
  type CommandContext,
} from './command-options.js';

const help = `Usage: knowledge-agent sources <action> --namespace NAME [options]

Actions:
  add URL        register a source and ingest it (waits for its first refresh)
  list           the namespace's sources, their last refresh and next run
  change URL     change a source's schedule, crawl bounds or webhook secret
  refresh [URL]  refresh every source (or the one of URL) now; waits and prints what changed
  remove URL     forget a source (its documents stay unless --remove-documents)

Sources are a page, a crawl root (--crawl), a sitemap (a .xml URL) or a git repository (--git, or a
.git URL). Refreshes ask for each page conditionally (ETag, Last-Modified, the sitemap's lastmod): an
unchanged page costs no download and no embedding.

Options:
  -n, --namespace NAME       the namespace (required)
      --every DURATION       refresh on a schedule: ${durationHelp}, at least 1m (such as 30m, 6h, 1d)
      --no-schedule          (change) refresh only when asked
      --crawl                follow the site's links from URL
      --max-pages N          (crawl) pages at most, 1-1000 (default 50)
      --max-depth N          (crawl) link hops at most, 0-10 (default 2)
      --prune                (crawl) remove pages a complete refresh no longer finds
      --git                  URL is a git repository (https)
      --branch NAME          (git) the branch to follow (default main)
      --folder PATH          (git) the docs' folder inside the repository
      --include GLOB         (git) files to ingest, repeatable (default Markdown, text, HTML, PDF)
      --link-template T      (git) how files are cited: {path}, {branch}, {commit} (GitHub, GitLab built in)
      --webhook-secret S     the secret webhooks are signed with (16+ characters)
      --remove-documents     (remove) remove the source's documents too
      --json                 print the service's JSON response

${connectionHelp}

Examples:
  knowledge-agent sources add https://docs.example.com/guide/ --crawl --prune --every 6h --namespace guide
  knowledge-agent sources add https://docs.example.com/sitemap.xml --every 1d --namespace guide
  knowledge-agent sources add https://github.com/acme/handbook.git --folder docs --every 1h --namespace handbook
  knowledge-agent sources refresh --namespace guide`;

interface RefreshSummary {
  trigger: string;
  started_at: string;
  finished_at: string;
  checked: number;
  unchanged: number;
  updated: number;
  added: number;
  removed: number;
  failed: { url: string; code: string; message: string }[];
}

interface SourceResponse {
  id: string;
  kind: string;
  url: string;
  every: string | null;
  last_refresh: RefreshSummary | null;
  next_run_at: string | null;
  webhook: { path: string; secret_set: boolean };
}

const actions = ['add', 'list', 'change', 'refresh', 'remove'] as const;
type Action = (typeof actions)[number];

function seconds(summary: RefreshSummary): string {
  return `${((Date.parse(summary.finished_at) - Date.parse(summary.started_at)) / 1000).toFixed(1)} s`;
}

/** One line for a refresh, then one per failure. */
export function formatRefresh(url: string, summary: RefreshSummary): string {
  const lines = [
    `${url}: ${summary.checked} checked, ${summary.unchanged} unchanged, ${summary.updated} updated, ${summary.added} added, ` +
      `${summary.removed} removed, ${summary.failed.length} failed (${seconds(summary)})`,
  ];
  for (const failure of summary.failed) lines.push(`  failed ${failure.url}: ${failure.code}: ${failure.message}`);
  return `${lines.join('\n')}\n`;
}

function formatList(namespace: string, sources: readonly SourceResponse[]): string {
  if (sources.length === 0)
    return `namespace ${namespace} has no sources; add one with: knowledge-agent sources add URL --namespace ${namespace}\n`;
  return sources
    .map((source) => {
      const last = source.last_refresh;
      return [
        `${source.url}  (${source.kind}, id ${source.id}, ${source.every === null ? 'no schedule' : `every ${source.every}`})`,
        last === null
          ? '  never refreshed'
          : `  last refresh ${last.finished_at} (${last.trigger}): ${last.checked} checked, ${last.unchanged} unchanged, ${last.updated} updated, ` +
            `${last.added} added, ${last.removed} removed, ${last.failed.length} failed`,
        ...(source.next_run_at === null ? [] : [`  next run ${source.next_run_at}`]),
        `  webhook POST ${source.webhook.path}${source.webhook.secret_set ? '' : ' (set --webhook-secret to use it)'}`,
      ].join('\n');
    })
    .join('\n')
    .concat('\n');
}

function integer(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,4}$/.test(text)) throw new UsageError(`${option} must be a whole number`, 'sources');
  return Number(text);
}

export const sourcesCommand: Command = {
  name: 'sources',
  summary: 'registered sources: add, list, change, refresh, remove',
  help,
  async run(args: readonly string[], context: CommandContext): Promise<number> {
    const { values, positionals } = parseCommandLine('sources', () =>
      parseArgs({
        args: [...args],
        options: {
          ...connectionOptions,
          namespace: { type: 'string', short: 'n' },
          every: { type: 'string' },
          'no-schedule': { type: 'boolean' },
          crawl: { type: 'boolean' },
          'max-pages': { type: 'string' },
          'max-depth': { type: 'string' },
          prune: { type: 'boolean' },
          git: { type: 'boolean' },
          branch: { type: 'string' },
          folder: { type: 'string' },
          include: { type: 'string', multiple: true },
          'link-template': { type: 'string' },
          'webhook-secret': { type: 'string' },
          'remove-documents': { type: 'boolean' },
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
    const [action, url, ...extra] = positionals;
    if (action === undefined || !actions.includes(action as Action)) {
      throw new UsageError(`give an action: ${actions.join(', ')}`, 'sources');
    }
    if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`, 'sources');
    const needsUrl = action === 'add' || action === 'change' || action === 'remove';
    if (needsUrl && url === undefined) throw new UsageError(`sources ${action} needs the source's URL`, 'sources');
    if ((action === 'list' && url !== undefined) || (action === 'list' && extra.length > 0))
      throw new UsageError('sources list takes no URL', 'sources');
    if (values.namespace === undefined || values.namespace.trim() === '') throw new UsageError('--namespace is required', 'sources');
    if (values.every !== undefined && (parseDuration(values.every) ?? 0) < 60_000) {
      throw new UsageError(`--every must be ${durationHelp}, at least 1m`, 'sources');
    }
    const client = new KnowledgeAgentClient(resolveConnection(values, context.env, 'sources'));
    const base = `/api/sources/${encodeURIComponent(values.namespace.trim())}`;
    const print = (json: unknown, text: string) => context.stdout.write(values.json === true ? `${JSON.stringify(json, null, 2)}\n` : text);
    const crawl =
      values.crawl === true || values['max-pages'] !== undefined || values['max-depth'] !== undefined || values.prune === true
        ? {
            ...(values['max-pages'] === undefined ? {} : { maxPages: integer(values['max-pages'], '--max-pages') }),
            ...(values['max-depth'] === undefined ? {} : { maxDepth: integer(values['max-depth'], '--max-depth') }),
            ...(values.prune === true ? { prune: true } : {}),
          }
        : undefined;
    const git =
      values.git === true ||
      values.branch !== undefined ||
      values.folder !== undefined ||
      values.include !== undefined ||
      values['link-template'] !== undefined
        ? {
            ...(values.branch === undefined ? {} : { branch: values.branch }),
            ...(values.folder === undefined ? {} : { folder: values.folder }),
            ...(values.include === undefined ? {} : { patterns: values.include }),
            ...(values['link-template'] === undefined ? {} : { link_template: values['link-template'] }),
          }
        : undefined;
    const secret = values['webhook-secret'] === undefined ? {} : { webhook_secret: values['webhook-secret'] };

    const sourceOf = async (sourceUrl: string): Promise<SourceResponse> => {
      const { sources } = await client.json<{ sources: SourceResponse[] }>(base);
      const found = sources.find((source) => source.url === sourceUrl);
      if (found === undefined)
        throw new UsageError(`namespace ${values.namespace} has no source ${sourceUrl} (see: knowledge-agent sources list)`, 'sources');
      return found;
    };

    switch (action as Action) {
      case 'list': {
        const response = await client.json<{ namespace: string; sources: SourceResponse[] }>(base);
        print(response, formatList(response.namespace, response.sources));
        return exitCodes.ok;
      }
      case 'add': {
        const body = {
          url,
          ...(crawl === undefined ? {} : { crawl }),
          ...(git === undefined ? {} : { git }),
          ...(values.every === undefined ? {} : { every: values.every }),
          ...secret,
        };
        const response = await client.json<{ source: SourceResponse }>(base, { body });
        const { source } = response;
        print(response, source.last_refresh === null ? `added ${source.url}\n` : formatRefresh(source.url, source.last_refresh));
        return source.last_refresh !== null &&
          source.last_refresh.checked > 0 &&
          source.last_refresh.failed.length === source.last_refresh.checked
          ? exitCodes.failure
          : exitCodes.ok;
      }
      case 'change': {
        if (values.every !== undefined && values['no-schedule'] === true)
          throw new UsageError('give --every or --no-schedule, not both', 'sources');
        const body = {
          ...(crawl === undefined ? {} : { crawl }),
          ...(git === undefined ? {} : { git }),
          ...(values.every === undefined ? {} : { every: values.every }),
          ...(values['no-schedule'] === true ? { every: null } : {}),
          ...secret,
        };
        if (Object.keys(body).length === 0)
          throw new UsageError('nothing to change: give --every, --no-schedule, crawl, git or --webhook-secret options', 'sources');
        const source = await sourceOf(url as string);
        const response = await client.json<{ source: SourceResponse }>(`${base}/${source.id}`, { method: 'PATCH', body });
        print(
          response,
          `changed ${response.source.url}: ${response.source.every === null ? 'no schedule' : `every ${response.source.every}`}\n`,
        );
        return exitCodes.ok;
      }
      case 'refresh': {
        const response = await client.json<{ refreshes: SourceResponse[] }>(`${base}/refresh`, { body: url === undefined ? {} : { url } });
        print(
          response,
          response.refreshes.length === 0
            ? `namespace ${values.namespace} has no sources to refresh\n`
            : response.refreshes
                .map((source) => (source.last_refresh === null ? '' : formatRefresh(source.url, source.last_refresh)))
                .join(''),
        );
        return exitCodes.ok;
      }
      case 'remove': {
        const source = await sourceOf(url as string);
        const response = await client.json<{ removed_documents: number }>(`${base}/${source.id}`, {
          method: 'DELETE',
          query: { remove_documents: String(values['remove-documents'] === true) },
        });
        print(
          response,
          `removed ${source.url}${values['remove-documents'] === true ? ` and its ${response.removed_documents} documents` : ''}\n`,
        );
        return exitCodes.ok;
      }
    }
  },
};
