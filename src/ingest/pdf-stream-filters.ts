// The PDF stream filters that expand data, as stages that decode an asynchronous stream of pieces lazily, so that a
// stream's inflated size can be counted without holding it: Flate (node:zlib), LZW, RunLength, and the ASCII encodings
// a bomb may be wrapped in. Each stage yields at most 64 KB at a time and only when the next one asks, so no stage runs
// ahead of the count. Image codecs (DCT, JPX, JBIG2, CCITT) are not here: text extraction never decodes images.
import { Readable } from 'node:stream';
import { constants, createInflate } from 'node:zlib';

/** Pieces of a stream's data, as they come. */
export type Pieces = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** A decoding stage: the decoded pieces of its input's pieces. */
type DecodingStage = (input: Pieces) => AsyncIterable<Uint8Array>;

/** The filters this module decodes, by the full names and the abbreviations PDF allows. */
const filterNames: Record<string, DecodableFilter> = {
  FlateDecode: 'flate',
  Fl: 'flate',
  LZWDecode: 'lzw',
  LZW: 'lzw',
  RunLengthDecode: 'run-length',
  RL: 'run-length',
  ASCIIHexDecode: 'ascii-hex',
  AHx: 'ascii-hex',
  ASCII85Decode: 'ascii-85',
  A85: 'ascii-85',
};

export type DecodableFilter = 'flate' | 'lzw' | 'run-length' | 'ascii-hex' | 'ascii-85';

/** The decodable filter a PDF name stands for (`#xx` escapes decoded, as pdf.js does), or undefined. */
export function decodableFilter(name: string): DecodableFilter | undefined {
  const decoded = name.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Object.hasOwn(filterNames, decoded) ? filterNames[decoded] : undefined;
}

/** The stage that decodes `filter`; `earlyChange` is LZW's (PDF's default 1). */
export function filterStage(filter: DecodableFilter, earlyChange: number): DecodingStage {
  switch (filter) {
    case 'flate':
      return inflateStage;
    case 'lzw':
      return byteStage(() => new LzwDecoder(earlyChange));
    case 'run-length':
      return byteStage(() => new RunLengthDecoder());
    case 'ascii-hex':
      return byteStage(() => new AsciiHexDecoder());
    case 'ascii-85':
      return byteStage(() => new Ascii85Decoder());
  }
}

function inflateStage(input: Pieces): AsyncIterable<Uint8Array> {
  // A truncated stream is read as far as it goes, as pdf.js does, rather than failing.
  const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
  const source = Readable.from(input);
  source.once('error', (error) => inflate.destroy(error));
  return source.pipe(inflate);
}

function byteStage(create: () => ByteDecoder): DecodingStage {
  return async function* decode(input) {
    const decoder = create();
    for await (const piece of input) yield* decoder.decode(piece);
    yield* decoder.finish();
  };
}

/** Decodes byte by byte into a 64 KB buffer, handed out each time it fills. */
abstract class ByteDecoder {
  private readonly pending = new Uint8Array(1 << 16);
  private pendingLength = 0;
  private readonly full: Uint8Array[] = [];

  *decode(piece: Uint8Array): Generator<Uint8Array> {
    for (const byte of piece) {
      this.decodeByte(byte);
      // Handed out between input bytes: one byte produces at most 4,096 (an LZW code), well within a piece.
      if (this.full.length > 0) yield* this.full.splice(0);
    }
  }

  *finish(): Generator<Uint8Array> {
    this.finishInput();
    yield* this.full.splice(0);
    if (this.pendingLength > 0) yield this.pending.slice(0, this.pendingLength);
  }

  protected output(byte: number): void {
    this.pending[this.pendingLength++] = byte;
    if (this.pendingLength === this.pending.length) {
      this.full.push(this.pending.slice());
      this.pendingLength = 0;
    }
  }

  protected abstract decodeByte(byte: number): void;

  protected finishInput(): void {}
}

/** LZW as PDF uses it: codes of 9 to 12 bits, most significant bit first, 256 clears the table, 257 ends the data. */
class LzwDecoder extends ByteDecoder {
  private readonly prefixes = new Int32Array(4096);
  private readonly suffixes = new Uint8Array(4096);
  private readonly firstBytes = new Uint8Array(4096);
  private readonly lengths = new Int32Array(4096);
  private readonly scratch = new Uint8Array(4096);
  private next = 258;
  private codeLength = 9;
  private previous = -1;
  private bits = 0;
  private bitCount = 0;
  private ended = false;

  constructor(private readonly earlyChange: number) {
    super();
    for (let code = 0; code < 256; code++) {
      this.prefixes[code] = -1;
      this.suffixes[code] = code;
      this.firstBytes[code] = code;
      this.lengths[code] = 1;
    }
  }

  protected decodeByte(byte: number): void {
    if (this.ended) return;
    this.bits = ((this.bits << 8) | byte) & 0xffffff;
    this.bitCount += 8;
    while (this.bitCount >= this.codeLength && !this.ended) {
      this.bitCount -= this.codeLength;
      this.code((this.bits >>> this.bitCount) & ((1 << this.codeLength) - 1));
    }
  }

  private code(code: number): void {
    if (code === 256) {
      [this.next, this.codeLength, this.previous] = [258, 9, -1];
      return;
    }
    if (code === 257 || code > this.next || (code === this.next && this.previous === -1)) {
      this.ended = true;
      return;
    }
    const known = code < this.next;
    if (this.previous !== -1 && this.next < 4096) {
      const entry = this.next++;
      this.prefixes[entry] = this.previous;
      this.suffixes[entry] = known ? this.firstBytes[code]! : this.firstBytes[this.previous]!;
      this.firstBytes[entry] = this.firstBytes[this.previous]!;
      this.lengths[entry] = this.lengths[this.previous]! + 1;
    }
    this.outputCode(code);
    this.previous = code;
    if (this.next + this.earlyChange >= 1 << this.codeLength && this.codeLength < 12) this.codeLength++;
  }

  private outputCode(code: number): void {
    const length = this.lengths[code]!;
    for (let position = length - 1, entry = code; position >= 0; position--, entry = this.prefixes[entry]!) {
      this.scratch[position] = this.suffixes[entry]!;
    }
    for (let position = 0; position < length; position++) this.output(this.scratch[position]!);
  }
}

/** RunLength: a length byte n, then n + 1 bytes to copy (n < 128) or one byte to repeat 257 - n times (n > 128). */
class RunLengthDecoder extends ByteDecoder {
  private copying = 0;
  private repeating = 0;
  private ended = false;

  protected decodeByte(byte: number): void {
    if (this.ended) return;
    if (this.copying > 0) {
      this.output(byte);
      this.copying--;
    } else if (this.repeating > 0) {
      for (let count = 0; count < this.repeating; count++) this.output(byte);
      this.repeating = 0;
    } else if (byte < 128) this.copying = byte + 1;
    else if (byte > 128) this.repeating = 257 - byte;
    else this.ended = true;
  }
}

const isWhitespace = (byte: number): boolean => byte === 0x20 || (byte >= 0x09 && byte <= 0x0d) || byte === 0x00;

/** ASCIIHex: pairs of hexadecimal digits, whitespace ignored, `>` ends the data. */
class AsciiHexDecoder extends ByteDecoder {
  private high = -1;
  private ended = false;

  protected decodeByte(byte: number): void {
    if (this.ended || isWhitespace(byte)) return;
    if (byte === 0x3e) {
      this.ended = true;
      return;
    }
    const digit = Number.parseInt(String.fromCharCode(byte), 16);
    if (Number.isNaN(digit)) return;
    if (this.high === -1) this.high = digit;
    else {
      this.output((this.high << 4) | digit);
      this.high = -1;
    }
  }

  protected override finishInput(): void {
    if (this.high !== -1) this.output(this.high << 4);
  }
}

/** ASCII85: groups of five characters `!`..`u` for four bytes, `z` for four zero bytes, `~>` ends the data. */
class Ascii85Decoder extends ByteDecoder {
  private group: number[] = [];
  private ended = false;

  protected decodeByte(byte: number): void {
    if (this.ended || isWhitespace(byte)) return;
    if (byte === 0x7e) {
      this.ended = true;
      return;
    }
    if (byte === 0x7a && this.group.length === 0) {
      for (let count = 0; count < 4; count++) this.output(0);
      return;
    }
    if (byte < 0x21 || byte > 0x75) return;
    this.group.push(byte - 0x21);
    if (this.group.length === 5) this.emitGroup(4);
  }

  protected override finishInput(): void {
    const kept = this.group.length - 1;
    if (kept <= 0) return;
    while (this.group.length < 5) this.group.push(84);
    this.emitGroup(kept);
  }

  private emitGroup(bytes: number): void {
    const value = this.group.reduce((total, digit) => total * 85 + digit, 0);
    for (let index = 0; index < bytes; index++) this.output(Math.floor(value / 256 ** (3 - index)) & 0xff);
    this.group = [];
  }
}
