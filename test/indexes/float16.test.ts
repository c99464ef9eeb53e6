// Float16, the precision stored vectors keep: every half value survives a round trip, rounding is to nearest with ties
// to even (as Math.f16round rounds, where Node has it), and the error stays within half a unit in the last place.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeFloat16, encodeFloat16, float16Bits, roundToFloat16 } from '../../src/indexes/float16.js';
import { seededRandom } from '../support/durability-documents.js';

function decodeOne(bits: number): number {
  const into = new Float32Array(1);
  decodeFloat16(Uint16Array.of(bits), into);
  return into[0] as number;
}

describe('float16', () => {
  it('gives back every half value it decodes (NaN stays NaN)', () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      const value = decodeOne(bits);
      if (Number.isNaN(value)) assert.ok((bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0, `0x${bits.toString(16)} is not a NaN pattern`);
      else assert.equal(float16Bits(value), bits, `0x${bits.toString(16)} (${value})`);
    }
  });

  it('decodes the landmarks of the format', () => {
    assert.equal(decodeOne(0x3c00), 1);
    assert.equal(decodeOne(0xc000), -2);
    assert.equal(decodeOne(0x7bff), 65504);
    assert.equal(decodeOne(0x0400), 2 ** -14);
    assert.equal(decodeOne(0x0001), 2 ** -24);
    assert.equal(decodeOne(0x7c00), Number.POSITIVE_INFINITY);
    assert.ok(Object.is(decodeOne(0x8000), -0));
  });

  it('rounds to nearest, ties to even, in normal and subnormal ranges and at the edges', () => {
    const cases: [number, number][] = [
      [1 + 2 ** -11, 0x3c00], // halfway between 1 and the next half: the even one, 1
      [1 + 3 * 2 ** -11, 0x3c02], // halfway between odd 0x3c01 and even 0x3c02
      [1 + 2 ** -11 + 2 ** -20, 0x3c01], // just past halfway
      [2 - 2 ** -12, 0x4000], // rounds up into the next exponent
      [65519, 0x7bff],
      [65520, 0x7c00], // halfway to the next exponent, which is infinity
      [2 ** -25, 0x0000], // halfway between 0 and the smallest subnormal: even, 0
      [3 * 2 ** -25, 0x0002],
      [2 ** -26, 0x0000],
      [-(2 ** -14) * 0.75, 0x8300],
      [Number.NEGATIVE_INFINITY, 0xfc00],
    ];
    for (const [value, bits] of cases) assert.equal(float16Bits(value), bits, `${value}`);
    assert.equal(float16Bits(Number.NaN) & 0x7e00, 0x7e00);
  });

  it('keeps the relative error of values in the normal range within 2^-11, and agrees with Math.f16round where Node has it', () => {
    const next = seededRandom(11);
    // From 2^-14, the smallest normal half, to below 65504, the largest.
    const values = Float32Array.from({ length: 20_000 }, () => (next() < 0.5 ? -1 : 1) * (1 + next()) * 2 ** Math.floor(next() * 29 - 14));
    const halves = new Uint16Array(values.length);
    encodeFloat16(values, halves);
    const decoded = new Float32Array(values.length);
    decodeFloat16(halves, decoded);
    const rounded = values.slice();
    roundToFloat16(rounded);
    assert.deepEqual(rounded, decoded);
    const f16round = (Math as { f16round?: (value: number) => number }).f16round;
    for (let index = 0; index < values.length; index++) {
      const value = values[index] as number;
      assert.ok(Math.abs((decoded[index] as number) - value) <= Math.abs(value) * 2 ** -11, `${value} became ${decoded[index]}`);
      if (f16round !== undefined) assert.equal(decoded[index], f16round(value));
    }
  });
});
