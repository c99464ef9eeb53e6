// LEB128 varints for unsigned integers below 2^32: 7 bits a byte, low bits first, the high bit set on every byte but
// a number's last. Small numbers take one byte: what the term lists and the stored postings are made of.

const lowBits = 0x7f;
/** The bit set on every byte of a number but its last. */
export const continues = 0x80;

export function varintLength(value: number): number {
  let length = 1;
  while (value > lowBits) {
    value = Math.floor(value / 128);
    length++;
  }
  return length;
}

/** Writes `value` at `offset`; the offset after it. */
export function writeVarint(value: number, target: Uint8Array, offset: number): number {
  while (value > lowBits) {
    target[offset++] = (value & lowBits) | continues;
    value = Math.floor(value / 128);
  }
  target[offset++] = value;
  return offset;
}

/** Reads varints one after another from `offset` on. */
export class VarintReader {
  constructor(
    private readonly bytes: Uint8Array,
    public offset: number,
  ) {}

  next(): number {
    let byte = this.bytes[this.offset++] as number;
    let value = byte & lowBits;
    for (let scale = 128; byte & continues; scale *= 128) {
      byte = this.bytes[this.offset++] as number;
      value += (byte & lowBits) * scale;
    }
    return value;
  }
}
