// A value along a text that is written at its end and cut back: the positions the value changed at, so cutting the text
// back to a length rewinds the value to what it was there. Amortized constant time per change, memory per change
// rather than per character.

const grow = (array: Int32Array, size: number): Int32Array<ArrayBuffer> => {
  const larger = new Int32Array(Math.max(16, size * 2));
  larger.set(array.subarray(0, size));
  return larger;
};

export class ChangeLog {
  private positions = new Int32Array(16);
  private values = new Int32Array(16);
  /** A second value per change, for the logs that set one (allocated when first set). */
  private extras: Int32Array | undefined;
  private size = 0;

  /** The value now (-1 before any change). */
  get value(): number {
    return this.size === 0 ? -1 : (this.values[this.size - 1] as number);
  }

  /** The second value set with it (-1 when none was). */
  get extra(): number {
    return this.size === 0 || this.extras === undefined ? -1 : (this.extras[this.size - 1] as number);
  }

  /** Where the value last changed (-1 before any change). */
  get position(): number {
    return this.size === 0 ? -1 : (this.positions[this.size - 1] as number);
  }

  /** The value from `position` on; positions only grow, except through `rewind`. */
  set(position: number, value: number, extra = -1): void {
    if (this.size === this.positions.length) {
      this.positions = grow(this.positions, this.size);
      this.values = grow(this.values, this.size);
      if (this.extras !== undefined) this.extras = grow(this.extras, this.size);
    }
    if (this.extras === undefined && extra !== -1) this.extras = new Int32Array(this.positions.length).fill(-1);
    this.positions[this.size] = position;
    this.values[this.size] = value;
    if (this.extras !== undefined) this.extras[this.size] = extra;
    this.size++;
  }

  /** Forgets the changes at `length` and after: the text was cut back to `length` characters. */
  rewind(length: number): void {
    while (this.size > 0 && (this.positions[this.size - 1] as number) >= length) this.size--;
  }

  clear(): void {
    this.size = 0;
    if (this.positions.length > 4096) {
      this.positions = new Int32Array(16);
      this.values = new Int32Array(16);
      this.extras = undefined;
    }
  }
}
