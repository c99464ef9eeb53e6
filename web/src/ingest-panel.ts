// Adds documents to the chosen namespace: dropped or picked files and folders (multipart uploads, in batches the
// service accepts) and pasted URLs or text (JSON), each source with its own status row, updated live from the ingest
// routes' NDJSON progress. Files of a folder go up under their paths in it, so namesakes in other folders stay apart.
import { describeFailure, type ApiClient } from './api-client.js';
import type { IngestProgress } from './api-types.js';
import { clear, h, plural } from './dom.js';
import type { NamespacePicker } from './namespace-picker.js';
import { describePasted, parsePasted, toRequestSource } from './pasted-sources.js';
import { pickedFromDrop, pickedFromInput, type PickedFile, type PickedFiles } from './picked-files.js';
import { StatusRow } from './status-row.js';

export interface IngestPanelElements {
  readonly form: HTMLFormElement;
  readonly dropzone: HTMLElement;
  readonly fileInput: HTMLInputElement;
  /** A file input with `webkitdirectory`: a whole folder, each file with its path in it. */
  readonly folderInput: HTMLInputElement;
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

/** Files per upload request and their bytes: under the service's 50 files and 8 MB per request (as the CLI sends them). */
const maxFilesPerUpload = 20;
const maxBytesPerUpload = 4_000_000;

/** The queued files in upload requests the service accepts, in order; a file larger than a batch goes alone. */
function uploadBatches(files: readonly PickedFile[]): PickedFile[][] {
  const batches: PickedFile[][] = [];
  let batch: PickedFile[] = [];
  let bytes = 0;
  for (const picked of files) {
    if (batch.length > 0 && (batch.length >= maxFilesPerUpload || bytes + picked.file.size > maxBytesPerUpload)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(picked);
    bytes += picked.file.size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

export class IngestPanel {
  private queued: PickedFile[] = [];

  constructor(
    private readonly api: ApiClient,
    private readonly picker: NamespacePicker,
    private readonly elements: IngestPanelElements,
    private readonly onIngested: (namespace: string) => Promise<void>,
  ) {
    const { form, dropzone, fileInput, folderInput, pasteInput } = elements;
    for (const input of [fileInput, folderInput]) {
      input.addEventListener('change', () => {
        this.queue(pickedFromInput([...(input.files ?? [])]));
        input.value = '';
      });
    }
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
      if (event.dataTransfer === null) return;
      pickedFromDrop(event.dataTransfer).then(
        (picked) => this.queue(picked),
        (error: unknown) =>
          this.say(`The dropped folder could not be read: ${error instanceof Error ? error.message : String(error)}`, 'error'),
      );
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

  /**
   * Adds picked files to the queue. A path already queued is not queued twice: the same file again is ignored, another
   * file under that path (from a second folder) is left out and said, since it would replace the first at the service.
   */
  private queue(picked: PickedFiles): void {
    const clashes: string[] = [];
    for (const candidate of picked.files) {
      const queued = this.queued.find((other) => other.path === candidate.path);
      if (queued === undefined) this.queued.push(candidate);
      else if (queued.file.size !== candidate.file.size || queued.file.lastModified !== candidate.file.lastModified)
        clashes.push(candidate.path);
    }
    this.showQueue();
    const notes = [
      picked.leftOut > 0
        ? `Left out ${plural(picked.leftOut, 'file')} that ${picked.leftOut === 1 ? 'is' : 'are'} not Markdown, text, PDF or HTML (or hidden).`
        : '',
      clashes.length > 0
        ? `Not added: ${clashes.join(', ')}: another file is queued under the same path, and one would replace the other (remove it first, or add the two folders' common folder).`
        : '',
    ].filter((note) => note !== '');
    if (notes.length > 0) this.say(notes.join(' '), clashes.length > 0 ? 'error' : 'normal');
  }

  private showQueue(): void {
    const { fileQueue } = this.elements;
    fileQueue.replaceChildren(
      ...this.queued.map((picked) => {
        const remove = h('button', {
          className: 'icon-button',
          text: '×',
          attributes: { type: 'button', 'aria-label': `Remove ${picked.path}` },
        });
        remove.addEventListener('click', () => {
          this.queued = this.queued.filter((queued) => queued !== picked);
          this.showQueue();
          this.elements.fileInput.focus();
        });
        return h('li', { className: 'file-chip' }, [
          h('span', { className: 'file-chip-name', text: picked.path }),
          h('span', { className: 'file-chip-size', text: formatBytes(picked.file.size) }),
          remove,
        ]);
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
    const fileRows = files.map((picked) => new StatusRow('file', picked.path));
    statusList.append(...fileRows.map((row) => row.element), ...pastedRows.map((row) => row.element));

    const uploadAll = async () => {
      let namespaceStored: string | undefined;
      let offset = 0;
      // One request after another: the service would rate-limit (and the disk serialise) parallel ones anyway.
      for (const batch of uploadBatches(files)) {
        const rows = fileRows.slice(offset, offset + batch.length);
        offset += batch.length;
        namespaceStored = (await this.track(() => this.api.ingestFiles(namespace, batch), rows)) ?? namespaceStored;
      }
      return namespaceStored;
    };
    const stored = await Promise.all([
      files.length === 0 ? undefined : uploadAll(),
      pasted.length === 0 ? undefined : this.track(() => this.api.ingestSources(namespace, pasted.map(toRequestSource)), pastedRows),
    ]);
    const rows = [...fileRows, ...pastedRows];
    const count = (status: string) => rows.filter((row) => row.status === status).length;
    const counts = ['saved', 'updated', 'skipped', 'failed']
      .filter((status) => count(status) > 0)
      .map((status) => `${count(status)} ${status}`);
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
        if (event.type === 'document')
          rows[event.index]?.stored(event.status, event.chunks, event.file, event.replaced?.ingested_at, event.warning);
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
