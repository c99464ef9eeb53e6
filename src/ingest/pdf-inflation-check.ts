// Refuses a PDF whose streams inflate past a budget, before pdf.js reads it. pdf.js decodes each stream it reads
// whole, into buffers outside the worker's heap limit, so that limit did not bound it: a 1.3 MB PDF whose content
// stream inflated to 1.3 GB took the process from 0.3 to 3.9 GB. Here every stream is decoded through its filters
// (chained ones too) with its output counted and dropped as it streams, so a bomb costs CPU up to the budget and about
// a megabyte of memory, and the document fails with `document_too_large` instead.
import { KnowledgeError } from '../errors.js';
import { decodableFilter, filterStage, type DecodableFilter, type Pieces } from './pdf-stream-filters.js';

/** Bytes a PDF's streams may inflate to, all stages of all streams together. */
export const pdfInflationBudgetBytes = 300 * 1000 * 1000;

/** How far before `stream` its dictionary is looked for. */
const maxDictionaryBytes = 64 * 1024;

interface PdfStream {
  /**
   * The filter chains that may apply to the data, each in the order its filters apply, up to the first one that is
   * not decoded here (an image codec, which text extraction never runs).
   */
  readonly chains: readonly (readonly DecodableFilter[])[];
  /** LZW's early change (PDF's default 1; 0 when the dictionary says so). */
  readonly earlyChange: number;
  readonly data: Uint8Array;
}

/**
 * Throws `document_too_large` when the PDF's streams inflate to more than `budgetBytes` together. This is a scan, not
 * a parser, and errs on the side of counting too much: every `stream` keyword counts, wherever it is (pdf.js finds
 * objects through the cross-reference table, which may point anywhere); the filters are read from every `/Filter` in
 * the 64 KB before the keyword (a dictionary's strings could hide the real one from a simple reading), each distinct
 * chain is decoded, and data that starts like zlib is inflated whatever its dictionary says.
 */
export async function checkPdfInflation(bytes: Uint8Array, budgetBytes = pdfInflationBudgetBytes): Promise<void> {
  let remaining = budgetBytes;
  /** Counts what a stage yields, and stops the whole check once the budget is spent. */
  async function* counted(stage: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    for await (const piece of stage) {
      remaining -= piece.length;
      if (remaining < 0) throw tooLarge(budgetBytes);
      yield piece;
    }
  }
  for (const stream of pdfStreams(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) {
    for (const chain of stream.chains) {
      let decoded: Pieces = [stream.data];
      for (const filter of chain) decoded = counted(filterStage(filter, stream.earlyChange)(decoded));
      try {
        for await (const piece of decoded) void piece;
      } catch (error) {
        if (error instanceof KnowledgeError) throw error;
        // Data that does not decode is pdf.js's to report or skip: only its size is this check's business.
      }
    }
  }
}

function tooLarge(budgetBytes: number): KnowledgeError {
  return new KnowledgeError(
    'document_too_large',
    `the PDF's compressed streams inflate to more than ${Math.round(budgetBytes / 1e6)} MB, the most a PDF may inflate to while it is converted (a compression bomb, or a document too large to convert)`,
  );
}

function* pdfStreams(bytes: Buffer): Generator<PdfStream> {
  let from = 0;
  for (;;) {
    const keyword = bytes.indexOf('stream', from, 'latin1');
    if (keyword === -1) return;
    from = keyword + 6;
    if (keyword >= 3 && bytes.toString('latin1', keyword - 3, keyword) === 'end') continue;
    // The data starts after the keyword's end of line (pdf.js takes CR LF, LF or CR).
    let start = keyword + 6;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] === 0x0a) start++;
    if (start === keyword + 6) continue;
    const before = bytes.toString('latin1', Math.max(0, keyword - maxDictionaryBytes), keyword);
    const data = bytes.subarray(start, streamEnd(bytes, start, before));
    const chains = new Map<string, DecodableFilter[]>();
    for (const chain of declaredChains(before)) if (chain.length > 0) chains.set(chain.join(' '), chain);
    if (looksLikeZlib(data)) chains.set('flate', ['flate']);
    yield { chains: [...chains.values()], earlyChange: /\/EarlyChange\s+0\b/.test(before) ? 0 : 1, data };
  }
}

/** A zlib header: deflate with a window of at most 32 KB, and a check value that divides by 31. */
function looksLikeZlib(data: Uint8Array): boolean {
  const [method = 0, flags = 0] = data;
  return (method & 0x0f) === 8 && method >> 4 <= 7 && ((method << 8) | flags) % 31 === 0;
}

/** Where the data ends: at its direct `/Length` when `endstream` follows it, else before the next `endstream`. */
function streamEnd(bytes: Buffer, start: number, dictionary: string): number {
  const lengths = [...dictionary.matchAll(/\/Length\s+(\d{1,12})(?!\s+\d+\s+R)/g)];
  const length = lengths.at(-1)?.[1];
  if (length !== undefined && start + Number(length) <= bytes.length) {
    const end = start + Number(length);
    const endstream = bytes.indexOf('endstream', end, 'latin1');
    if (endstream !== -1 && endstream - end <= 4) return end;
  }
  const endstream = bytes.indexOf('endstream', start, 'latin1');
  return endstream === -1 ? bytes.length : endstream;
}

/** The decodable filter chains of every `/Filter` (a name or an array of names) in `text`. */
function* declaredChains(text: string): Generator<DecodableFilter[]> {
  for (const [, value = ''] of text.matchAll(/\/Filter\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+)/g)) {
    const chain: DecodableFilter[] = [];
    for (const name of value
      .replace(/^\[|\]$/g, '')
      .split('/')
      .slice(1)) {
      const filter = decodableFilter(name.trim());
      if (filter === undefined) break;
      chain.push(filter);
    }
    yield chain;
  }
}
