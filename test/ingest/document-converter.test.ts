// DocumentConverter: HTML and PDF are converted in worker threads, within the page, time and memory limits; a
// conversion past them fails with its own catalogue code and the next one is served by a fresh worker.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DocumentConverter } from '../../src/ingest/document-converter.js';
import { fixturesDirectory } from '../support/fixtures.js';

const page = (body: string) => Buffer.from(`<!doctype html><html><head><title>Guide</title></head><body>${body}</body></html>`);
const ordinary = page('<main><h1>Guide</h1><p>Run the installer, then restart the service.</p></main>');

function converter(options: { timeoutMs?: number; memoryMb?: number } = {}): DocumentConverter {
  const created = new DocumentConverter({ workers: 1, ...options });
  after(() => created.close());
  return created;
}

describe('DocumentConverter', () => {
  it('converts HTML and PDF in a worker, and Markdown in place', async () => {
    const documents = converter();
    const html = await documents.convert(ordinary, 'html', 'https://example.com/guide.html');
    assert.equal(html.title, 'Guide');
    assert.match(html.markdown, /Run the installer/);
    const pdf = await documents.convert(await readFile(join(fixturesDirectory, 'pdfs', 'R-intro-4.2.2.pdf')), 'pdf');
    assert.ok(pdf.markdown.length > 10_000);
    assert.equal((await documents.convert(Buffer.from('# Notes\n\ntext'), 'markdown')).markdown.trim(), '# Notes\n\ntext');
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
