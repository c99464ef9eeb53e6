// The playground's feedback and Insights view end to end, in headless Chromium over the real service (extractive
// answers, the bundled embedding model): thumbs under each answer (a thumbs down with a comment), then the Insights
// card shows the gap groups, the per-day chart and the most asked questions.
// Screenshots: test-artifacts/playground-insights.png and playground-feedback.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { GapsReport } from '../../src/insights/index.js';
import { packageRoot } from '../../src/package-root.js';
import { launchChromium } from '../support/chromium.js';
import { ensurePlaygroundBuilt } from '../support/compiled-entry.js';
import { startService, type ListeningTestService } from '../support/service.js';

const stepTimeout = { timeout: 60_000 };
const missingTopic = ['How do I set up single sign-on with Okta?', 'Is SAML SSO supported?', 'configure SSO login for my team'];

describe('playground feedback and Insights', () => {
  let browser: Browser;
  let service: ListeningTestService;
  let page: Page;
  const pageProblems: string[] = [];

  before(async () => {
    ensurePlaygroundBuilt();
    browser = await launchChromium();
    // Listening: Chromium loads the playground from the service.
    service = await startService({ listen: true, apiKey: undefined, environment: { KNOWLEDGE_AGENT_MODEL: 'extractive' } });
    const ingested = await service.post('/tools/ingest', {
      namespace: 'handbook',
      sources: [
        {
          type: 'text',
          title: 'Vacation',
          value: '# Vacation\n\nEmployees get twenty-five vacation days per year. Unused days expire in March.',
        },
        { type: 'text', title: 'Expenses', value: '# Expenses\n\nSubmit expense reports within thirty days through the finance portal.' },
      ],
    });
    assert.equal(ingested.status, 200);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(30_000);
    page.on('console', (message) => {
      if (message.type() === 'error') pageProblems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));
    await page.goto(`${service.baseUrl}/`);
    await page.locator('#service-status[data-state="ready"]').waitFor();
    await page.locator('#namespace-select option[value="handbook"]').waitFor({ state: 'attached' });
    await page.locator('#namespace-select').selectOption('handbook');
  });

  after(async () => {
    await page?.close();
    await browser?.close();
    await service?.dispose();
  });

  async function ask(question: string) {
    await page.locator('#question').fill(question);
    await page.locator('#question').press('Enter');
    const turn = page.locator('.turn').last();
    await turn.locator('.feedback').waitFor();
    return turn;
  }

  it('puts thumbs under each answer; a thumbs down takes a comment, and both reach the question log', stepTimeout, async () => {
    const good = await ask('How many vacation days do employees get?');
    await good.getByRole('button', { name: 'Helpful', exact: true }).click();
    await good.locator('.feedback-status', { hasText: 'Thanks for the feedback.' }).waitFor();
    assert.equal(await good.getByRole('button', { name: 'Helpful', exact: true }).getAttribute('aria-pressed'), 'true');

    for (const question of missingTopic) await ask(question);
    const bad = page.locator('.turn').last();
    await bad.getByRole('button', { name: 'Not helpful' }).click();
    await bad.getByRole('textbox', { name: 'Comment' }).fill('Nothing about Okta in the handbook');
    await bad.getByRole('button', { name: 'Send' }).click();
    await bad.locator('.feedback-status', { hasText: 'Thanks, the comment is sent.' }).waitFor();
    await mkdir(join(packageRoot, 'test-artifacts'), { recursive: true });
    await bad.screenshot({ path: join(packageRoot, 'test-artifacts', 'playground-feedback.png') });

    const report = (await (await service.get('/api/gaps/handbook')).json()) as GapsReport;
    assert.equal(report.totals.rated_up, 1);
    assert.equal(report.totals.rated_down, 1);
    assert.deepEqual(report.groups[0]?.comments, ['Nothing about Okta in the handbook']);
  });

  it('shows the gap groups, the questions per day and the most asked questions', stepTimeout, async () => {
    await page.locator('#insights-submit').click();
    const output = page.locator('#insights-output');
    await output.locator('.gap-group').first().waitFor();
    assert.match(
      (await output.locator('.insights-totals').textContent()) ?? '',
      /^4 questions in handbook: 1 covered, 3 not covered, 1 rated up, 1 rated down\./,
    );
    const group = output.locator('.gap-group').first();
    assert.match((await group.locator('.gap-count').textContent()) ?? '', /^3 questions$/);
    for (const question of missingTopic) assert.equal(await group.locator('.gap-questions li', { hasText: question }).count(), 1);
    assert.match((await group.locator('.gap-comment').textContent()) ?? '', /Nothing about Okta/);
    assert.match((await group.locator('.gap-pages').textContent()) ?? '', /^Closest pages: /);
    const chart = output.locator('svg.day-chart');
    assert.equal(await chart.locator('rect.bar-covered').count(), 1);
    assert.equal(await chart.locator('rect.bar-not-covered').count(), 1);
    assert.equal(await chart.locator('rect.bar-rated-down').count(), 1);
    assert.equal(await output.locator('.top-questions li').count(), 4);
    await page.locator('.insights').screenshot({ path: join(packageRoot, 'test-artifacts', 'playground-insights.png') });
    assert.deepEqual(pageProblems, []);
  });
});
