// `knowledge-agent ingest <paths or URLs...>`: uploads documents in batches with live progress and a summary.
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServerError, UsageError, exitCodes } from './cli-error.js';
import { KnowledgeAgentClient } from './client.js';
import { collectSources, defaultBatchLimits, documentExtensions, planBatches, type Batch, type CrawlPlan } from './collect-sources.js';
import {
  connectionHelp,
  connectionOptions,
  integerOption,
  parseCommandLine,
  resolveConnection,
  type Command,
  type CommandContext,
} from './command-options.js';
import { replacedLine, summaryLine } from './ingest-progress.js';
import { createReporter, IngestTally, type IngestReporter } from './ingest-reporter.js';
import { sendBatch, type BatchOutcome } from './ingest-requests.js';

const help = `Usage: knowledge-agent ingest <path or URL>... [--namespace NAME] [--crawl [--max-pages N] [--max-depth N] [--prune]]

Uploads documents to the Knowledge Agent. Folders are walked for ${documentExtensions.join(' ')} files
(hidden folders and node_modules are left out); http(s) URLs are downloaded by the service.
Files go up in batches, so the service may run on another machine. Each file is known to the service
by its path relative to the folder given (docs/tutorial/index.md under "ingest docs" is tutorial/index.md;
a file given by itself is its name), so files of one name in different folders stay apart. Content that is
already stored is skipped; changed content replaces the previous version, and the line says which.

On a terminal a progress bar shows files, chunks, rate and time left; otherwise one line per
source is printed (saved / updated / skipped / failed). The last line is the summary:
  saved N, updated N, skipped N, failed N
The exit code is 1 when any source failed.

With --crawl, each URL is the start of a site crawl by the service: it follows the links of the same
origin under the URL's folder (or reads it as a sitemap), honouring robots.txt, and prints a line per page.
With --prune as well, the documents of pages under that folder that a complete crawl no longer finds are
removed (printed as "removed"); a crawl cut short by --max-pages removes nothing.

Options:
  -n, --namespace NAME   namespace to ingest into (default: the service's default namespace)
      --crawl            crawl the site from each URL given
      --max-pages N      with --crawl: at most N pages per URL, 1 to 1000 (default 50)
      --max-depth N      with --crawl: follow links at most N steps from the URL, 0 to 10 (default 2)
      --prune            with --crawl: remove the documents of pages the crawl no longer finds
      --base-url URL     the site the files are published on: each is cited by its page there
                         (guide/x.md under the folder given is URL/guide/x, guide/index.md is URL/guide/)

${connectionHelp}

Examples:
  knowledge-agent ingest docs/ --namespace handbook
  knowledge-agent ingest README.md https://example.com/guide.html
  knowledge-agent ingest https://docs.example.com/guide/ --crawl --max-pages 200 --prune -n guide
  knowledge-agent ingest docs/ --base-url https://docs.example.com/ -n handbook`;

/** The crawl the options ask for, or undefined without --crawl (the crawl options alone are a usage error). */
function crawlPlan(values: { crawl?: boolean; prune?: boolean; 'max-pages'?: string; 'max-depth'?: string }): CrawlPlan | undefined {
  const maxPages = integerOption('max-pages', values['max-pages'], 1, 1000, 'ingest');
  const maxDepth = integerOption('max-depth', values['max-depth'], 0, 10, 'ingest');
  if (values.crawl !== true) {
    const given = [
      values.prune === true ? '--prune' : undefined,
      maxPages === undefined ? undefined : '--max-pages',
      maxDepth === undefined ? undefined : '--max-depth',
    ].filter((option) => option !== undefined);
    if (given.length > 0) throw new UsageError(`${given.join(', ')}: only with --crawl (they bound a crawl of the URLs given)`, 'ingest');
    return undefined;
  }
  return { ...(maxPages === undefined ? {} : { maxPages }), ...(maxDepth === undefined ? {} : { maxDepth }), prune: values.prune === true };
}

/** Errors that every further request would meet too: the run stops at the first. */
const fatalCodes = new Set(['unauthorized', 'forbidden', 'invalid_namespace', 'invalid_request', 'not_found']);
const maxRateLimitRetries = 5;

async function runBatch(
  client: KnowledgeAgentClient,
  batch: Batch,
  namespace: string | undefined,
  reporter: IngestReporter,
): Promise<void> {
  // Kept across retries of the batch: an outcome already shown is not shown again.
  const reported = new Set<string>();
  const report = (outcome: BatchOutcome) => {
    const source = batch.sources[outcome.index];
    const key = `${outcome.index} ${outcome.page ?? ''}`;
    if (source === undefined || reported.has(key)) return;
    reported.add(key);
    reporter.outcome({
      label: outcome.page ?? source.label,
      status: outcome.status,
      ...(outcome.chunks === undefined ? {} : { chunks: outcome.chunks }),
      ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
      ...(outcome.replaced === undefined ? {} : { replaced: { file: outcome.replaced.file, ingestedAt: outcome.replaced.ingested_at } }),
      ...(outcome.warning === undefined ? {} : { warning: outcome.warning }),
    });
  };
  for (let attempt = 0; ; attempt++) {
    try {
      await sendBatch(client, batch, namespace, report);
      return;
    } catch (error) {
      if (!(error instanceof ServerError) || fatalCodes.has(error.code)) throw error;
      if (error.code === 'rate_limited' && attempt < maxRateLimitRetries) {
        const seconds = error.retryAfterSeconds ?? 5;
        reporter.notice(`rate limited by the service; retrying in ${seconds} s`);
        await sleep(seconds * 1000);
        continue;
      }
      // The service refused this request only (too large, an internal error): its sources failed, the run goes on.
      for (const index of batch.sources.keys()) report({ index, status: 'failed', reason: error.message });
      return;
    }
  }
}

export const ingestCommand: Command = {
  name: 'ingest',
  summary: 'upload files, folders and URLs into a namespace',
  help,
  async run(args: readonly string[], context: CommandContext): Promise<number> {
    const { values, positionals } = parseCommandLine('ingest', () =>
      parseArgs({
        args: [...args],
        options: {
          ...connectionOptions,
          namespace: { type: 'string', short: 'n' },
          crawl: { type: 'boolean' },
          'max-pages': { type: 'string' },
          'max-depth': { type: 'string' },
          prune: { type: 'boolean' },
          'base-url': { type: 'string' },
        },
        allowPositionals: true,
        strict: true,
      }),
    );
    if (values.help === true) {
      context.stdout.write(`${help}\n`);
      return exitCodes.ok;
    }
    if (positionals.length === 0) throw new UsageError('ingest: give at least one file, folder or URL', 'ingest');
    const crawl = crawlPlan(values);
    const client = new KnowledgeAgentClient(resolveConnection(values, context.env, 'ingest'));
    const namespace = values.namespace;

    const collected = await collectSources(positionals, context.cwd);
    if (crawl !== undefined && !collected.sources.some((source) => source.kind === 'url'))
      throw new UsageError('--crawl: give the URL of a site to crawl (files and folders are not crawled)', 'ingest');
    const baseUrl = values['base-url'];
    if (baseUrl !== undefined) {
      if (!/^https?:\/\/[^/?#]+/i.test(baseUrl) || /[?#]/.test(baseUrl))
        throw new UsageError(
          `--base-url: ${JSON.stringify(baseUrl)} must be an http(s) URL without a query, such as https://docs.example.com/`,
          'ingest',
        );
      if (!collected.sources.some((source) => source.kind === 'file'))
        throw new UsageError('--base-url: give the files or folder whose pages are published under it', 'ingest');
    }
    if (collected.ignored > 0) {
      context.stderr.write(
        `left out ${collected.ignored} file${collected.ignored === 1 ? '' : 's'} that ${collected.ignored === 1 ? 'is' : 'are'} not ${documentExtensions.join(' ')}\n`,
      );
    }
    const total = collected.sources.length + collected.local.length;
    if (total === 0) {
      context.stderr.write(`knowledge-agent: nothing to ingest: no ${documentExtensions.join(' ')} files in ${positionals.join(' ')}\n`);
      return exitCodes.failure;
    }

    const tally = new IngestTally();
    const reporter = createReporter(context, tally);
    const interrupt = () => {
      reporter.end();
      context.stderr.write('knowledge-agent: interrupted; sources already reported are stored\n');
      process.exit(130);
    };
    process.once('SIGINT', interrupt);
    try {
      reporter.begin(total, collected.local);
      for (const batch of planBatches(collected.sources, defaultBatchLimits, {
        ...(crawl === undefined ? {} : { crawl }),
        ...(baseUrl === undefined ? {} : { baseUrl }),
      }))
        await runBatch(client, batch, namespace, reporter);
    } finally {
      reporter.end();
      process.off('SIGINT', interrupt);
    }
    const replaced = replacedLine(tally.replaced);
    if (replaced !== undefined) context.stdout.write(`${replaced}\n`);
    context.stdout.write(`${summaryLine(tally.counts)}\n`);
    return tally.counts.failed > 0 ? exitCodes.failure : exitCodes.ok;
  },
};
