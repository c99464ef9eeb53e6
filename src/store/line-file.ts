// Lines of JSON written and read a block at a time, so neither side ever holds a whole file (or section) in one string
// or buffer; both keep a running CRC-32 of the bytes, newlines included.
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

/** Lines are written and read this many bytes at a time. */
const blockBytes = 8 << 20;

export class LineWriter {
  /**
   * One block reused for every write: encoding each line straight into it keeps the garbage to the small strings of
   * single lines (a block joined into one string and then encoded sat in the large-object space until a full
   * collection, and compacting 100,000 chunks grew the resident set by 300 MB).
   */
  private readonly block = Buffer.allocUnsafe(blockBytes);
  private filled = 0;
  private position: number;
  private checksum = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly start: number,
  ) {
    this.position = start;
  }

  /** Writes `line` (which must hold no newline: JSON.stringify never writes one) and a newline after it. */
  async write(line: string): Promise<void> {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    const most = 3 * line.length + 1;
    if (this.filled + most > this.block.length) await this.flush();
    if (most > this.block.length) {
      await this.writeBytes(Buffer.from(`${line}\n`, 'utf8'));
      return;
    }
    this.filled += this.block.write(line, this.filled, 'utf8');
    this.block[this.filled++] = 10;
  }

  /** Writes what is buffered; the bytes written so far (from `start`) and their CRC-32. */
  async flush(): Promise<{ readonly length: number; readonly crc: number }> {
    if (this.filled > 0) {
      const bytes = this.block.subarray(0, this.filled);
      this.filled = 0;
      await this.writeBytes(bytes);
    }
    return { length: this.position - this.start, crc: this.checksum };
  }

  private async writeBytes(bytes: Buffer): Promise<void> {
    this.checksum = crc32(bytes, this.checksum);
    let written = 0;
    while (written < bytes.length)
      written += (await this.file.write(bytes, written, bytes.length - written, this.position + written)).bytesWritten;
    this.position += bytes.length;
  }
}

/**
 * Calls `onLine` with each line of the `length` bytes at `offset` (the newline included; the buffer is reused, so
 * copy what is kept), in order. Throws when the bytes end inside a line or the file is shorter than promised.
 */
export async function forEachLine(file: FileHandle, offset: number, length: number, onLine: (line: Buffer) => void): Promise<void> {
  // Each block is read after the unfinished line the last one left at the start of the buffer.
  let buffer = Buffer.allocUnsafe(2 * blockBytes);
  let carried = 0;
  for (let position = offset; position < offset + length; position += blockBytes) {
    const blockLength = Math.min(blockBytes, offset + length - position);
    if (carried + blockLength > buffer.length) buffer = Buffer.concat([buffer.subarray(0, carried)], carried + blockLength);
    await readExactly(file, position, buffer.subarray(carried, carried + blockLength));
    const bytes = buffer.subarray(0, carried + blockLength);
    let start = 0;
    for (let end = bytes.indexOf(10, start); end !== -1; end = bytes.indexOf(10, start)) {
      onLine(bytes.subarray(start, end + 1));
      start = end + 1;
    }
    carried = bytes.copy(buffer, 0, start);
  }
  if (carried > 0) throw new Error('the file ends inside a line');
}

/**
 * The `length` bytes at `offset`, read whole in slabs of 64 MB, then handed out in order, part by part: a part is a view
 * of its slab, or a copy of its own where it spans two, so what keeps a part keeps one slab, not the whole range (a
 * document removed later frees its slab once the slab's other documents are gone too). Reading a buffer of its own for
 * each part made a load of 300,000 chunks' texts a sixth slower than one buffer for all of them; slabs are as fast.
 * The slabs are read before the parts are wanted because V8 runs a full garbage collection for about every 64 MB of
 * buffers allocated: read while the heap is small, they cost little; read among a million chunks' objects, the
 * collections took 6 s of a 25 s load.
 */
export class SlabReader {
  private slab = 0;
  private used = 0;

  private constructor(
    private readonly slabs: readonly Buffer[],
    /** CRC-32 of the range. */
    readonly crc: number,
  ) {}

  static async read(file: FileHandle, offset: number, length: number, slabBytes = 64 << 20): Promise<SlabReader> {
    const slabs: Buffer[] = [];
    let crc = 0;
    for (let done = 0; done < length; done += slabBytes) {
      const slab = Buffer.allocUnsafeSlow(Math.min(slabBytes, length - done));
      await readExactly(file, offset + done, slab);
      crc = crc32(slab, crc);
      slabs.push(slab);
    }
    return new SlabReader(slabs, crc);
  }

  /** The next `length` bytes; throws when the range ends first. */
  take(length: number): Buffer {
    const slab = this.slabs[this.slab];
    if (slab !== undefined && this.used + length <= slab.length) {
      const part = slab.subarray(this.used, this.used + length);
      this.used += length;
      if (this.used === slab.length) this.next();
      return part;
    }
    const part = Buffer.allocUnsafeSlow(length);
    for (let filled = 0; filled < length; this.next()) {
      const from = this.slabs[this.slab];
      if (from === undefined) throw new Error('the section ended early');
      const copied = from.copy(part, filled, this.used, Math.min(from.length, this.used + length - filled));
      filled += copied;
      this.used += copied;
      if (this.used < from.length) break;
    }
    return part;
  }

  private next(): void {
    this.slab++;
    this.used = 0;
  }
}

/** Fills `target` with the file's bytes at `offset`; throws when the file ends first. */
export async function readExactly(file: FileHandle, offset: number, target: Uint8Array): Promise<void> {
  let done = 0;
  while (done < target.length) {
    const { bytesRead } = await file.read(target, done, target.length - done, offset + done);
    if (bytesRead === 0) throw new Error('the file ended early');
    done += bytesRead;
  }
}

/** The file opened for reading, or undefined when there is none. */
export async function openIfPresent(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
