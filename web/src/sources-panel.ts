// The Sources view of a namespace (/api/sources/:namespace): the registered sources with their schedule, last refresh
// (its counts and failures), next run and webhook path, each with Refresh now and Remove; and a form that registers a
// source (a page, a crawl root, a sitemap or a git repository). Listing needs a read token; the rest a write token.
import { describeFailure, type ApiClient } from './api-client.js';
import type { NewSource, RefreshSummary, RegisteredSource, RegisteredSourceKind } from './api-types.js';
import { clear, h, plural } from './dom.js';
import type { NamespacePicker } from './namespace-picker.js';

export interface SourcesPanelElements {
  readonly form: HTMLFormElement;
  readonly url: HTMLInputElement;
  readonly kind: HTMLSelectElement;
  readonly every: HTMLSelectElement;
  readonly crawlOptions: HTMLFieldSetElement;
  readonly maxPages: HTMLInputElement;
  readonly maxDepth: HTMLInputElement;
  readonly prune: HTMLInputElement;
  readonly gitOptions: HTMLFieldSetElement;
  readonly branch: HTMLInputElement;
  readonly folder: HTMLInputElement;
  readonly submit: HTMLButtonElement;
  readonly summary: HTMLElement;
  readonly list: HTMLUListElement;
}

const kindLabels: Record<RegisteredSourceKind, string> = { page: 'Page', crawl: 'Crawl', sitemap: 'Sitemap', git: 'Git' };

function localTime(iso: string): string {
  return new Date(iso).toLocaleString();
}

function refreshCounts(summary: RefreshSummary): string {
  return [
    `${summary.checked} checked`,
    `${summary.unchanged} unchanged`,
    `${summary.updated} updated`,
    `${summary.added} added`,
    `${summary.removed} removed`,
    `${summary.failed.length} failed`,
  ].join(' · ');
}

function lastRefresh(summary: RefreshSummary | null): HTMLElement {
  if (summary === null) return h('p', { className: 'source-refresh', text: 'Not refreshed yet.' });
  return h('div', { className: 'source-refresh' }, [
    h('p', {}, [
      `Last refresh ${localTime(summary.finished_at)} (${summary.trigger}): `,
      h('span', { className: 'source-counts', text: refreshCounts(summary) }),
    ]),
    summary.failed.length === 0
      ? null
      : h('details', { className: 'source-failures' }, [
          h('summary', { text: `Why ${plural(summary.failed.length, 'page')} failed` }),
          h(
            'ul',
            {},
            summary.failed.map((failure) => h('li', { text: `${failure.url}: ${failure.code}, ${failure.message}` })),
          ),
        ]),
  ]);
}

function settings(source: RegisteredSource): string {
  const schedule = source.every === null ? 'no schedule' : `every ${source.every}`;
  const crawl =
    source.crawl && `up to ${plural(source.crawl.maxPages, 'page')}, depth ${source.crawl.maxDepth}${source.crawl.prune ? ', prunes' : ''}`;
  const git = source.git && `branch ${source.git.branch}${source.git.folder === '' ? '' : `, folder ${source.git.folder}`}`;
  return [schedule, crawl, git].filter((part) => part !== undefined).join(' · ');
}

export class SourcesPanel {
  /** Counts list loads, so that a slow answer for a namespace no longer chosen is dropped. */
  private loads = 0;

  constructor(
    private readonly api: ApiClient,
    private readonly picker: NamespacePicker,
    private readonly elements: SourcesPanelElements,
    /** After a namespace's documents changed: reloads the namespace picker, which then notifies its listeners. */
    private readonly onChanged: (namespace: string) => Promise<void>,
  ) {
    elements.kind.addEventListener('change', () => this.showKindOptions());
    elements.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.add();
    });
    picker.onChange(() => void this.load());
    this.showKindOptions();
  }

  private showKindOptions(): void {
    const { kind, crawlOptions, gitOptions } = this.elements;
    crawlOptions.hidden = kind.value !== 'crawl';
    gitOptions.hidden = kind.value !== 'git';
  }

  /** Lists the current namespace's sources; a namespace still to be created has none. */
  private async load(): Promise<void> {
    const load = ++this.loads;
    const namespace = this.picker.current();
    const { list } = this.elements;
    if (namespace === undefined || this.picker.isNew()) {
      this.render([]);
      return;
    }
    list.setAttribute('aria-busy', 'true');
    try {
      const sources = await this.api.sources(namespace);
      if (load === this.loads) this.render(sources);
    } catch (error) {
      if (load !== this.loads) return;
      clear(list);
      list.append(
        h('li', {
          className: 'turn-error',
          attributes: { role: 'alert' },
          text: `The sources could not be listed: ${describeFailure(error)}`,
        }),
      );
    } finally {
      if (load === this.loads) list.removeAttribute('aria-busy');
    }
  }

  private render(sources: readonly RegisteredSource[]): void {
    clear(this.elements.list);
    if (sources.length === 0) {
      this.elements.list.append(
        h('li', { className: 'hint', text: 'No sources yet: add a page, a site, a sitemap or a repository above.' }),
      );
      return;
    }
    this.elements.list.append(...sources.map((source) => this.row(source)));
  }

  private row(source: RegisteredSource): HTMLLIElement {
    const refresh = h('button', {
      className: 'button-quiet',
      text: 'Refresh now',
      attributes: { type: 'button', 'aria-label': `Refresh now: ${source.url}` },
    });
    const remove = h('button', {
      className: 'button-quiet',
      text: 'Remove',
      attributes: { type: 'button', 'aria-label': `Remove: ${source.url}` },
    });
    const status = h('p', { className: 'source-status', attributes: { role: 'status' } });
    const row = h('li', { className: 'source-row', attributes: { 'data-kind': source.kind, 'data-id': source.id } }, [
      h('div', { className: 'source-head' }, [
        h('span', { className: 'status-kind', text: kindLabels[source.kind] }),
        h('a', {
          className: 'source-url',
          text: source.url,
          attributes: { href: source.url, target: '_blank', rel: 'noopener noreferrer' },
        }),
        h('span', { className: 'source-actions' }, [refresh, remove]),
      ]),
      h('p', { className: 'source-settings', text: settings(source) }),
      lastRefresh(source.last_refresh),
      h('p', {
        className: 'source-next',
        text: source.next_run_at === null ? 'No scheduled refresh.' : `Next refresh ${localTime(source.next_run_at)}.`,
      }),
      h('p', { className: 'source-webhook' }, [
        'Webhook: POST ',
        h('code', { text: source.webhook.path }),
        source.webhook.secret_set ? ' (signed with its secret)' : ' (no secret set yet: give it a webhook_secret through the API first)',
      ]),
      status,
    ]);
    const act = async (doing: string, run: () => Promise<void>) => {
      refresh.disabled = true;
      remove.disabled = true;
      status.textContent = doing;
      try {
        await run();
      } catch (error) {
        status.textContent = `Failed: ${describeFailure(error)}`;
        refresh.disabled = false;
        remove.disabled = false;
      }
    };
    // onChanged reloads the namespace picker, whose change event lists the sources again.
    refresh.addEventListener(
      'click',
      () =>
        void act('Refreshing…', async () => {
          await this.api.refreshSource(source.namespace, source.id);
          await this.onChanged(source.namespace);
        }),
    );
    remove.addEventListener(
      'click',
      () =>
        void act('Removing…', async () => {
          await this.api.removeSource(source.namespace, source.id);
          await this.load();
        }),
    );
    return row;
  }

  private newSource(): NewSource {
    const { url, kind, every, maxPages, maxDepth, prune, branch, folder } = this.elements;
    const chosen = kind.value === '' ? undefined : (kind.value as RegisteredSourceKind);
    return {
      url: url.value.trim(),
      ...(chosen === undefined ? {} : { kind: chosen }),
      ...(chosen === 'crawl'
        ? { crawl: { maxPages: maxPages.valueAsNumber, maxDepth: maxDepth.valueAsNumber, prune: prune.checked } }
        : {}),
      ...(chosen === 'git' ? { git: { branch: branch.value.trim() || 'main', folder: folder.value.trim() } } : {}),
      every: every.value === '' ? null : every.value,
    };
  }

  private async add(): Promise<void> {
    const { url, submit, summary } = this.elements;
    const namespace = this.picker.current();
    if (namespace === undefined) {
      summary.textContent = 'Choose or name a namespace first.';
      summary.dataset.tone = 'error';
      return;
    }
    if (url.value.trim() === '') {
      summary.textContent = 'Enter the URL of a page, site, sitemap or repository.';
      summary.dataset.tone = 'error';
      url.focus();
      return;
    }
    submit.disabled = true;
    summary.dataset.tone = 'normal';
    summary.textContent = 'Adding… its first refresh runs now.';
    try {
      const source = await this.api.addSource(namespace, this.newSource());
      url.value = '';
      // The picker lists the namespace (a new one too) and chooses it, and its change event lists the sources again;
      // only then is it said, so that what the page shows agrees with "Added".
      await this.onChanged(namespace);
      summary.textContent = `Added ${source.url}${source.last_refresh === null ? '' : `: ${refreshCounts(source.last_refresh)}`}.`;
    } catch (error) {
      summary.textContent = `Not added: ${describeFailure(error)}`;
      summary.dataset.tone = 'error';
    } finally {
      submit.disabled = false;
    }
  }
}
