// The web playground end to end: the real service (extractive answers, the bundled embedding model) driven in
// headless Chromium: create a namespace from uploads and a URL, ask, open a citation, compare the three rankings.
// Screenshots: test-artifacts/playground.png (every run); the README's docs/playground.png only with
// UPDATE_SCREENSHOTS=1, so a test run never changes a committed file.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { playgroundRoute } from '../../src/routes/playground-route.js';
import { launchChromium } from '../support/chromium.js';
import { ensurePlaygroundBuilt } from '../support/compiled-entry.js';
import { fastapiDocsDirectory, fastapiPagePaths } from '../support/fastapi-docs.js';
import { startService, startServiceWithProvider, type ListeningTestService } from '../support/service.js';
import { startStaticSite, type StaticSite } from '../support/static-site.js';
import { packageRoot } from '../../src/package-root.js';

const stepTimeout = { timeout: 60_000 };

/** Opens the playground and waits until it has checked the service and filled in the namespace picker. */
async function openPlayground(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.locator('#service-status[data-state="ready"]').waitFor();
  // The picker fills in after the health check: its first option marks the list as loaded.
  await page.locator('#namespace-select option').first().waitFor({ state: 'attached' });
}

const deploymentGuide = `# Deployment

The service is deployed with a rolling update. Each rollout waits for health checks to pass before it moves on.

## Rollback

A failed rollout is rolled back automatically within two minutes.
`;

const onboardingGuide = `# Onboarding

New engineers get access to the staging cluster on their first day. Production access needs a second approval from the on-call lead.
`;

const cachingPage = `<!doctype html><html><head><title>Caching</title></head><body>
<nav><a href="/">Home</a></nav>
<main><article>
<h1>Caching</h1>
<p>Responses are cached for five minutes at the edge. The cache is cleared on every deployment, so a release is visible at once.</p>
<h2>Bypassing the cache</h2>
<p>Send the header Cache-Control: no-cache to bypass the cache for one request. Cached responses carry an Age header.</p>
</article></main>
<footer>Internal docs</footer>
</body></html>`;

const cdnPage = `<!doctype html><html><head><title>CDN</title></head><body><main><article>
<h1>CDN</h1><p>Static assets are served from the CDN in three regions.</p>
</article></main></body></html>`;

/** An answer in Markdown with everything a renderer could get wrong, streamed back as the AG-UI events /agent sends. */
const markdownAnswer = [
  '## Clearing the cache',
  '',
  'Send `Cache-Control: no-cache` to **bypass** the cache [1]. See [the CDN guide](https://cdn.example/guide) or https://cdn.example/faq.',
  '',
  '1. Deploy the release [1]',
  '2. Check the *Age* header',
  '',
  '```sh',
  'curl -H "Cache-Control: no-cache" https://service.example/ [1]',
  '<b>not bold</b>',
  '```',
  '',
  'Markup stays text: <img src=x onerror="window.__injected=1"> <script>window.__injected=2</script> [a trap](javascript:window.__injected=3)',
  '',
  'Sources: caching.md',
].join('\n');

function agUiPlayback(answer: string): string {
  const events = [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
    { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'searchDocs' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"namespace":"handbook","query":"cache"}' },
    { type: 'TOOL_CALL_END', toolCallId: 'c1' },
    {
      type: 'TOOL_CALL_RESULT',
      messageId: 'm0',
      toolCallId: 'c1',
      role: 'tool',
      content: JSON.stringify({
        results: [{ file: 'caching.md', title: 'Caching', score: 1, excerpt: 'Responses are cached for five minutes at the edge.' }],
      }),
    },
    { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
    // Deltas that split marks, fences and citations in the middle.
    ...(answer.match(/[\s\S]{1,7}/g) ?? []).map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta })),
    { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
  ];
  return events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('');
}

// One browser for the file (each describe opens its own pages, each page its own browser context), driving the
// playground as web/ holds it now.
let browser: Browser;

before(async () => {
  ensurePlaygroundBuilt();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
});

describe('web playground', () => {
  let service: ListeningTestService;
  let site: StaticSite;
  let page: Page;
  let workDirectory: string;
  const pageProblems: string[] = [];

  before(async () => {
    // Listening: Chromium loads the playground from the service.
    service = await startService({ listen: true, apiKey: undefined, environment: { KNOWLEDGE_AGENT_MODEL: 'extractive' } });
    site = await startStaticSite({ '/caching.html': { body: cachingPage }, '/cdn.html': { body: cdnPage } });
    workDirectory = await mkdtemp(join(tmpdir(), 'playground-test-'));
    await writeFile(join(workDirectory, 'deployment.md'), deploymentGuide);
    await writeFile(join(workDirectory, 'onboarding.md'), onboardingGuide);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(30_000);
    page.on('console', (message) => {
      if (message.type() === 'error') pageProblems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));
  });

  after(async () => {
    await page?.close();
    await site?.close();
    await service?.dispose();
    if (workDirectory !== undefined) await rm(workDirectory, { recursive: true, force: true });
  });

  it('serves the page at / with a same-origin-only policy, next to the API routes', async () => {
    const response = await service.get('/');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.match(await response.text(), /<title>Knowledge Agent · Playground<\/title>/);
    assert.match((await service.get('/main.js')).headers.get('content-type') ?? '', /javascript/);
    assert.equal((await service.get('/health')).status, 200);
    const missing = await service.get('/no/such/page');
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { error: { code: 'not_found', message: 'no route GET /no/such/page' } });
  });

  it('answers 503 with a JSON error telling to build when dist/web is missing', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'playground-unbuilt-'));
    const app = Fastify({ logger: false });
    try {
      await app.register(playgroundRoute, { root: pathToFileURL(`${empty}/`) });
      const response = await app.inject({ method: 'GET', url: '/' });
      assert.equal(response.statusCode, 503);
      const body = response.json() as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'playground_not_built');
      assert.match(body.error.message, /npm run build/);
    } finally {
      await app.close();
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('creates a namespace from two uploaded files and a URL, with a status per source', stepTimeout, async () => {
    await openPlayground(page, service.baseUrl);
    // A fresh service has no namespace: the picker offers a new one.
    assert.equal(await page.locator('#namespace-select').inputValue(), '+new');
    await page.locator('#new-namespace').fill('handbook');
    await page.locator('#file-input').setInputFiles([join(workDirectory, 'deployment.md'), join(workDirectory, 'onboarding.md')]);
    assert.equal(await page.locator('.file-chip').count(), 2);
    await page.locator('#paste-input').fill(`${site.url}/caching.html`);
    assert.match((await page.locator('#paste-hint').textContent()) ?? '', /1 URL/);
    await page.getByRole('button', { name: 'Add to namespace' }).click();

    const rows = page.locator('#ingest-status .status-row');
    await page.locator('#ingest-status .status-row:not([data-status="pending"])').nth(2).waitFor();
    assert.equal(await rows.count(), 3);
    const expected: [name: string, file: string][] = [
      ['deployment.md', 'deployment.md'],
      ['onboarding.md', 'onboarding.md'],
      [`${site.url}/caching.html`, 'caching.md'],
    ];
    for (const [name, file] of expected) {
      const row = rows.filter({ has: page.locator('.status-name', { hasText: name }) });
      assert.equal(await row.getAttribute('data-status'), 'saved', name);
      assert.match(
        (await row.locator('.status-detail').textContent()) ?? '',
        new RegExp(`^\\d+ chunks? · ${file.replace('.', '\\.')}$`),
        name,
      );
    }
    assert.match((await page.locator('#ingest-summary').textContent()) ?? '', /3 saved in handbook/);
    // The new namespace is listed and chosen.
    await page.locator('#namespace-select option:checked[value="handbook"]').waitFor({ state: 'attached' });
    assert.match(
      (await page.locator('#namespace-meta').textContent()) ?? '',
      /3 documents · \d+ chunks · embedded with local:all-MiniLM-L6-v2-int8/,
    );
  });

  it('streams an answer after the retrieval step, with citations', stepTimeout, async () => {
    await page.locator('#question').fill('How long are responses cached?');
    await page.locator('#question').press('Enter');
    const turn = page.locator('.turn').last();
    await turn.locator('.retrieval-step[data-state="done"]').waitFor();
    const step = (await turn.locator('.retrieval-step').textContent()) ?? '';
    assert.match(step, /searchDocs/);
    assert.match(step, /Found \d+ snippets? for “How long are responses cached\?” in handbook/);
    await turn.locator('.answer[data-state="done"]').waitFor();
    assert.equal(await turn.locator('.answer-body').getAttribute('aria-live'), 'polite');
    const answer = (await turn.locator('.answer-body').textContent()) ?? '';
    assert.match(answer, /cached for five minutes/);
    assert.ok((await turn.locator('.answer-body button.citation').count()) >= 1, 'at least one citation');
    assert.match((await turn.locator('.answer-sources').textContent()) ?? '', /Sources.*caching\.md/);
    // A source that came from a web page links to it.
    const sourceLink = turn.locator('.answer-sources a.source-chip');
    await sourceLink.waitFor();
    assert.equal(await sourceLink.getAttribute('href'), `${site.url}/caching.html`);
    assert.equal(await sourceLink.getAttribute('rel'), 'noopener noreferrer nofollow');
  });

  it('opens a citation with its snippet, title and source; Escape closes it and returns focus', stepTimeout, async () => {
    const citation = page.locator('.turn').last().locator('button.citation').first();
    await citation.click();
    const popover = page.getByRole('dialog');
    await popover.waitFor();
    assert.equal(await citation.getAttribute('aria-expanded'), 'true');
    assert.equal(await popover.locator('.popover-title').textContent(), 'Caching');
    assert.match((await popover.locator('.popover-snippet').textContent()) ?? '', /cached for five minutes/);
    const sourceLink = popover.locator('.popover-source a');
    await sourceLink.waitFor();
    assert.equal(await sourceLink.textContent(), `${site.url}/caching.html`);
    assert.equal(await sourceLink.getAttribute('href'), `${site.url}/caching.html`);
    await page.keyboard.press('Escape');
    await popover.waitFor({ state: 'hidden' });
    assert.equal(await page.locator('.turn button.citation:focus').count(), 1, 'focus is back on the citation');
    assert.equal(await citation.getAttribute('aria-expanded'), 'false');
    // The keyboard opens it too.
    await page.keyboard.press('Enter');
    await popover.waitFor();
    await page.keyboard.press('Escape');
    await popover.waitFor({ state: 'hidden' });
  });

  it('compares lexical, embedding and hybrid results side by side', stepTimeout, async () => {
    await page.locator('#search-query').fill('production access approval');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.locator('.search-column[data-state="done"]').nth(2).waitFor();
    for (const mode of ['lexical', 'embedding', 'hybrid']) {
      const column = page.locator(`.search-column[data-mode="${mode}"]`);
      assert.ok((await column.locator('.result').count()) >= 1, `${mode} has results`);
      assert.equal(await column.locator('.column-notice').isVisible(), false, `${mode} ran as asked`);
      assert.match((await column.locator('.result-title').first().textContent()) ?? '', /Onboarding/, mode);
      assert.match((await column.locator('.result-score').first().textContent()) ?? '', /^\d+\.\d+$/, mode);
    }
  });

  it("renders an answer's Markdown safely: headings, lists, code blocks, links; markup stays text", stepTimeout, async () => {
    await page.route('**/agent', (route) =>
      route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: agUiPlayback(markdownAnswer) }),
    );
    await page.locator('#question').fill('How do I bypass the cache?');
    await page.locator('#question').press('Enter');
    const turn = page.locator('.turn').last();
    await turn.locator('.answer[data-state="done"]').waitFor();
    await page.unroute('**/agent');
    const body = turn.locator('.answer-body');
    assert.equal(await body.locator('h4').textContent(), 'Clearing the cache');
    assert.equal(await body.locator('p code').first().textContent(), 'Cache-Control: no-cache');
    assert.equal(await body.locator('strong').textContent(), 'bypass');
    assert.equal(await body.locator('ol > li').count(), 2);
    assert.equal(await body.locator('ol em').textContent(), 'Age');
    const code = body.locator('pre.md-code code');
    assert.equal(await code.getAttribute('data-language'), 'sh');
    assert.equal(
      await code.textContent(),
      'curl -H "Cache-Control: no-cache" https://service.example/ [1]\n<b>not bold</b>',
      'code is verbatim: no citation, link or markup inside',
    );
    const links = body.locator('a');
    assert.deepEqual(
      await links.evaluateAll((anchors) =>
        anchors.map((anchor) => [
          anchor.textContent,
          anchor.getAttribute('href'),
          anchor.getAttribute('target'),
          anchor.getAttribute('rel'),
        ]),
      ),
      [
        ['the CDN guide', 'https://cdn.example/guide', '_blank', 'noopener noreferrer nofollow'],
        ['https://cdn.example/faq', 'https://cdn.example/faq', '_blank', 'noopener noreferrer nofollow'],
      ],
    );
    assert.equal(await body.locator('button.citation').count(), 2, 'citations in text and lists, not in code');
    // Markup is shown as the text it is; a javascript: link keeps only its label.
    assert.match(
      (await body.textContent()) ?? '',
      /<img src=x onerror="window.__injected=1"> <script>window.__injected=2<\/script> a trap$/,
    );
    assert.equal(await body.locator('img, script, b').count(), 0);
    assert.equal(await page.evaluate('window.__injected'), undefined);
    await turn.locator('.answer-sources a.source-chip').waitFor();
    await mkdir(join(packageRoot, 'test-artifacts'), { recursive: true });
    await turn.screenshot({ path: join(packageRoot, 'test-artifacts', 'playground-markdown.png') });
  });

  it('stores pasted URLs and pasted text as separate sources', stepTimeout, async () => {
    await page.locator('#paste-input').fill(`${site.url}/cdn.html\n\n# Release notes\n\nVersion 2 moves assets to the CDN.`);
    assert.equal(
      await page.locator('#paste-hint').textContent(),
      '1 URL, fetched by the service; and text, added as the document "Release notes".',
    );
    await page.getByRole('button', { name: 'Add to namespace' }).click();
    await page.locator('#ingest-status .status-row:not([data-status="pending"])').nth(1).waitFor();
    const rows = page.locator('#ingest-status .status-row');
    assert.equal(await rows.count(), 2);
    const statuses = await rows.evaluateAll((elements) =>
      elements.map((row) => [
        row.querySelector('.status-name')?.textContent,
        row.getAttribute('data-status'),
        row.querySelector('.status-detail')?.textContent,
      ]),
    );
    assert.deepEqual(
      statuses.map(([name, status]) => [name, status]),
      [
        [`${site.url}/cdn.html`, 'saved'],
        ['Release notes', 'saved'],
      ],
    );
    assert.match(String(statuses[0]?.[2]), /cdn\.md$/);
    assert.match(String(statuses[1]?.[2]), /release-notes\.md$/);
  });

  it('shows a long namespace name whole in the picker', stepTimeout, async () => {
    const longName = `platform-engineering-runbooks-${'and-handbooks-'.repeat(2)}2026`.slice(0, 64);
    const response = await service.post('/tools/ingest', {
      namespace: longName,
      sources: [{ type: 'text', title: 'Runbook', value: 'Restart the worker first.' }],
    });
    assert.equal(response.status, 200);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.locator(`#namespace-select option[value="${longName}"]`).waitFor({ state: 'attached' });
    await page.locator('#namespace-select').selectOption(longName);
    // The width the chosen option's text needs in the select's font, against the width the select gives it.
    const fits = (await page.evaluate(`(() => {
      const select = document.querySelector('#namespace-select');
      const probe = document.createElement('span');
      probe.style.font = getComputedStyle(select).font;
      probe.style.whiteSpace = 'pre';
      probe.textContent = select.selectedOptions[0].textContent;
      document.body.append(probe);
      const needed = probe.getBoundingClientRect().width;
      probe.remove();
      const style = getComputedStyle(select);
      return { needed, available: select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) };
    })()`)) as { needed: number; available: number };
    assert.ok(fits.needed + 16 <= fits.available, `the name needs ${fits.needed}px and has ${fits.available}px`);
    await page.locator('.namespace-bar').screenshot({ path: join(packageRoot, 'test-artifacts', 'playground-namespace.png') });
    await page.locator('#namespace-select').selectOption('handbook');
  });

  it('takes the screenshots, with no errors in the page', stepTimeout, async () => {
    // The last citation's popover hides the least of the answer.
    await page.locator('.turn').last().locator('button.citation').last().click();
    await page.getByRole('dialog').waitFor();
    await mkdir(join(packageRoot, 'test-artifacts'), { recursive: true });
    await page.screenshot({ path: join(packageRoot, 'test-artifacts', 'playground.png'), fullPage: true });
    if (process.env.UPDATE_SCREENSHOTS === '1')
      await page.screenshot({ path: join(packageRoot, 'docs', 'playground.png'), fullPage: true });
    assert.deepEqual(pageProblems, []);
  });

  // The bundled model is always there in tests, so the service's answers without one are played back here.
  it('says so in the columns when embeddings are unavailable', stepTimeout, async () => {
    const unavailable = 'no embedding model is configured (set LLM_API_KEY or KNOWLEDGE_AGENT_EMBEDDING_MODEL=local)';
    await page.route('**/tools/search', async (route) => {
      const body = JSON.parse(route.request().postData() ?? '{}') as { mode?: string };
      if (body.mode === 'embedding') {
        await route.fulfill({ status: 503, json: { error: { code: 'embeddings_unavailable', message: unavailable } } });
      } else if (body.mode === 'hybrid') {
        const response = await route.fetch({ postData: JSON.stringify({ ...body, mode: 'lexical' }) });
        await route.fulfill({
          response,
          json: { ...((await response.json()) as object), notice: `${unavailable}; these results are ranked lexically` },
        });
      } else {
        await route.continue();
      }
    });
    await page.getByRole('button', { name: 'Compare' }).click();
    const embedding = page.locator('.search-column[data-mode="embedding"][data-state="unavailable"]');
    await embedding.waitFor();
    assert.equal(await embedding.locator('.column-notice').textContent(), `Embeddings are unavailable: ${unavailable}`);
    const hybrid = page.locator('.search-column[data-mode="hybrid"][data-state="done"]');
    await hybrid.waitFor();
    assert.match((await hybrid.locator('.column-notice').textContent()) ?? '', /^Ranked lexical instead: no embedding model is configured/);
    assert.ok((await hybrid.locator('.result').count()) >= 1);
    await page.unroute('**/tools/search');
  });
});

describe('web playground: a folder of documents', () => {
  let service: ListeningTestService;
  let page: Page;
  const pageProblems: string[] = [];

  before(async () => {
    // Embeddings from the loopback provider double: the 62 pages would keep the bundled model busy for minutes.
    // Listening: Chromium loads the playground from the service.
    ({ service } = await startServiceWithProvider({ listen: true, environment: { KNOWLEDGE_AGENT_MODEL: 'extractive' } }));
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(60_000);
    page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));
  });

  after(async () => {
    await page?.close();
    await service?.dispose();
  });

  async function documentSources(namespace: string): Promise<{ source: string; file: string }[]> {
    const response = await service.get(`/tools/documents?namespace=${namespace}`);
    assert.equal(response.status, 200);
    return ((await response.json()) as { documents: { source: string; file: string }[] }).documents;
  }

  it('stores every page of a chosen folder under its path in it: all 62 FastAPI pages, 0 refused', { timeout: 240_000 }, async () => {
    await openPlayground(page, service.baseUrl);
    await page.locator('#new-namespace').fill('fastapi');
    // The folder input (webkitdirectory) gives each file its path from the folder's parent: docs-fastapi/tutorial/...
    await page.locator('#folder-input').setInputFiles(fastapiDocsDirectory);
    // The 62 pages and SOURCE.txt, each shown by its path in the folder; LICENSE (no extension) is left out.
    assert.equal(await page.locator('.file-chip').count(), 63);
    assert.match((await page.locator('#ingest-summary').textContent()) ?? '', /^Left out 1 file that is not Markdown/);
    for (const path of ['tutorial/middleware.md', 'advanced/middleware.md', 'reference/middleware.md', 'index.md']) {
      assert.equal(await page.locator('.file-chip-name', { hasText: new RegExp(`^${path.replace('.', '\\.')}$`) }).count(), 1, path);
    }
    await page.getByRole('button', { name: 'Add to namespace' }).click();
    await page.locator('#ingest-summary', { hasText: /saved in fastapi/ }).waitFor({ timeout: 200_000 });
    const statuses = await page
      .locator('#ingest-status .status-row')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-status')));
    assert.equal(statuses.length, 63);
    assert.deepEqual([...new Set(statuses)], ['saved']);
    assert.equal(await page.locator('#ingest-summary').textContent(), '63 saved in fastapi.');

    const documents = await documentSources('fastapi');
    assert.deepEqual(
      documents
        .map((document) => document.source)
        .filter((source) => source.endsWith('.md'))
        .sort(),
      await fastapiPagePaths(),
    );
    assert.equal(new Set(documents.map((document) => document.file)).size, 63);
    const row = page.locator('#ingest-status .status-row', {
      has: page.locator('.status-name', { hasText: /^advanced\/middleware\.md$/ }),
    });
    assert.match((await row.locator('.status-detail').textContent()) ?? '', /^\d+ chunks? · advanced-middleware\.md$/);
  });

  it('walks a dropped folder, keeps the paths in it, and says which stored version an update replaced', stepTimeout, async () => {
    const tutorial = await readFile(join(fastapiDocsDirectory, 'tutorial', 'middleware.md'), 'utf8');
    const advanced = `${await readFile(join(fastapiDocsDirectory, 'advanced', 'middleware.md'), 'utf8')}\n\nA paragraph added since.\n`;
    // A drop of the folder docs-fastapi holding two middleware.md, through the browser's file-system entries API (the
    // only way a page sees a dropped folder's files), with entries built in the page: a test cannot drag from the desktop.
    // Sent as source text: the test runner's compiler would wrap functions passed to evaluate() in helpers the page lacks.
    await page.evaluate(`(() => {
      const fileEntry = (fullPath, text) => {
        const file = new File([text], fullPath.split('/').pop(), { type: 'text/markdown' });
        return { isFile: true, isDirectory: false, fullPath, file: (resolve) => resolve(file) };
      };
      const folderEntry = (fullPath, children) => ({
        isFile: false,
        isDirectory: true,
        fullPath,
        createReader: () => {
          let read = false;
          return { readEntries: (resolve) => { resolve(read ? [] : children); read = true; } };
        },
      });
      const root = folderEntry('/docs-fastapi', [
        folderEntry('/docs-fastapi/tutorial', [fileEntry('/docs-fastapi/tutorial/middleware.md', ${JSON.stringify(tutorial)})]),
        folderEntry('/docs-fastapi/advanced', [
          fileEntry('/docs-fastapi/advanced/middleware.md', ${JSON.stringify(advanced)}),
          fileEntry('/docs-fastapi/advanced/diagram.png', 'not a document'),
        ]),
      ]);
      const drop = new Event('drop', { bubbles: true, cancelable: true });
      Object.defineProperty(drop, 'dataTransfer', { value: { types: ['Files'], files: [], items: [{ kind: 'file', webkitGetAsEntry: () => root, getAsFile: () => null }] } });
      document.querySelector('#dropzone').dispatchEvent(drop);
    })()`);
    await page.locator('.file-chip').nth(1).waitFor();
    assert.deepEqual(await page.locator('.file-chip-name').allTextContents(), ['tutorial/middleware.md', 'advanced/middleware.md']);
    assert.match((await page.locator('#ingest-summary').textContent()) ?? '', /Left out 1 file that is not Markdown/);
    await page.getByRole('button', { name: 'Add to namespace' }).click();
    await page.locator('#ingest-summary', { hasText: /in fastapi/ }).waitFor();
    const rowOf = (name: string) =>
      page.locator('#ingest-status .status-row', {
        has: page.locator('.status-name', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }),
      });
    assert.equal(await rowOf('tutorial/middleware.md').getAttribute('data-status'), 'skipped');
    assert.equal(await rowOf('advanced/middleware.md').getAttribute('data-status'), 'updated');
    assert.match(
      (await rowOf('advanced/middleware.md').locator('.status-detail').textContent()) ?? '',
      /^\d+ chunks? · advanced-middleware\.md · replaced the version stored \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );
    assert.equal(await page.locator('#ingest-summary').textContent(), '1 updated · 1 skipped in fastapi.');
    assert.equal((await documentSources('fastapi')).length, 63);
    assert.deepEqual(pageProblems, []);
  });
});

describe('web playground with access tokens', () => {
  let service: ListeningTestService;

  before(async () => {
    // Listening: Chromium loads the playground from the service.
    service = await startService({
      listen: true,
      apiKey: undefined,
      environment: {
        KNOWLEDGE_AGENT_MODEL: 'extractive',
        KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:team',
        KNOWLEDGE_AGENT_READ_TOKENS: 'reader-token-for-tests:*',
      },
    });
  });

  after(async () => {
    await service?.dispose();
  });

  it('asks for a token, then sends the one entered as a Bearer token', stepTimeout, async () => {
    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}/`);
    await page.locator('#namespace-meta', { hasText: /Could not list namespaces:.*access token/ }).waitFor();
    await page.locator('.token summary').click();
    await page.locator('#token-input').fill('writer-token-for-tests');
    await page.locator('#token-input').press('Enter');
    assert.equal(await page.locator('#token-state').textContent(), 'set');
    await page.locator('#namespace-meta', { hasText: /is created when you add its first documents/ }).waitFor();
    await page.locator('#new-namespace').fill('team');
    // Markup in a document reaches the page as text, never as elements.
    await page
      .locator('#paste-input')
      .fill('# Holidays\n\nThe office is closed between Christmas and New Year <img src=x onerror="window.__injected=1">.');
    await page.getByRole('button', { name: 'Add to namespace' }).click();
    await page.locator('#ingest-status .status-row[data-status="saved"]').waitFor();
    assert.match((await page.locator('#ingest-status .status-name').textContent()) ?? '', /Holidays/);
    await page.locator('#search-query').fill('when is the office closed');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.locator('.search-column[data-state="done"]').nth(2).waitFor();
    assert.match(
      (await page.locator('.search-column[data-mode="lexical"] .result-excerpt').first().textContent()) ?? '',
      /<img src=x onerror=/,
    );
    assert.equal(await page.locator('.search-columns img').count(), 0);
    assert.equal(await page.evaluate('window.__injected'), undefined);
    // Kept for the tab, so a reload keeps it.
    await page.reload();
    assert.equal(await page.locator('#token-input').inputValue(), 'writer-token-for-tests');
    await page.close();
  });
});
