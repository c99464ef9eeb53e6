// DocumentConverter: documents are converted, hashed and chunked in worker threads (small Markdown and text in place),
// within the page, time and memory limits; a conversion past them fails with its own catalogue code and the next one is
// served by a fresh worker.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DocumentConverter } from '../../src/ingest/document-converter.js';
import { contentHash } from '../../src/store/content-hash.js';
import { fixturesDirectory } from '../support/fixtures.js';
import { unhurriedConversionMs } from '../support/service.js';

const page = (body: string) => Buffer.from(`<!doctype html><html><head><title>Guide</title></head><body>${body}</body></html>`);
const ordinary = page('<main><h1>Guide</h1><p>Run the installer, then restart the service.</p></main>');

/** A converter with `options`, by default in no hurry (a limit of its own only where the limit is the subject). */
function converter(options: { timeoutMs?: number; memoryMb?: number } = {}): DocumentConverter {
  const created = new DocumentConverter({ workers: 1, timeoutMs: unhurriedConversionMs, ...options });
  after(() => created.close());
  return created;
}

describe('DocumentConverter', () => {
  it('converts, hashes and chunks HTML, PDF and Markdown', async () => {
    const documents = converter();
    const html = await documents.convert(ordinary, 'html', 'https://example.com/guide.html');
    assert.equal(html.title, 'Guide');
    assert.match(html.markdown, /Run the installer/);
    assert.match(html.chunks[0]?.text ?? '', /Run the installer/);
    const pdf = await documents.convert(await readFile(join(fixturesDirectory, 'pdfs', 'R-intro-4.2.2.pdf')), 'pdf');
    assert.ok(pdf.markdown.length > 10_000 && pdf.chunks.length > 50);
    const notes = await documents.convert(Buffer.from('\n# Notes\n\ntext\n'), 'markdown');
    assert.deepEqual(notes, {
      title: 'Notes',
      markdown: '# Notes\n\ntext',
      hash: contentHash('# Notes\n\ntext'),
      chunks: [{ text: '# Notes\n\ntext', headingPath: ['Notes'] }],
    });
    assert.deepEqual(await documents.convertText('# Notes\r\n\r\ntext'), notes);
  });

  it('prepares Markdown and text past 8 KB in a worker, within the time limit, and small ones in place', async () => {
    const documents = converter({ timeoutMs: 20 });
    // Seconds of work in the chunker and the doc-site markup reader (the 5.9 MB of headings, runs of `[`).
    const pathological = `# B\n${'['.repeat(3_000_000)}\n${'###### h\n'.repeat(300_000)}`;
    await assert.rejects(documents.convert(Buffer.from(pathological), 'markdown'), { code: 'conversion_timed_out' });
    await assert.rejects(documents.convertText(pathological), { code: 'conversion_timed_out' });
    await assert.rejects(documents.convert(Buffer.from(pathological), 'text'), { code: 'conversion_timed_out' });
    const small = `# Small\n\n${'A sentence of a small page. '.repeat(250)}`;
    assert.ok(small.length < 8 * 1024);
    assert.equal((await documents.convert(Buffer.from(small), 'markdown')).title, 'Small');
  });

  it('chunks a large Markdown file in its worker, no chunk over 1,200 characters', async () => {
    const documents = converter();
    const prepared = await documents.convert(Buffer.from(`# B\n${'['.repeat(200_000)}\n\n${'###### \n'.repeat(40_000)}`), 'markdown');
    assert.equal(prepared.title, 'B');
    assert.ok(prepared.chunks.length >= 200_000 / 1_200);
    assert.ok(prepared.chunks.every((chunk) => chunk.text.length <= 1_200));
  });

  it('refuses a page with too many elements or too deep a nesting, before building its DOM', async () => {
    const documents = converter();
    await assert.rejects(documents.convert(page('<span>x</span>'.repeat(100_001)), 'html'), {
      code: 'document_too_complex',
      message: /more than 100,000 elements/,
    });
    await assert.rejects(documents.convert(page(`${'<div>'.repeat(5_001)}x`), 'html'), {
      code: 'document_too_complex',
      message: /5,000 levels/,
    });
  });

  it('stops a conversion past its time limit', async () => {
    const documents = converter({ timeoutMs: 20 });
    // ~0.5 s of work at least: far past the limit even on a fast machine.
    await assert.rejects(documents.convert(page(`${'<div>'.repeat(3_000)}deep${'</div>'.repeat(3_000)}`), 'html'), {
      code: 'conversion_timed_out',
    });
  });

  it('stops a conversion past its memory limit, then converts the next page', async () => {
    const documents = converter({ memoryMb: 16 });
    // About 90,000 elements: under the element limit (100,000), so only the memory limit can stop it, whatever the
    // worker's heap holds before the page (with 90,000 paragraphs the element count stopped it first on Node 24).
    const heavy = page(`<main>${'<p class="a b c">A paragraph of several words, with <a href="/x">a link</a>.</p>'.repeat(45_000)}</main>`);
    await assert.rejects(documents.convert(heavy, 'html'), { code: 'conversion_out_of_memory' });
    assert.match((await documents.convert(ordinary, 'html')).markdown, /Run the installer/);
  });
});
