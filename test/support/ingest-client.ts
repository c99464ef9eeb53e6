// Ingests one text through either ingest route and reads back the stored file and its status in one shape.
import { basename } from 'node:path';

export type IngestRoute = '/tools/ingest' | '/api/tools/ingest';

export interface IngestedText {
  readonly file: string;
  readonly status: 'saved' | 'skipped';
}

export interface TextSource {
  readonly text: string;
  readonly title: string;
}

type Post = (path: string, body: unknown) => Promise<Response>;

interface Variant1Response {
  documents: { path: string; status: 'saved' | 'skipped' }[];
  errors: unknown[];
}

interface Variant2Response {
  files: { file: string; status: 'saved' | 'skipped' }[];
  errors: unknown[];
}

/**
 * Sends the sources in one request; resolves with one result per source, in order. Rejects when the
 * request does not complete (connection lost) or is not a 200 with every source stored.
 */
export async function ingestTexts(
  post: Post,
  route: IngestRoute,
  namespace: string,
  sources: readonly TextSource[],
): Promise<IngestedText[]> {
  const response = await post(route, {
    namespace,
    sources: sources.map((source) => ({ type: 'text', value: source.text, title: source.title })),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${route} answered ${response.status}: ${text}`);
  if (route === '/tools/ingest') {
    const body = JSON.parse(text) as Variant1Response;
    if (body.errors.length > 0 || body.documents.length !== sources.length) throw new Error(`${route} did not store every source: ${text}`);
    return body.documents.map((document) => ({ file: basename(document.path), status: document.status }));
  }
  const body = JSON.parse(text) as Variant2Response;
  if (body.errors.length > 0 || body.files.length !== sources.length) throw new Error(`${route} did not store every source: ${text}`);
  return body.files.map((file) => ({ file: file.file, status: file.status }));
}

export interface SearchDocsResponse {
  results: { file: string; title: string; score: number; excerpt: string }[];
  warnings: string[];
}

export async function searchDocs(post: Post, namespace: string, query: string, limit = 5): Promise<SearchDocsResponse> {
  const response = await post('/api/tools/searchDocs', { namespace, query, limit });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`searchDocs answered ${response.status}: ${text}`);
  return JSON.parse(text) as SearchDocsResponse;
}
