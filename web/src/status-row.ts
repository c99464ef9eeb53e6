// One source's line in the ingest status list: what it is, and pending / saved / updated / skipped / failed with
// its chunk count or reason.
import { h, plural } from './dom.js';

export type SourceKind = 'file' | 'url' | 'text';
export type SourceStatus = 'pending' | 'saved' | 'updated' | 'skipped' | 'failed';

const kindLabels: Record<SourceKind, string> = { file: 'File', url: 'URL', text: 'Text' };

export class StatusRow {
  readonly element: HTMLLIElement;
  private readonly badge: HTMLSpanElement;
  private readonly detail: HTMLSpanElement;
  private state: SourceStatus = 'pending';

  constructor(kind: SourceKind, name: string) {
    this.badge = h('span', { className: 'badge', text: 'pending' });
    this.detail = h('span', { className: 'status-detail', text: kind === 'url' ? 'Fetching…' : 'Reading…' });
    this.element = h('li', { className: 'status-row', attributes: { 'data-status': 'pending', 'data-kind': kind } }, [
      h('span', { className: 'status-kind', text: kindLabels[kind] }),
      h('span', { className: 'status-main' }, [
        h('span', { className: 'status-name', text: name, attributes: { title: name } }),
        this.detail,
      ]),
      this.badge,
    ]);
  }

  get status(): SourceStatus {
    return this.state;
  }

  /**
   * `replacedStoredAt`: with `updated`, when the version it replaced was stored (a replacement is always said).
   * `warning`: stored, but not as asked (without embeddings while the provider is down).
   */
  stored(status: 'saved' | 'updated' | 'skipped', chunks: number, file: string, replacedStoredAt?: string, warning?: string): void {
    const detail =
      status === 'skipped'
        ? `unchanged, already stored as ${file}`
        : replacedStoredAt !== undefined
          ? `${plural(chunks, 'chunk')} · ${file} · replaced the version stored ${replacedStoredAt.slice(0, 16).replace('T', ' ')} UTC`
          : `${plural(chunks, 'chunk')} · ${file}`;
    this.show(status, warning === undefined ? detail : `${detail} · ${warning}`);
  }

  failed(reason: string): void {
    this.show('failed', reason);
  }

  private show(status: SourceStatus, detail: string): void {
    this.state = status;
    this.element.dataset.status = status;
    this.badge.textContent = status;
    this.detail.textContent = detail;
  }
}
