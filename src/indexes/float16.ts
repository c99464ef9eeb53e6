// IEEE 754 half precision (float16) for stored vectors: half the bytes of float32, with a relative error of at most
// 2^-11 per value, far below what separates two embeddings (a cosine moves by about 1e-5 at 384 dimensions). Node 20
// has no Float16Array or Math.f16round, hence the conversions here; values are rounded to nearest, ties to even, as
// those do.

const single = new Float32Array(1);
const singleBits = new Int32Array(single.buffer);

/** The float16 bit pattern nearest `value` (ties to even; too large becomes infinity, NaN stays NaN). */
export function float16Bits(value: number): number {
  single[0] = value;
  return halfOfSingleBits(singleBits[0] as number);
}

/**
 * The float16 bit pattern nearest the float32 whose bits are `bits`, as a signed integer: the batch conversions read
 * them through a signed integer view, which keeps every value a small integer for the JIT (a third faster than
 * converting value by value through a scratch array). Normal float16 values, what a unit vector mostly holds, first.
 */
function halfOfSingleBits(bits: number): number {
  const sign = (bits >> 16) & 0x8000;
  const exponent = (bits >> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  const halfExponent = exponent - 127 + 15;
  // A carry out of the mantissa lands in the exponent, which is the right result (up to infinity).
  if (halfExponent > 0 && halfExponent < 0x1f) return sign | ((halfExponent << 10) + roundedShift(mantissa, 13));
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  if (halfExponent >= 0x1f) return sign | 0x7c00;
  // Subnormal in float16: the implicit leading bit becomes explicit and the whole mantissa shifts right.
  if (halfExponent < -10) return sign;
  return sign | roundedShift(mantissa | 0x800000, 14 - halfExponent);
}

/** `value >> shift`, rounded to nearest, ties to even. */
function roundedShift(value: number, shift: number): number {
  const kept = value >>> shift;
  const remainder = value & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  return remainder > half || (remainder === half && (kept & 1) === 1) ? kept + 1 : kept;
}

/** Every float16 bit pattern's value, so that decoding is a look-up (256 KB, built on first use). */
let decoded: Float32Array | undefined;

function decodingTable(): Float32Array {
  if (decoded !== undefined) return decoded;
  decoded = new Float32Array(0x10000);
  for (let bits = 0; bits < 0x10000; bits++) {
    const sign = bits & 0x8000 ? -1 : 1;
    const exponent = (bits >>> 10) & 0x1f;
    const mantissa = bits & 0x3ff;
    decoded[bits] =
      exponent === 0
        ? sign * mantissa * 2 ** -24
        : exponent === 0x1f
          ? mantissa === 0
            ? sign * Number.POSITIVE_INFINITY
            : Number.NaN
          : sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
  }
  return decoded;
}

/** Writes the float16 bit patterns of `values` into `into` (of the same length). */
export function encodeFloat16(values: Float32Array, into: Uint16Array): void {
  if (into.length !== values.length) throw new RangeError(`${values.length} values into ${into.length} float16 slots`);
  const bits = new Int32Array(values.buffer, values.byteOffset, values.length);
  for (let index = 0; index < values.length; index++) into[index] = halfOfSingleBits(bits[index] as number);
}

/** Writes the values of the float16 bit patterns `halves` into `into` (of the same length): a look-up each. */
export function decodeFloat16(halves: Uint16Array, into: Float32Array): void {
  if (into.length !== halves.length) throw new RangeError(`${halves.length} float16 values into ${into.length} slots`);
  const table = decodingTable();
  for (let index = 0; index < halves.length; index++) into[index] = table[halves[index] as number] as number;
}

/** Rounds every value of `values` to the nearest float16, in place: what storing and reading it back gives. */
export function roundToFloat16(values: Float32Array): void {
  const bits = new Int32Array(values.buffer, values.byteOffset, values.length);
  const table = decodingTable();
  for (let index = 0; index < values.length; index++) values[index] = table[halfOfSingleBits(bits[index] as number)] as number;
}
