// The README's Ollama example, run as written against a provider double that serves chat only (as a local server
// without an embedding model does): ingest embeds locally and the agent answers through the server's chat model.
// Naming an embedding model sends embeddings to the server instead.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { embeddingModelName } from '../../src/providers/select-models.js';
import { startProviderDouble, type ProviderDouble } from '../support/provider-double.js';
import { parseSseData, variant1Answer } from '../support/sse.js';
import { startService, type TestService } from '../support/service.js';
import { packageRoot } from '../../src/package-root.js';

const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');

/** The variables of the README's `... npm start` line in its Ollama section. */
function readmeOllamaEnvironment(): Record<string, string> {
  const start = readme.indexOf('## Ollama and other local servers');
  assert.ok(start >= 0, 'the README has an Ollama section');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const line = section.split('\n').find((text) => /^LLM_BASE_URL=\S+ .*npm start$/.test(text));
  assert.ok(line !== undefined, 'the Ollama section has a `LLM_BASE_URL=... npm start` line');
  return Object.fromEntries(
    line
      .replace(/ npm start$/, '')
      .split(' ')
      .map((assignment) => assignment.split('=') as [string, string]),
  );
}

describe('Ollama and other local servers', () => {
  it('chooses the embedding model from the provider settings', () => {
    const settings = { apiKey: 'key', baseUrl: undefined, chatModel: 'gpt-4o-mini', embeddingModel: undefined, temperature: 0.2 };
    assert.equal(embeddingModelName(settings), 'text-embedding-3-small', "the public provider's own model");
    assert.equal(
      embeddingModelName({ ...settings, baseUrl: 'http://localhost:11434/v1' }),
      'local',
      'a local server need not serve embeddings',
    );
    assert.equal(
      embeddingModelName({ ...settings, baseUrl: 'http://localhost:11434/v1', embeddingModel: 'nomic-embed-text' }),
      'nomic-embed-text',
    );
    assert.equal(embeddingModelName({ ...settings, apiKey: undefined }), 'local');
  });

  describe("the README's example, against a server that serves chat only", () => {
    let provider: ProviderDouble;
    let service: TestService;
    const environment = readmeOllamaEnvironment();

    before(async () => {
      assert.equal(environment.LLM_BASE_URL, 'http://localhost:11434/v1');
      provider = await startProviderDouble({ embeddingModels: [] });
      service = await startService({ apiKey: undefined, environment: { ...environment, LLM_BASE_URL: provider.baseUrl } });
    });

    after(async () => {
      await service?.dispose();
      await provider?.close();
    });

    it('ingests, embedding locally, and searches by embedding', async () => {
      const response = await service.post('/tools/ingest', {
        namespace: 'docs',
        sources: [{ type: 'text', title: 'Token rotation', value: '# Token rotation\n\nAccess tokens rotate every 90 days.' }],
      });
      const body = (await response.json()) as { documents: { status: string }[]; errors: unknown[] };
      assert.equal(response.status, 200);
      assert.deepEqual(body.errors, []);
      assert.deepEqual(
        body.documents.map((document) => document.status),
        ['saved'],
      );

      const search = (await (await service.post('/tools/search', { namespace: 'docs', query: 'how often do tokens rotate?' })).json()) as {
        mode: string;
        matches: { title: string }[];
      };
      assert.equal(search.mode, 'embedding');
      assert.equal(search.matches[0]?.title, 'Token rotation');
      assert.equal(provider.embeddingRequests().length, 0, 'nothing was asked of the chat-only server');
    });

    it("answers through the server's chat model", async () => {
      const response = await service.post('/agent', { messages: [{ role: 'user', content: '@knowledge how often do tokens rotate?' }] });
      const text = variant1Answer(parseSseData(await response.text()));
      assert.match(text, /rotate every 90 days \[1\]/);
      assert.match(text, /Sources: Token rotation$/);
      assert.equal(provider.chatRequests().at(-1)?.body.model, environment.KNOWLEDGE_AGENT_MODEL);
    });
  });

  it("embeds with the server's model when one is named", async () => {
    const provider = await startProviderDouble({ embeddingModels: ['nomic-embed-text'] });
    const service = await startService({
      apiKey: undefined,
      environment: { ...readmeOllamaEnvironment(), LLM_BASE_URL: provider.baseUrl, KNOWLEDGE_AGENT_EMBEDDING_MODEL: 'nomic-embed-text' },
    });
    try {
      const response = await service.post('/tools/ingest', {
        sources: [{ type: 'text', title: 'Backups', value: 'Backups run nightly.' }],
      });
      assert.deepEqual(((await response.json()) as { errors: unknown[] }).errors, []);
      assert.deepEqual(
        provider.embeddingRequests().map((request) => request.body.model),
        ['nomic-embed-text'],
      );
    } finally {
      await service.dispose();
      await provider.close();
    }
  });
});
