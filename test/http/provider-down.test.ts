// An embedding provider that is down does not stop ingestion: documents are stored without vectors, found lexically at
// once, embedding searches say they are waiting, and the vectors are filled in once the provider answers again.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readStoredIndex } from '../support/namespace-folder.js';
import type { ProviderDouble } from '../support/provider-double.js';
import { startServiceWithProvider, type TestService } from '../support/service.js';

const namespace = 'outage';

interface SearchResponse {
  mode: string;
  matches: { title: string }[];
  notice?: string;
}

describe('an embedding provider that is down', () => {
  let provider: ProviderDouble;
  let service: TestService;

  before(async () => {
    ({ provider, service } = await startServiceWithProvider());
    provider.setEmbeddingsDown(503);
  });

  after(async () => {
    await service?.dispose();
  });

  async function search(body: Record<string, unknown>): Promise<SearchResponse> {
    const response = await service.post('/tools/search', { namespace, ...body });
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as SearchResponse;
  }

  it('stores the documents of both ingest routes without embeddings, with a warning instead of an error', async () => {
    const variant1 = await service.post('/tools/ingest', {
      namespace,
      sources: [
        {
          type: 'text',
          title: 'Glacier Backups',
          value: '# Glacier Backups\n\nCold archives are restored with the thaw command within twelve hours.',
        },
      ],
    });
    assert.equal(variant1.status, 200);
    const body1 = (await variant1.json()) as { documents: { status: string; warning?: string }[]; errors: unknown[] };
    assert.deepEqual(body1.errors, []);
    assert.equal(body1.documents[0]?.status, 'saved');
    assert.match(body1.documents[0]?.warning ?? '', /stored without embeddings.*503/);

    const variant2 = await service.post('/api/tools/ingest', {
      namespace,
      sources: [{ type: 'markdown', title: 'Pager Rota', value: '# Pager Rota\n\nThe pager rota swaps owners every monday morning.' }],
    });
    assert.equal(variant2.status, 200);
    const body2 = (await variant2.json()) as { saved: number; files: { file: string; warning?: string }[]; errors: unknown[] };
    assert.deepEqual([body2.saved, body2.errors], [1, []]);
    assert.match(body2.files[0]?.warning ?? '', /stored without embeddings/);

    const index = await readStoredIndex(join(service.storageRoot, namespace));
    assert.equal(index.documentCount, 2);
    assert.equal(index.vectorCount, 0);
  });

  it('stops asking a provider that is down for the rest of a request', async () => {
    const before = provider.embeddingRequests().length;
    const sources = Array.from({ length: 8 }, (_, index) => ({
      type: 'text',
      title: `Outage note ${index}`,
      value: `Outage note ${index} mentions the gannet ${index} runbook.`,
    }));
    const response = await service.post('/tools/ingest', { namespace, sources });
    const body = (await response.json()) as { documents: { status: string; warning?: string }[] };
    assert.deepEqual(
      body.documents.map((document) => document.status),
      Array(8).fill('saved'),
    );
    assert.ok(body.documents.every((document) => /stored without embeddings/.test(document.warning ?? '')));
    // 4 sources run at once, each with the client's 3 retries: the other 4 find the provider already known to be down.
    const asked = provider.embeddingRequests().length - before;
    assert.ok(asked <= 16, `${asked} embedding requests for 8 sources`);
  });

  it('finds them lexically, and says embedding search is waiting for the provider', async () => {
    const lexical = (await (await service.post('/api/tools/searchDocs', { namespace, query: 'thaw cold archives' })).json()) as {
      results: { title: string }[];
    };
    assert.equal(lexical.results[0]?.title, 'Glacier Backups');

    const embedding = await search({ query: 'thaw cold archives' });
    assert.equal(embedding.mode, 'lexical');
    assert.match(embedding.notice ?? '', /not embedded yet.*503.*a later search embeds them/);
    assert.equal(embedding.matches[0]?.title, 'Glacier Backups');

    const docsSearch = (await (
      await service.post('/api/tools/searchDocs', { namespace, query: 'pager rota owners', mode: 'hybrid' })
    ).json()) as { warnings: string[] };
    assert.ok(
      docsSearch.warnings.some((warning) => /not embedded yet/.test(warning)),
      JSON.stringify(docsSearch.warnings),
    );
  });

  it('fills in the embeddings once the provider is back, and embedding search finds them', async () => {
    provider.setEmbeddingsDown(null);
    const embedding = await search({ query: 'how are cold archives restored?' });
    assert.equal(embedding.mode, 'embedding');
    assert.equal(embedding.notice, undefined);
    assert.equal(embedding.matches[0]?.title, 'Glacier Backups');
    const index = await readStoredIndex(join(service.storageRoot, namespace));
    assert.equal(index.pendingChunkCount, 0, 'the vectors are stored, not just computed for this search');
  });
});
