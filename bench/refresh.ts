// What a refresh of a registered source costs (issue 27): a local docs site of 500 pages (a few KB each) added as a
// crawl source and as a sitemap source, then refreshed unchanged, then refreshed after 10 pages were edited. Prints,
// for each kind, the bytes the site sent (headers included), the chunks embedded and the time of the first ingest and of each refresh,
// with the ratios the issue bounds: an unchanged refresh under 5% of the first ingest's bytes, 0 chunks re-embedded,
// under 10% of its time; after the edits, only the edited pages' chunks re-embedded.
// Everything runs in this process: the service (in-process HTTP through inject), the provider double for embeddings
// (hashed vectors, no model) and the site on loopback.
// Run: npm run bench:refresh -- [--pages 500] [--edited 10]
import { parseArgs } from 'node:util';
import { docsPageHtml, docsSitePages, startChangingDocsSite } from '../test/support/changing-docs-site.js';
import { startServiceWithProvider } from '../test/support/service.js';

const { values: flags } = parseArgs({ options: { pages: { type: 'string', default: '500' }, edited: { type: 'string', default: '10' } } });
const pageCount = Number(flags.pages);
const editedCount = Number(flags.edited);
if (!Number.isInteger(pageCount) || pageCount < 20 || pageCount > 999) throw new Error('--pages must be a whole number from 20 to 999');
if (!Number.isInteger(editedCount) || editedCount < 1 || editedCount > pageCount)
  throw new Error(`--edited must be from 1 to ${pageCount}`);

interface Summary {
  checked: number;
  unchanged: number;
  updated: number;
  added: number;
  removed: number;
  failed: unknown[];
}

const { service, provider } = await startServiceWithProvider();
const embeddedChunks = () =>
  provider.embeddingRequests().reduce((total, request) => total + ((request.body as { input?: unknown[] }).input?.length ?? 0), 0);

async function measure(site: Awaited<ReturnType<typeof startChangingDocsSite>>, run: () => Promise<Response>) {
  site.resetCounts();
  const embeddedBefore = embeddedChunks();
  const started = performance.now();
  const response = await run();
  const seconds = (performance.now() - started) / 1000;
  const body = (await response.json()) as { source?: { last_refresh: Summary }; refreshes?: { last_refresh: Summary }[] };
  if (response.status >= 300) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body)}`);
  const summary = body.source?.last_refresh ?? body.refreshes?.[0]?.last_refresh;
  if (summary === undefined) throw new Error(`no refresh summary in ${JSON.stringify(body)}`);
  const totals = site.totals();
  return {
    seconds,
    bytes: site.wireBytes(),
    bodyBytes: totals.bodyBytes,
    requests: totals.requests,
    notModified: totals.notModified,
    embedded: embeddedChunks() - embeddedBefore,
    summary,
  };
}

const describe = (label: string, run: Awaited<ReturnType<typeof measure>>) => {
  const { checked, unchanged, updated, added, removed, failed } = run.summary;
  console.log(
    `  ${label.padEnd(18)} ${run.seconds.toFixed(2).padStart(6)} s  ${(run.bytes / 1024).toFixed(0).padStart(6)} KB sent (${(run.bodyBytes / 1024).toFixed(0)} KB of bodies)  ` +
      `${String(run.requests).padStart(4)} requests (${run.notModified} x 304)  ${String(run.embedded).padStart(5)} chunks embedded  ` +
      `[checked ${checked}, unchanged ${unchanged}, updated ${updated}, added ${added}, removed ${removed}, failed ${failed.length}]`,
  );
};

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;

try {
  for (const kind of ['crawl', 'sitemap'] as const) {
    const site = await startChangingDocsSite(docsSitePages(pageCount));
    const namespace = `refresh-${kind}`;
    try {
      const source =
        kind === 'crawl' ? { url: site.startUrl, crawl: { maxPages: 1000, maxDepth: 3 } } : { url: site.sitemapUrl, kind: 'sitemap' };
      console.log(`${kind} source, ${pageCount} pages:`);
      const first = await measure(site, () => service.post(`/api/sources/${namespace}`, source));
      describe('first ingest', first);
      const unchanged = await measure(site, () => service.post(`/api/sources/${namespace}/refresh`, {}));
      describe('unchanged refresh', unchanged);
      const step = Math.floor(pageCount / editedCount);
      for (let index = 0; index < editedCount; index++) {
        const number = 1 + index * step;
        site.setPage(`/docs/page-${number}.html`, docsPageHtml(number, pageCount, 1));
      }
      const edited = await measure(site, () => service.post(`/api/sources/${namespace}/refresh`, {}));
      describe(`${editedCount} pages edited`, edited);
      const chunksPerPage = first.embedded / Math.max(1, first.summary.added);
      console.log(
        `  unchanged refresh: ${percent(unchanged.bytes, first.bytes)} of the first ingest's bytes (bound 5%), ` +
          `${unchanged.embedded} chunks re-embedded (bound 0), ${percent(unchanged.seconds, first.seconds)} of its time (bound 10%)`,
      );
      console.log(
        `  after ${editedCount} edits: ${edited.embedded} chunks re-embedded for ${edited.summary.updated} updated pages ` +
          `(~${(edited.embedded / Math.max(1, edited.summary.updated)).toFixed(1)} a page; ${chunksPerPage.toFixed(1)} a page at the first ingest)`,
      );
    } finally {
      await site.close();
    }
  }
} finally {
  await service.dispose();
}
