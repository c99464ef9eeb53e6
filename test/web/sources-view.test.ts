// The playground's Sources view end to end, in headless Chromium over the real service: a page of a loopback site
// registered into a new namespace (listed with its schedule, counts, next run and webhook path), a failing page listed
// with its failure, Refresh now, and Remove. Screenshot: test-artifacts/playground-sources.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { packageRoot } from '../../src/package-root.js';
import { launchChromium } from '../support/chromium.js';
import { ensurePlaygroundBuilt } from '../support/compiled-entry.js';
import { startService, type ListeningTestService } from '../support/service.js';
import { startStaticSite, type StaticSite } from '../support/static-site.js';

const stepTimeout = { timeout: 60_000 };

describe('playground Sources view', () => {
  let browser: Browser;
  let service: ListeningTestService;
  let site: StaticSite;
  let page: Page;
  const pageProblems: string[] = [];

  before(async () => {
    ensurePlaygroundBuilt();
    site = await startStaticSite({
      '/escalation': {
        body: '<html><head><title>Escalation</title></head><body><main><h1>Escalation</h1><p>Page the duty manager after 15 minutes.</p></main></body></html>',
      },
      '/broken': { status: 500, body: 'down' },
    });
    browser = await launchChromium();
    // Listening: Chromium loads the playground from the service.
    service = await startService({ listen: true, apiKey: undefined, environment: { KNOWLEDGE_AGENT_MODEL: 'extractive' } });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(30_000);
    page.on('console', (message) => {
      if (message.type() === 'error') pageProblems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));
    await page.goto(`${service.baseUrl}/`);
    await page.locator('#service-status[data-state="ready"]').waitFor();
    await page.locator('#namespace-select option').first().waitFor({ state: 'attached' });
  });

  after(async () => {
    await page?.close();
    await browser?.close();
    await service?.dispose();
    await site?.close();
  });

  const row = (path: string) => page.locator('.source-row', { has: page.locator('.source-url', { hasText: `${site.url}${path}` }) });

  it('adds a page into a new namespace and lists it with its schedule, counts, next run and webhook', stepTimeout, async () => {
    await page.locator('#new-namespace').fill('oncall');
    const kind = page.getByLabel('Kind', { exact: true });
    await kind.selectOption('crawl');
    assert.equal(await page.getByRole('group', { name: 'Crawl' }).isVisible(), true);
    assert.equal(await page.getByRole('group', { name: 'Git' }).isVisible(), false);
    await kind.selectOption('git');
    assert.equal(await page.getByLabel('Branch').inputValue(), 'main');
    await kind.selectOption('');
    assert.equal(await page.getByRole('group', { name: 'Git' }).isVisible(), false);
    await page.getByLabel('URL', { exact: true }).fill(`${site.url}/escalation`);
    await page.getByLabel('Refresh', { exact: true }).selectOption('6h');
    await page.getByRole('button', { name: 'Add source' }).click();
    await page.locator('#sources-summary', { hasText: /^Added / }).waitFor();
    assert.equal(await page.locator('#namespace-select').inputValue(), 'oncall');

    const added = row('/escalation');
    await added.waitFor();
    assert.equal(await added.locator('.status-kind').textContent(), 'Page');
    assert.equal(await added.locator('.source-settings').textContent(), 'every 6h');
    assert.match(
      (await added.locator('.source-refresh').textContent()) ?? '',
      /\(added\): 1 checked · 0 unchanged · 0 updated · 1 added · 0 removed · 0 failed$/,
    );
    assert.match((await added.locator('.source-next').textContent()) ?? '', /^Next refresh /);
    assert.match((await added.locator('.source-webhook code').textContent()) ?? '', /^\/hooks\/sources\/oncall\/[0-9a-f]{12}$/);
    assert.match((await page.locator('#namespace-meta').textContent()) ?? '', /^1 document/);
  });

  it('lists a page that failed with its reason, refreshes a source now and removes one', stepTimeout, async () => {
    await page.getByLabel('URL', { exact: true }).fill(`${site.url}/broken`);
    await page.getByLabel('Refresh', { exact: true }).selectOption('');
    await page.getByRole('button', { name: 'Add source' }).click();
    const broken = row('/broken');
    await broken.waitFor();
    assert.equal(await broken.locator('.source-settings').textContent(), 'no schedule');
    assert.equal(await broken.locator('.source-next').textContent(), 'No scheduled refresh.');
    assert.match((await broken.locator('.source-counts').textContent()) ?? '', / 1 failed$/);
    await broken.locator('.source-failures summary').click();
    assert.match((await broken.locator('.source-failures li').textContent()) ?? '', new RegExp(`^${site.url}/broken: `));

    await page.getByRole('button', { name: `Refresh now: ${site.url}/escalation` }).click();
    await row('/escalation').locator('.source-refresh', { hasText: '(manual): 1 checked · 1 unchanged' }).waitFor();

    await mkdir(join(packageRoot, 'test-artifacts'), { recursive: true });
    await page.locator('.sources').screenshot({ path: join(packageRoot, 'test-artifacts', 'playground-sources.png') });

    await page.getByRole('button', { name: `Remove: ${site.url}/broken` }).click();
    await broken.waitFor({ state: 'detached' });
    assert.equal(await page.locator('.source-row').count(), 1);
    assert.deepEqual(pageProblems, []);
  });
});
