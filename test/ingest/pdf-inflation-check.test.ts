// Compression bombs in PDFs are refused before pdf.js inflates them: generated bombs (Flate, nested Flate, LZW,
// RunLength, ASCII-wrapped) fail with document_too_large, alone and two at once in the conversion workers, while the
// RSS of the process and its conversion processes grows by less than 300 MB; the real manuals in the fixtures stay well
// within the budget; a conversion's process is held to its memory limit by the system.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDeflate, deflateSync } from 'node:zlib';
import { DocumentConverter } from '../../src/ingest/document-converter.js';
import { checkPdfInflation, pdfInflationBudgetBytes } from '../../src/ingest/pdf-inflation-check.js';
import { fixturesDirectory } from '../support/fixtures.js';
import { unhurriedConversionMs } from '../support/service.js';

/** A one-page PDF whose content stream is `data` under the dictionary entries `entries` (its /Length is added). */
function pdfWithStream(entries: string, data: Uint8Array): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const add = (part: string | Uint8Array) => {
    const buffer = typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part);
    parts.push(buffer);
    length += buffer.length;
  };
  const object = (id: number, body: string | (string | Uint8Array)[]) => {
    offsets[id] = length;
    add(`${id} 0 obj\n`);
    for (const piece of typeof body === 'string' ? [body] : body) add(piece);
    add('\nendobj\n');
  };
  add('%PDF-1.4\n');
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>');
  object(4, [`<< ${entries} /Length ${data.length} >>\nstream\n`, data, '\nendstream']);
  const xref = length;
  add(
    `xref\n0 5\n0000000000 65535 f \n${offsets
      .slice(1)
      .map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`)
      .join('')}`,
  );
  add(`trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** Zeros deflated as they stream (the test never holds them): 1.3 GB become about 1.3 MB, the issue's bomb. */
async function deflatedZeros(megabytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const output: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => output.push(chunk));
  const megabyte = Buffer.alloc(1_000_000);
  for (let count = 0; count < megabytes; count++)
    if (!deflate.write(megabyte)) await new Promise((resolve) => deflate.once('drain', resolve));
  deflate.end();
  await new Promise((resolve) => deflate.once('end', resolve));
  return Buffer.concat(output);
}

/**
 * Runs of zeros as PDF's LZW codes (9 to 12 bits, early change 1): each cycle is 0, then every code from 258 to 4095
 * (each one zero longer than the last), then a clear code, 7,370,880 bytes from 5.5 kB.
 */
function lzwZeros(cycles: number): Buffer {
  const bytes: number[] = [];
  let bits = 0;
  let bitCount = 0;
  const write = (code: number, width: number) => {
    bits = (bits << width) | code;
    bitCount += width;
    for (; bitCount >= 8; bitCount -= 8) bytes.push((bits >>> (bitCount - 8)) & 0xff);
    bits &= (1 << bitCount) - 1;
  };
  let width = 9;
  for (let cycle = 0; cycle < cycles; cycle++) {
    let next = 258;
    for (let code = 0, previous = -1; code < 4096; previous = code, code = code === 0 ? 258 : code + 1) {
      write(code, width);
      if (previous !== -1) next++;
      if (next + 1 >= 1 << width && width < 12) width++;
    }
    write(256, width);
    width = 9;
  }
  write(257, width);
  if (bitCount > 0) bytes.push((bits << (8 - bitCount)) & 0xff);
  return Buffer.from(bytes);
}

/** `data` in ASCII85, groups of four bytes as five characters from `!` (four zero bytes as `z`), ended by `~>`. */
function ascii85(data: Buffer): Buffer {
  let text = '';
  for (let index = 0; index < data.length; index += 4) {
    const group = Buffer.alloc(4);
    data.copy(group, 0, index, index + 4);
    let value = group.readUInt32BE(0);
    if (value === 0 && index + 4 <= data.length) {
      text += 'z';
      continue;
    }
    const digits: string[] = [];
    for (let digit = 0; digit < 5; digit++, value = Math.floor(value / 85)) digits.unshift(String.fromCharCode(33 + (value % 85)));
    text += digits.slice(0, Math.min(5, data.length - index + 1)).join('');
  }
  return Buffer.from(`${text}~>`);
}

/** The processes `pid` started, and theirs (a PDF is converted in a child process). */
function descendants(pid = process.pid): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
        .split(' ')
        .filter(Boolean)
        .flatMap((child) => [Number(child), ...descendants(Number(child))]),
    );
  } catch {
    return []; // it ended between the listing and the read
  }
}

/** The resident memory of this process and all its descendants, bytes. */
function treeRss(): number {
  let total = 0;
  for (const pid of [process.pid, ...descendants()]) {
    try {
      total += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {
      // It ended between the listing and the read: it holds nothing.
    }
  }
  return total;
}

describe('PDF compression bombs', () => {
  let flateBomb: Buffer;

  before(async () => {
    flateBomb = await deflatedZeros(1_300);
  });

  it('refuses streams that inflate past the budget, whatever filters wrap them', async () => {
    assert.ok(flateBomb.length < 1_500_000, `${flateBomb.length} bytes`);
    const bombs = {
      FlateDecode: pdfWithStream('/Filter /FlateDecode', flateBomb),
      'nested FlateDecode': pdfWithStream('/Filter [/FlateDecode /FlateDecode]', deflateSync(flateBomb)),
      'ASCIIHex then Flate': pdfWithStream('/Filter [/AHx /Fl]', Buffer.from(flateBomb.toString('hex'))),
      'a name spelled with #xx escapes': pdfWithStream('/Filter /Fl#61teDecode', flateBomb),
      'ASCII85 then Flate': pdfWithStream('/Filter [/ASCII85Decode /FlateDecode]', ascii85(flateBomb)),
      'a filter named through a reference': pdfWithStream('/Filter 9 0 R', flateBomb),
      'a filter hidden behind a string that looks like the end of the dictionary': pdfWithStream(
        '/Filter /LZWDecode /Note (>> /Filter /DCTDecode endobj)',
        lzwZeros(6),
      ),
      LZWDecode: pdfWithStream('/Filter /LZWDecode', lzwZeros(6)),
      // 2 bytes for 128: 6 MB of them are 384 MB.
      RunLengthDecode: pdfWithStream('/Filter /RunLengthDecode', Buffer.alloc(6_000_000, Buffer.from([129, 0]))),
    };
    // A budget of 30 MB shows the same as the default 300 MB for a tenth of the CPU (the last test uses the default).
    for (const [name, bomb] of Object.entries(bombs)) {
      await assert.rejects(
        checkPdfInflation(bomb, 30_000_000),
        { code: 'document_too_large', message: /inflate to more than 30 MB/ },
        name,
      );
    }
  });

  it('decodes LZW, ASCII85 and ASCIIHex exactly', async () => {
    // One LZW cycle is 1 + (2 + 3 + ... + 3,839) = 7,370,880 zeros.
    const lzw = pdfWithStream('/Filter /LZWDecode', lzwZeros(1));
    await checkPdfInflation(lzw, 7_370_880);
    await assert.rejects(checkPdfInflation(lzw, 7_370_879), { code: 'document_too_large' });
    const text = Buffer.from('Compressed text of a page, compressed twice.\x00\x00\x00\x00 and more');
    for (const [filter, encoded] of [
      ['ASCII85Decode', ascii85(text)],
      ['ASCIIHexDecode', Buffer.from(`${text.toString('hex')}>`)],
    ] as const) {
      const pdf = pdfWithStream(`/Filter /${filter}`, encoded);
      await checkPdfInflation(pdf, text.length);
      await assert.rejects(checkPdfInflation(pdf, text.length - 1), { code: 'document_too_large' }, filter);
    }
  });

  it('lets the real manuals through: they inflate to a few megabytes', async () => {
    for (const name of ['R-intro-4.2.2.pdf', 'R-data-import-export-4.2.2.pdf', 'bash-reference-manual-5.2.pdf']) {
      const bytes = await readFile(join(fixturesDirectory, 'pdfs', name));
      await checkPdfInflation(bytes, 10_000_000);
      await assert.rejects(checkPdfInflation(bytes, 100_000), { code: 'document_too_large' }, `${name} inflates to more than 100 kB`);
    }
    assert.equal(pdfInflationBudgetBytes, 300_000_000);
  });

  it('fails two bombs converted at once with document_too_large while the RSS grows by less than 300 MB', {
    skip: process.platform !== 'linux',
  }, async () => {
    // The subject is the refusal and the memory, not the time: on a busy CI machine the two conversions (a process
    // started for each, 300 MB inflated by each) once took longer than the service's 30 s limit.
    const converter = new DocumentConverter({ workers: 2, timeoutMs: unhurriedConversionMs });
    after(() => converter.close());
    const bomb = pdfWithStream('/Filter /FlateDecode', flateBomb);
    // The workers start before the baseline, so that only the conversions are measured.
    await Promise.all([converter.convert(Buffer.from('# warm'), 'text'), converter.convert(Buffer.from('x'.repeat(10_000)), 'text')]);
    const baseline = treeRss();
    let peak = baseline;
    let converting = true;
    const sampling = (async () => {
      while (converting) {
        peak = Math.max(peak, treeRss());
        await sleep(5);
      }
    })();
    const outcomes = await Promise.allSettled([converter.convert(bomb, 'pdf'), converter.convert(bomb, 'pdf')]);
    converting = false;
    await sampling;
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.equal((outcome.reason as { code?: string }).code, 'document_too_large');
      assert.match((outcome.reason as Error).message, /inflate to more than 300 MB/);
    }
    const growthMb = (peak - baseline) / 1e6;
    assert.ok(growthMb < 300, `the RSS of the process and its conversion processes grew by ${growthMb.toFixed(0)} MB`);
  });

  it('a PDF conversion stopped at its time limit leaves no process behind', { skip: process.platform !== 'linux' }, async () => {
    const converter = new DocumentConverter({ workers: 1, timeoutMs: 1_500 });
    after(() => converter.close());
    const manual = await readFile(join(fixturesDirectory, 'pdfs', 'bash-reference-manual-5.2.pdf'));
    // Only conversion processes count (under tsx, a worker also starts esbuild's service).
    const started = () =>
      descendants().filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('pdf-conversion-process');
        } catch {
          return false;
        }
      });
    await assert.rejects(converter.convert(manual, 'pdf'), { code: 'conversion_timed_out' });
    // The child sees its worker's channel close and exits, once pdf.js lets its event loop run: on a busy machine that
    // took longer than 5 s.
    const deadline = Date.now() + 30_000;
    while (started().length > 0 && Date.now() < deadline) await sleep(100);
    assert.deepEqual(started(), [], 'a conversion process outlived its stopped worker');
  });

  it('a PDF conversion runs in a process whose memory the system limits', { skip: process.platform !== 'linux' }, async () => {
    // 64 MB of heap and 128 MB in all, and a stream that inflates to 250 MB: under the inflation budget, so only the
    // process's limit stops pdf.js (in a worker thread it would have taken the 250 MB from the service).
    const converter = new DocumentConverter({ workers: 1, memoryMb: 64, timeoutMs: unhurriedConversionMs });
    after(() => converter.close());
    const large = pdfWithStream('/Filter /FlateDecode', await deflatedZeros(250));
    await assert.rejects(converter.convert(large, 'pdf'), {
      code: 'conversion_out_of_memory',
      message: /more than 128 MB, the memory a PDF conversion's process may use/,
    });
  });
});
