// Typed arrays that grow in place within their buffer's headroom, and by copying past it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grown, withHeadroom } from '../../src/indexes/growable-array.js';

describe('grown', () => {
  it('widens in place within the headroom, with zeros past the old end', () => {
    const array = withHeadroom(Uint32Array, 8);
    array.fill(7);
    const wider = grown(array, 10);
    assert.equal(wider.buffer, array.buffer, 'no copy');
    assert.deepEqual([...wider], [7, 7, 7, 7, 7, 7, 7, 7, 0, 0]);
  });

  it('zeroes room that a longer view wrote into before', () => {
    const array = withHeadroom(Float32Array, 8);
    grown(array, 12).fill(3);
    assert.deepEqual([...grown(array, 12)].slice(8), [0, 0, 0, 0]);
  });

  it('zeroes only what an earlier, longer view reached, growing past it', () => {
    const array = withHeadroom(Uint32Array, 8);
    grown(array, 10).fill(5);
    assert.deepEqual([...grown(array, 12)].slice(8), [0, 0, 0, 0]);
  });

  it('checks the room of a buffer made elsewhere, which another view may have written', () => {
    const buffer = new ArrayBuffer(16 * 4);
    new Uint32Array(buffer).fill(9);
    const array = new Uint32Array(buffer, 0, 4);
    assert.deepEqual([...grown(array, 6)], [9, 9, 9, 9, 0, 0]);
    const clean = new Uint32Array(new ArrayBuffer(16 * 4), 0, 4);
    assert.deepEqual([...grown(clean, 6)], [0, 0, 0, 0, 0, 0]);
  });

  it('copies into a new buffer past the headroom, and when cut short', () => {
    const array = Uint32Array.from([1, 2, 3]);
    const wider = grown(array, 5);
    assert.notEqual(wider.buffer, array.buffer);
    assert.deepEqual([...wider], [1, 2, 3, 0, 0]);
    assert.deepEqual([...grown(array, 2)], [1, 2]);
  });

  it('gives arrays read from disk a zeroed buffer half as large again', () => {
    const array = withHeadroom(Float32Array, 400);
    assert.equal(array.length, 400);
    assert.ok(array.buffer.byteLength >= 600 * 4);
    assert.ok(new Float32Array(array.buffer).every((value) => value === 0));
  });
});
