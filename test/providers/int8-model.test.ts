import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { int8ModelFile, int8Weights, toInt8Model } from '../../src/providers/int8-model.js';
import { defaultModelDirectory } from '../../src/providers/local-embedding-model.js';

describe('int8Weights', () => {
  it('unpacks 4-bit blocks (low nibble first, zero point 8) into int8 columns of 7 bits, one scale each', () => {
    // K 64 (two blocks of 32), N 2. Column 0: nibble 15 (+7) everywhere with block scale 1, but row 1 is nibble 0
    // (-8); its second block has scale 0.5. Column 1: all nibble 8 (zero).
    const packed = new Uint8Array(2 * 2 * 16);
    packed.fill(0xff, 0, 32);
    packed[0] = 0x0f; // row 0: low nibble 15 (+7); row 1: high nibble 0 (-8)
    packed.fill(0x88, 32);
    const { weights, scales } = int8Weights(packed, Float32Array.from([1, 0.5, 2, 2]), { k: 64, n: 2, blockSize: 32 });
    assert.deepEqual(Array.from(scales), [Math.fround(8 / 63), 1]);
    const column = (output: number) => Array.from({ length: 64 }, (_, row) => weights[row * 2 + output]);
    assert.deepEqual(column(0).slice(0, 3), [55, -63, 55]); // 7 / (8 / 63) = 55.1; -8 -> -63
    assert.equal(column(0)[40], 28); // 3.5 / (8 / 63) = 27.6
    assert.deepEqual(new Set(column(1)), new Set([0]));
  });

  it('refuses weights that do not fit the shape', () => {
    assert.throws(() => int8Weights(new Uint8Array(10), new Float32Array(4), { k: 64, n: 2, blockSize: 32 }), /do not fit 64 x 2/);
  });
});

describe('toInt8Model on the bundled model', () => {
  const onnxFolder = join(defaultModelDirectory, 'onnx');

  it('replaces every MatMulNBits and gives the 4-bit model’s vectors within int8 rounding', async () => {
    const converted = toInt8Model(
      await readFile(join(onnxFolder, 'model_q4.onnx')),
      await readFile(join(onnxFolder, 'model_q4.onnx_data')),
      'converted.onnx_data',
    );
    const text = Buffer.from(converted.model).toString('latin1');
    assert.equal(text.includes('MatMulNBits'), false);
    assert.equal(text.split('DynamicQuantizeMatMul').length - 1, 36); // 6 layers of Q, K, V, output and two feed-forward
    const folder = await mkdtemp(join(tmpdir(), 'int8-model-'));
    try {
      await writeFile(join(folder, 'converted.onnx'), converted.model);
      await writeFile(join(folder, 'converted.onnx_data'), converted.data);
      const ids = [101, 2023, 2003, 2019, 2742, 6251, 102]; // "This is an example sentence"
      const shape = [1, ids.length];
      const feeds = {
        input_ids: new Tensor('int64', BigInt64Array.from(ids, BigInt), shape),
        attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), shape),
        token_type_ids: new Tensor('int64', new BigInt64Array(ids.length), shape),
      };
      const hidden = async (session: InferenceSession) => (await session.run(feeds)).last_hidden_state?.data as Float32Array;
      const int8 = await hidden(await InferenceSession.create(join(folder, 'converted.onnx')));
      const q4 = await hidden(await InferenceSession.create(join(onnxFolder, 'model_q4.onnx')));
      // Per token: a wrong nibble order, scale or layout would leave the hidden states unrelated (cosine near 0).
      for (let position = 0; position < ids.length; position++) {
        const [a, b] = [int8, q4].map((states) => states.subarray(position * 384, (position + 1) * 384)) as [Float32Array, Float32Array];
        const cosine = a.reduce((sum, value, index) => sum + value * (b[index] as number), 0) / Math.hypot(...a) / Math.hypot(...b);
        assert.ok(cosine > 0.97, `token ${position}: cosine ${cosine}`);
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('int8ModelFile', () => {
  it('writes the int8 pair once next to the 4-bit files, leaving no partial file, and reuses it', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'int8-model-file-'));
    try {
      await mkdir(join(directory, 'onnx'));
      for (const name of ['model_q4.onnx', 'model_q4.onnx_data'])
        await symlink(join(defaultModelDirectory, 'onnx', name), join(directory, 'onnx', name));
      const [first, second] = await Promise.all([int8ModelFile(directory), int8ModelFile(directory)]);
      assert.equal(first, join(directory, 'onnx', 'model_int8.onnx'));
      assert.equal(second, first);
      assert.deepEqual((await readdir(join(directory, 'onnx'))).sort(), [
        'model_int8.onnx',
        'model_int8.onnx_data',
        'model_q4.onnx',
        'model_q4.onnx_data',
      ]);
      const written = (await stat(first)).mtimeMs;
      assert.equal(await int8ModelFile(directory), first);
      assert.equal((await stat(first)).mtimeMs, written);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
