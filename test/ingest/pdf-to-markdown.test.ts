// Tests for PDF to Markdown conversion: hand-built PDFs pin each layout rule, real manuals show the rules hold up.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pdfToMarkdown, type PdfMarkdown } from '../../src/ingest/pdf-to-markdown.js';
import { fixturesDirectory } from '../support/fixtures.js';

const manualsDirectory = `${join(fixturesDirectory, 'pdfs')}/`;

/** Builds a minimal PDF whose pages draw the given content streams with Helvetica (/F1) and Courier (/F2). */
function buildPdf(pageStreams: string[], options: { title?: string; trailerExtra?: string } = {}): Uint8Array {
  const pageIds = pageStreams.map((_, index) => 5 + index * 2);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageStreams.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>',
    ...pageStreams.flatMap((stream, index) => [
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${pageIds[index]! + 1} 0 R >>`,
      `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    ]),
  ];
  if (options.title !== undefined) objects.push(`<< /Title (${options.title}) >>`);
  let body = '%PDF-1.4\n';
  const offsets = objects.map((object, index) => {
    const offset = body.length;
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xrefOffset = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  const info = options.title === undefined ? '' : ` /Info ${objects.length} 0 R`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${info}${options.trailerExtra ?? ''} >>\n`;
  body += `startxref\n${xrefOffset}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}

function text(font: 'F1' | 'F2', size: number, x: number, y: number, content: string): string {
  return `BT /${font} ${size} Tf ${x} ${y} Td (${content}) Tj ET`;
}

// Body text is 10pt with 12pt line spacing and 18pt between paragraphs, like the real manuals scaled down.
const guidePages = [
  [
    text('F1', 10, 72, 770, 'Synthetic Guide'),
    text('F1', 20, 72, 700, 'Getting Started'),
    text('F1', 10, 72, 670, 'The first paragraph has three lines that were wrapped by the type-'),
    text('F1', 10, 72, 658, 'setter in the middle of a word, while a well-known compound keeps'),
    text('F1', 10, 72, 646, 'its hyphen.'),
    text('F1', 10, 72, 628, 'A second paragraph follows after a wider gap and runs over'),
    text('F1', 10, 72, 616, 'two lines.'),
    text('F1', 14, 72, 590, 'Installing'),
    text('F1', 10, 72, 570, 'Run the following commands:'),
    text('F2', 10, 90, 552, 'make install'),
    text('F2', 10, 102, 540, 'make check'),
    text('F1', 10, 72, 520, 'This paragraph is cut by the end of the page, so it continues on the'),
    text('F1', 10, 300, 40, '1'),
  ],
  [text('F1', 10, 72, 770, 'Synthetic Guide'), text('F1', 10, 72, 700, 'next page and ends there.'), text('F1', 10, 300, 40, '2')],
  [
    text('F1', 10, 72, 770, 'Synthetic Guide'),
    text('F1', 14, 72, 700, 'Removing'),
    text('F1', 10, 72, 680, 'Delete the directory.'),
    text('F1', 10, 300, 40, '3'),
  ],
].map((commands) => commands.join('\n'));

describe('pdfToMarkdown on a hand-built guide', () => {
  let result: PdfMarkdown;
  before(async () => {
    result = await pdfToMarkdown(buildPdf(guidePages, { title: 'The Synthetic Guide' }));
  });

  it('counts pages and takes the title from the metadata', () => {
    assert.equal(result.pageCount, 3);
    assert.equal(result.title, 'The Synthetic Guide');
  });

  it('maps the largest font to # and the next one to ##', () => {
    const headings = result.markdown.split('\n').filter((line) => line.startsWith('#'));
    assert.deepEqual(headings, ['# Getting Started', '## Installing', '## Removing']);
  });

  it('joins wrapped lines into one paragraph line and separates paragraphs by a blank line', () => {
    assert.match(
      result.markdown,
      /\nThe first paragraph has three lines that were wrapped by the typesetter in the middle of a word, while a well-known compound keeps its hyphen\.\n\nA second paragraph follows after a wider gap and runs over two lines\.\n/,
    );
  });

  it('keeps monospace lines as a fenced code block with their indentation', () => {
    assert.match(result.markdown, /\n```\nmake install\n {2}make check\n```\n/);
  });

  it('continues a paragraph that a page break cut in two', () => {
    assert.match(result.markdown, /so it continues on the next page and ends there\.\n/);
  });

  it('drops page numbers and the running header', () => {
    const lines = result.markdown.split('\n');
    assert.ok(!lines.includes('Synthetic Guide'), result.markdown);
    assert.ok(!lines.some((line) => /^\d+$/.test(line)), result.markdown);
  });
});

describe('pdfToMarkdown titles and inputs', () => {
  it('falls back to the first heading when the metadata title is trivial', async () => {
    const result = await pdfToMarkdown(buildPdf(guidePages, { title: 'untitled.pdf' }));
    assert.equal(result.title, 'Getting Started');
  });

  it('answers null for the title when there is neither metadata nor a heading', async () => {
    const result = await pdfToMarkdown(buildPdf([text('F1', 10, 72, 700, 'Just one line of text.')]));
    assert.equal(result.title, null);
    assert.equal(result.markdown, 'Just one line of text.\n');
  });

  it('leaves the caller’s buffer intact (pdf.js would otherwise detach it)', async () => {
    const data = buildPdf(guidePages);
    const length = data.length;
    await pdfToMarkdown(data);
    assert.equal(data.length, length);
  });
});

describe('pdfToMarkdown errors', () => {
  it('rejects bytes that are not a PDF as document_unreadable', async () => {
    const garbage = new TextEncoder().encode('this is not a PDF, just some text pretending to be one');
    await assert.rejects(pdfToMarkdown(garbage), { code: 'document_unreadable' });
  });

  it('rejects an empty input as document_unreadable', async () => {
    await assert.rejects(pdfToMarkdown(new Uint8Array(0)), { code: 'document_unreadable' });
  });

  it('rejects a PDF without a text layer as document_unreadable', async () => {
    await assert.rejects(pdfToMarkdown(buildPdf(['0 0 1 rg 72 72 200 200 re f'])), {
      code: 'document_unreadable',
      message: /no text layer/,
    });
  });

  it('rejects a password-protected PDF as document_unreadable', async () => {
    const hash = '0'.repeat(64);
    const encrypt = ` /Encrypt << /Filter /Standard /V 1 /R 2 /O <${hash}> /U <${hash}> /P -4 >> /ID [<${'1'.repeat(32)}> <${'1'.repeat(32)}>]`;
    const locked = buildPdf([text('F1', 10, 72, 700, 'Secret.')], { trailerExtra: encrypt });
    await assert.rejects(pdfToMarkdown(locked), { code: 'document_unreadable', message: /password/ });
  });
});

describe('pdfToMarkdown on the R Data Import/Export manual', () => {
  let result: PdfMarkdown;
  before(async () => {
    result = await pdfToMarkdown(new Uint8Array(await readFile(`${manualsDirectory}R-data-import-export-4.2.2.pdf`)));
  });

  it('accepts a Node Buffer, as file reads and uploads deliver it', async () => {
    const fromBuffer = await pdfToMarkdown(await readFile(`${manualsDirectory}R-data-import-export-4.2.2.pdf`));
    assert.equal(fromBuffer.markdown, result.markdown);
  });

  it('counts the pages and finds the title on the title page', () => {
    assert.equal(result.pageCount, 41);
    assert.equal(result.title, 'R Data Import/Export');
  });

  it('turns chapters into ## and sections into ### headings', () => {
    const lines = result.markdown.split('\n');
    for (const heading of ['## 1 Introduction', '### 1.1 Imports', '### 1.1.1 Encodings', '## 4 Relational databases']) {
      assert.ok(lines.includes(heading), `missing heading line: ${heading}`);
    }
  });

  it('rebuilds paragraphs as single lines separated by blank lines', () => {
    const sentence =
      'This manual describes the import and export facilities available either in R itself or via packages which are available from CRAN or elsewhere.';
    assert.ok(result.markdown.includes(`\n\n${sentence}\n\n`));
    const prose = result.markdown.split('\n').filter((line) => /^[A-Z][a-z]/.test(line));
    const longLines = prose.filter((line) => line.length > 200);
    assert.ok(longLines.length > prose.length / 4, 'most prose should come as whole paragraphs, not one PDF line each');
  });

  it('drops the running chapter headers', () => {
    assert.doesNotMatch(result.markdown, /^Chapter \d+: .* \d+$/m);
  });
});

describe('pdfToMarkdown on the Bash Reference Manual', () => {
  let result: PdfMarkdown;
  before(async () => {
    result = await pdfToMarkdown(new Uint8Array(await readFile(`${manualsDirectory}bash-reference-manual-5.2.pdf`)));
  });

  it('counts all 196 pages and finds the title', () => {
    assert.equal(result.pageCount, 196);
    assert.equal(result.title, 'Bash Reference Manual');
  });

  it('marks the chapter and section headings', () => {
    const lines = result.markdown.split('\n');
    assert.ok(lines.includes('## 3 Basic Shell Features'));
    assert.ok(lines.includes('### 3.1 Shell Syntax'));
    assert.ok(lines.includes('### 3.2.3 Pipelines'));
  });

  it('keeps a paragraph on one line and mends a hyphenated word', () => {
    const lines = result.markdown.split('\n');
    assert.ok(
      lines.includes(
        'A simple shell command such as echo a b c consists of the command itself followed by arguments, separated by spaces.',
      ),
    );
    assert.match(result.markdown, /message catalog files containing the compiled translations are installed in the correct location/);
  });

  it('drops the running headers', () => {
    assert.doesNotMatch(result.markdown, /^Chapter 3: Basic Shell Features/m);
  });
});
