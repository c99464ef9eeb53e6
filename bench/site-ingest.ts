// Ingests a development site into the namespace of its name through POST /tools/ingest (unchanged files are skipped,
// so a cached storage makes it quick), then waits until the namespace is embedded: until then searches are lexical.
import type { Site } from './sites.js';

const filesPerRequest = 50;

/** The notice of a hybrid search of the namespace (a fallback to lexical ranking while it is embedded), if any. */
async function searchNotice(baseUrl: string, namespace: string): Promise<string | undefined> {
  const response = await fetch(`${baseUrl}/tools/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ namespace, query: 'install', mode: 'hybrid' }),
  });
  return ((await response.json()) as { notice?: string }).notice;
}

export async function ingestSite(baseUrl: string, site: Site, report: (message: string) => void): Promise<void> {
  const started = performance.now();
  const files = await site.files();
  let saved = 0;
  let empty = 0;
  for (let start = 0; start < files.length; start += filesPerRequest) {
    const response = await fetch(`${baseUrl}/tools/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        namespace: site.name,
        sources: files.slice(start, start + filesPerRequest).map((path) => ({ type: 'file', path })),
      }),
    });
    const body = (await response.json()) as { documents: { status: string }[]; errors: { code: string }[] };
    // Pages that hold no text (API reference stubs a doc-site generator fills in at build time) are expected.
    const failed = (body.errors ?? []).filter((error) => error.code !== 'document_empty');
    if (!response.ok || failed.length > 0)
      throw new Error(
        `ingest of ${site.name} failed (HTTP ${response.status}): ${JSON.stringify(failed.length > 0 ? failed : body).slice(0, 1000)}`,
      );
    empty += body.errors.length;
    saved += body.documents.filter((document) => document.status !== 'skipped').length;
  }
  const waitStarted = performance.now();
  while (await searchNotice(baseUrl, site.name)) {
    if (performance.now() - waitStarted > 900_000) throw new Error(`${site.name} was still being embedded after 15 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  report(
    `${site.name}: ${files.length} files (${empty} without text), ${saved} (re)ingested, ready in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
