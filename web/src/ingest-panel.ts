// Adds documents to the chosen namespace: dropped or picked files (multipart upload) and pasted URLs or text (JSON),
// each source with its own status row, updated live from the ingest routes' NDJSON progress.
import { describeFailure, type ApiClient } from './api-client.js';
import type { IngestProgress } from './api-types.js';
import { clear, h, plural } from './dom.js';
import type { NamespacePicker } from './namespace-picker.js';
import { describePasted, parsePasted, toRequestSource } from './pasted-sources.js';
import { StatusRow } from './status-row.js';

export interface IngestPanelElements {
  readonly form: HTMLFormElement;
  readonly dropzone: HTMLElement;
  readonly fileInput: HTMLInputElement;
  readonly fileQueue: HTMLUListElement;
  readonly pasteInput: HTMLTextAreaElement;
  readonly pasteHint: HTMLElement;
  readonly submit: HTMLButtonElement;
  readonly summary: HTMLElement;
  readonly statusList: HTMLUListElement;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export class IngestPanel {
  private queued: File[] = [];

  constructor(
    private readonly api: ApiClient,
    private readonly picker: NamespacePicker,
    private readonly elements: IngestPanelElements,
    private readonly onIngested: (namespace: string) => Promise<void>,
  ) {
    const { form, dropzone, fileInput, pasteInput } = elements;
    fileInput.addEventListener('change', () => {
      this.queue([...(fileInput.files ?? [])]);
      fileInput.value = '';
    });
    dropzone.addEventListener('dragenter', (event) => {
      event.preventDefault();
      dropzone.classList.add('is-dragging');
    });
    dropzone.addEventListener('dragover', (event) => {
      event.preventDefault();
      if (event.dataTransfer !== null) event.dataTransfer.dropEffect = 'copy';
    });
    dropzone.addEventListener('dragleave', (event) => {
      if (!dropzone.contains(event.relatedTarget as Node | null)) dropzone.classList.remove('is-dragging');
    });
    dropzone.addEventListener('drop', (event) => {
      event.preventDefault();
      dropzone.classList.remove('is-dragging');
      this.queue([...(event.dataTransfer?.files ?? [])]);
    });
    // A file dropped next to the zone would otherwise make the browser navigate away to it (text drops stay as they are).
    for (const type of ['dragover', 'drop'] as const) {
      window.addEventListener(type, (event) => {
        if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
      });
    }
    pasteInput.addEventListener('input', () => {
      elements.pasteHint.textContent = describePasted(parsePasted(pasteInput.value));
    });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submit();
    });
  }

  private queue(files: readonly File[]): void {
    for (const file of files) {
      if (!this.queued.some((queued) => queued.name === file.name && queued.size === file.size)) this.queued.push(file);
    }
    this.showQueue();
  }

  private showQueue(): void {
    const { fileQueue } = this.elements;
    fileQueue.replaceChildren(
      ...this.queued.map((file) => {
        const remove = h('button', { className: 'icon-button', text: '×', attributes: { type: 'button', 'aria-label': `Remove ${file.name}` } });
        remove.addEventListener('click', () => {
          this.queued = this.queued.filter((queued) => queued !== file);
          this.showQueue();
          this.elements.fileInput.focus();
        });
        return h('li', { className: 'file-chip' }, [h('span', { className: 'file-chip-name', text: file.name }), h('span', { className: 'file-chip-size', text: formatBytes(file.size) }), remove]);
      }),
    );
    fileQueue.hidden = this.queued.length === 0;
  }

  private say(message: string, tone: 'normal' | 'error' = 'normal'): void {
    this.elements.summary.textContent = message;
    this.elements.summary.dataset.tone = tone;
  }

  private async submit(): Promise<void> {
    const { pasteInput, submit, statusList } = this.elements;
    const namespace = this.picker.current();
    const files = [...this.queued];
    const pasted = parsePasted(pasteInput.value);
    if (namespace === undefined) {
      this.say('Choose a namespace, or name the new one, first.', 'error');
      return;
    }
    if (files.length === 0 && pasted.length === 0) {
      this.say('Add files, or paste URLs or text, first.', 'error');
      return;
    }
    submit.disabled = true;
    submit.textContent = 'Adding…';
    this.say(`Adding ${plural(files.length + pasted.length, 'source')} to ${namespace}…`);
    clear(statusList);
    const pastedRows = pasted.map((source) => new StatusRow(source.kind, source.kind === 'url' ? source.url : source.title));
    const fileRows = files.map((file) => new StatusRow('file', file.name));
    statusList.append(...fileRows.map((row) => row.element), ...pastedRows.map((row) => row.element));

    const stored = await Promise.all([
      files.length === 0 ? undefined : this.track(() => this.api.ingestFiles(namespace, files), fileRows),
      pasted.length === 0 ? undefined : this.track(() => this.api.ingestSources(namespace, pasted.map(toRequestSource)), pastedRows),
    ]);
    const rows = [...fileRows, ...pastedRows];
    const count = (status: string) => rows.filter((row) => row.status === status).length;
    const counts = ['saved', 'updated', 'skipped', 'failed'].filter((status) => count(status) > 0).map((status) => `${count(status)} ${status}`);
    const target = stored.find((name) => name !== undefined) ?? namespace;
    this.say(`${counts.join(' · ')} in ${target}.`, count('failed') > 0 ? 'error' : 'normal');
    submit.disabled = false;
    submit.textContent = 'Add to namespace';
    // Sources that made it are cleared; failed ones stay, to be fixed and sent again.
    this.queued = this.queued.filter((_file, index) => fileRows[index]?.status === 'failed');
    this.showQueue();
    if (pastedRows.every((row) => row.status !== 'failed')) pasteInput.value = '';
    this.elements.pasteHint.textContent = describePasted(parsePasted(pasteInput.value));
    if (rows.some((row) => row.status !== 'failed')) await this.onIngested(target);
  }

  /** Applies one request's progress lines to its rows; returns the namespace the service stored into. */
  private async track(start: () => Promise<AsyncGenerator<IngestProgress>>, rows: readonly StatusRow[]): Promise<string | undefined> {
    let namespace: string | undefined;
    const failPending = (reason: string) => {
      for (const row of rows) if (row.status === 'pending') row.failed(reason);
    };
    try {
      for await (const event of await start()) {
        if (event.type === 'document') rows[event.index]?.stored(event.status, event.chunks, event.file);
        else if (event.type === 'failed') rows[event.index]?.failed(event.error);
        else if (event.type === 'result') namespace = event.result.namespace;
        else if (event.type === 'error') failPending(event.error.message);
      }
    } catch (error) {
      failPending(describeFailure(error));
    }
    failPending('the service did not report this source');
    return namespace;
  }
}
