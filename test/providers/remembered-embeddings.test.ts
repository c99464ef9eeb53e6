// The remembering embedding model in front of the extractive answerer: texts embedded once while they are among the
// most recently used, only the others sent (in one call), vectors given back in the order asked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EmbeddingModel } from '../../src/providers/embedding-model.js';
import { rememberingEmbeddings } from '../../src/providers/remembered-embeddings.js';

/** An embedding model that records what it was asked: each text's vector is its length and first character code. */
function recordingModel(fail?: (texts: readonly string[]) => Error | undefined) {
  const calls: (readonly string[])[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  const model: EmbeddingModel = {
    id: 'recording',
    async embed(texts, signal) {
      calls.push([...texts]);
      signals.push(signal);
      const error = fail?.(texts);
      if (error !== undefined) throw error;
      return texts.map((text) => Float32Array.of(text.length, text.charCodeAt(0)));
    },
  };
  return { model, calls, signals };
}

const vectorOf = (text: string) => Float32Array.of(text.length, text.charCodeAt(0));

describe('rememberingEmbeddings', () => {
  it('sends only the texts it does not remember, each once, and gives every vector back in order', async () => {
    const { model, calls } = recordingModel();
    const remembering = rememberingEmbeddings(model, 10);
    assert.equal(remembering.id, 'recording');
    assert.deepEqual(await remembering.embed(['alpha', 'beta', 'alpha']), ['alpha', 'beta', 'alpha'].map(vectorOf));
    assert.deepEqual(await remembering.embed(['gamma', 'beta', 'alpha']), ['gamma', 'beta', 'alpha'].map(vectorOf));
    assert.deepEqual(await remembering.embed(['beta']), [vectorOf('beta')]);
    assert.deepEqual(calls, [['alpha', 'beta'], ['gamma']]);
  });

  it('forgets the least recently used text first', async () => {
    const { model, calls } = recordingModel();
    const remembering = rememberingEmbeddings(model, 2);
    await remembering.embed(['a1', 'b1']);
    await remembering.embed(['a1']); // a1 used again: b1 is now the least recent
    await remembering.embed(['c1']); // b1 forgotten
    await remembering.embed(['a1', 'c1']);
    assert.deepEqual(await remembering.embed(['b1']), [vectorOf('b1')]);
    assert.deepEqual(calls, [['a1', 'b1'], ['c1'], ['b1']]);
  });

  it('gives back a remembered vector that making room for a new one forgets in the same call', async () => {
    const { model, calls } = recordingModel();
    const remembering = rememberingEmbeddings(model, 2);
    await remembering.embed(['a1', 'b1']);
    assert.deepEqual(await remembering.embed(['a1', 'c1', 'b1']), ['a1', 'c1', 'b1'].map(vectorOf));
    assert.deepEqual(calls, [['a1', 'b1'], ['c1']]);
  });

  it("passes the caller's signal, and remembers nothing of a call that failed or gave the wrong number of vectors", async () => {
    let failing = true;
    const { model, calls, signals } = recordingModel((texts) =>
      failing && texts.includes('bad') ? new Error('provider down') : undefined,
    );
    const remembering = rememberingEmbeddings(model, 10);
    const controller = new AbortController();
    await assert.rejects(remembering.embed(['good', 'bad'], controller.signal), /provider down/);
    assert.equal(signals[0], controller.signal);
    failing = false;
    await remembering.embed(['good', 'bad']);
    assert.deepEqual(calls, [
      ['good', 'bad'],
      ['good', 'bad'],
    ]);
    const short: EmbeddingModel = { id: 'short', embed: async () => [Float32Array.of(1)] };
    await assert.rejects(rememberingEmbeddings(short, 10).embed(['one', 'two']), /1 vectors for 2 texts/);
  });

  it('refuses to remember fewer than one text', () => {
    assert.throws(() => rememberingEmbeddings(recordingModel().model, 0), RangeError);
  });
});
