// The OpenAI-compatible embedding client against the loopback provider double: a caller's signal stops the embedding
// of a document at once, cancelling the requests under way and starting no further batch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KnowledgeError } from '../../src/errors.js';
import { createOpenAiCompatible } from '../../src/providers/openai-compatible.js';
import { startProviderDouble, type ProviderDouble } from '../support/provider-double.js';
import { testApiKey } from '../support/service.js';
import { until } from '../support/until.js';

describe('OpenAI-compatible embeddings stopped by a signal', () => {
  let provider: ProviderDouble;

  before(async () => {
    // Slow enough that the signal always comes while the first batches are under way.
    provider = await startProviderDouble({ embeddingDelayMs: 5_000 });
  });

  after(async () => {
    await provider.close();
  });

  it('rejects with the reason at once, cancels the batches under way and starts no other', { timeout: 10_000 }, async () => {
    const { embeddings } = createOpenAiCompatible({
      apiKey: testApiKey,
      baseUrl: provider.baseUrl,
      chatModel: 'gpt-test',
      embeddingModel: 'text-embedding-3-small',
      temperature: 0,
      embeddingBatchSize: 1,
      embeddingConcurrency: 2,
    });
    const controller = new AbortController();
    const reason = new KnowledgeError('request_aborted', 'the client left');
    const embedding = embeddings.embed(
      Array.from({ length: 10 }, (_, index) => `chunk ${index}`),
      controller.signal,
    );
    await until(() => provider.embeddingRequestsInFlight === 2, 'two batches under way');
    const abortedAt = performance.now();
    controller.abort(reason);
    await assert.rejects(embedding);
    assert.ok(performance.now() - abortedAt < 1_000, 'waited for the batches under way');
    await until(() => provider.embeddingRequestsInFlight === 0, 'the provider to see the requests cancelled', 2_000);
    assert.equal(provider.embeddingRequests().length, 2, 'a further batch was sent after the signal');
  });
});
